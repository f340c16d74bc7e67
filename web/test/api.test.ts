// The REST client: its query strings, and the contract's calls to remove a bot, leave and come back.
import { afterEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, errorText, openGamesEventsUrl, queryString, retryAfterSeconds } from "../src/api";
import { setLang } from "../src/i18n";
import { fakeFetch, lobby, person, table, threeBots } from "./fixtures";

afterEach(() => vi.unstubAllGlobals());

describe("the new pages", () => {
  it("build query strings without the empty parts", () => {
    expect(queryString({ limit: 10, cursor: null, game_type: "" })).toBe("?limit=10");
    expect(queryString({ cursor: "a b&c" })).toBe("?cursor=a%20b%26c");
    expect(queryString({})).toBe("");
  });
});

describe("play against the computer", () => {
  const created = lobby([person(0, "alice", true)]);
  const started = { ...table(threeBots), revision: 1 };

  it("removes a bot and leaves with the contract's calls", async () => {
    const requests = fakeFetch([[200, created], [200, { left: true }], [200, started]]);
    await api.removeBot("g1", 2);
    expect(await api.leave("g1")).toEqual({ left: true });
    expect(await api.returnToSeat("g1")).toEqual(started);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "DELETE /api/games/g1/bots/2", "POST /api/games/g1/leave", "POST /api/games/g1/return",
    ]);
  });
});

describe("finding a table", () => {
  it("creates an open game, asks for a quick match, lists and opens games with the contract's calls", async () => {
    const created = lobby([person(0, "alice", true)]);
    const requests = fakeFetch([
      [201, created], [201, { ...created, open: true }], [200, created], [200, { games: [] }], [200, created],
    ]);
    await api.createGame("scopone_scientifico", { target_score: 11 });
    await api.createGame("scopone_scientifico", { target_score: 11 }, true);
    await api.quickMatch();
    expect(await api.openGames("scopone_scientifico")).toEqual([]);
    await api.setOpen("g1", false);
    expect(requests).toEqual([
      // `open` only when asked for: a gateway without the field refuses unknown fields.
      { method: "POST", url: "/api/games", body: { game_type: "scopone_scientifico", options: { target_score: 11 } } },
      { method: "POST", url: "/api/games", body: { game_type: "scopone_scientifico", options: { target_score: 11 }, open: true } },
      { method: "POST", url: "/api/games/quick", body: {} },
      { method: "GET", url: "/api/games/open?game_type=scopone_scientifico", body: undefined },
      { method: "POST", url: "/api/games/g1/open", body: { open: false } },
    ]);
    expect(openGamesEventsUrl()).toBe("/api/games/open/events");
    expect(openGamesEventsUrl("scopone_scientifico")).toBe("/api/games/open/events?game_type=scopone_scientifico");
  });
});

describe("a rate limit", () => {
  afterEach(() => setLang("en", null));

  it("is told in the player's words, with the wait the server names in Retry-After", async () => {
    fakeFetch([[429, { detail: "Too many requests" }, { "Retry-After": "58" }]]);
    const failed = await api.joinGame("K7QX2M").catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiError);
    expect((failed as ApiError).status).toBe(429);
    expect((failed as ApiError).retryAfter).toBe(58);
    expect(errorText(failed)).toBe("Too many requests in a short time, so nothing was done: wait 58 seconds and try again.");
    setLang("it", null);
    expect(errorText(failed)).toBe("Troppe richieste in poco tempo, quindi non è stato fatto niente: aspetta 58 secondi e riprova.");
  });

  it("names a second, minutes, or a moment when the server names no wait", () => {
    const limited = (retryAfter: number | null) => errorText(new ApiError(429, "Too many requests", retryAfter));
    expect(limited(1)).toMatch(/: wait a second and try again\.$/);
    expect(limited(150)).toMatch(/: wait 3 minutes and try again\.$/);
    expect(limited(null)).toMatch(/: wait a moment and try again\.$/);
  });

  it("reads Retry-After as whole seconds only", () => {
    expect(retryAfterSeconds("58")).toBe(58);
    expect(retryAfterSeconds(" 2 ")).toBe(2);
    expect(retryAfterSeconds(null)).toBeNull();
    expect(retryAfterSeconds("Wed, 21 Oct 2026 07:28:00 GMT")).toBeNull();
    expect(retryAfterSeconds("-1")).toBeNull();
  });
});
