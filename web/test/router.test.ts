// The app's routes, which survive a reload and a login.
import { describe, expect, it } from "vitest";
import { isAppPath } from "../src/afterlogin";
import { matchRoute } from "../src/router";

describe("routes", () => {
  it("matches the app's pages", () => {
    expect(matchRoute("/")).toEqual({ name: "home" });
    expect(matchRoute("/join/k7qx2m")).toEqual({ name: "join", code: "K7QX2M" });
    expect(matchRoute("/games/6f1c-2a9e/")).toEqual({ name: "game", id: "6f1c-2a9e" });
    expect(matchRoute("/nowhere").name).toBe("not-found");
    expect(matchRoute("/games/a/b").name).toBe("not-found");
  });

  it("matches the Watch page and a spectator's table", () => {
    expect(matchRoute("/watch")).toEqual({ name: "watch" });
    expect(matchRoute("/watch/6f1c-2a9e/")).toEqual({ name: "spectate", id: "6f1c-2a9e" });
    expect(matchRoute("/watch/a/b").name).toBe("not-found");
    expect(isAppPath("/watch/6f1c-2a9e")).toBe(true);
  });
});

describe("the new pages", () => {
  it("have routes that survive a reload and a login", () => {
    expect(matchRoute("/history")).toEqual({ name: "history" });
    expect(matchRoute("/history/6f1c-2a9e")).toEqual({ name: "match", id: "6f1c-2a9e" });
    expect(matchRoute("/leaderboard/")).toEqual({ name: "leaderboard" });
    expect(matchRoute("/me")).toEqual({ name: "account" });
    expect(matchRoute("/history/a/b").name).toBe("not-found");
    for (const path of ["/history", "/history/6f1c", "/leaderboard", "/me"]) expect(isAppPath(path)).toBe(true);
    expect(isAppPath("//evil.example")).toBe(false);
  });
});

describe("the rules page", () => {
  it("has a route", () => {
    expect(matchRoute("/rules")).toEqual({ name: "rules" });
  });
});

describe("the players' pages and Friends", () => {
  it("have routes that survive a reload and a login", () => {
    expect(matchRoute("/players/q3Zr8YkV0bT1mWc9LxPa2g")).toEqual({ name: "player", id: "q3Zr8YkV0bT1mWc9LxPa2g" });
    expect(matchRoute("/players/a_b-C/")).toEqual({ name: "player", id: "a_b-C" });
    expect(matchRoute("/players/a/b").name).toBe("not-found");
    expect(matchRoute("/friends")).toEqual({ name: "friends" });
    for (const path of ["/players/q3Zr8YkV0bT1mWc9LxPa2g", "/friends"]) expect(isAppPath(path)).toBe(true);
  });
});
