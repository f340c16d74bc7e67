// @vitest-environment jsdom
// A player's page: follow and unfollow, block after a confirmation that says the player is not
// told, invite to the viewer's waiting table; no buttons on your own page; 404 said in words.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { PlayerScreen } from "../../src/screens/Player";
import type { Me, MyGame, PlayerPage } from "../../src/types";

const BOB = "bob-player-id-012345";
const ME: Me = { sub: "alice", name: "alice", provider: "default", player: "alice-player-id-0123" };

const page = (extra: Partial<PlayerPage> = {}): PlayerPage => ({
  player: BOB, name: "bob", ratings: [{ game_type: "scopone_scientifico", rating: 1516, matches: 3 }],
  matches: 3, wins: 2, recent: [], online: true, playing: ["g-live"], following: false, blocked: false, ...extra,
});

const waiting: MyGame = {
  id: "g-mine", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "lobby",
  players: [{ seat: 0, name: "alice", team: "A", is_you: true, player: ME.player }],
  seats_open: 3, your_turn: false, updated_at: "2026-12-02T10:00:00.000Z", pace: "live",
};

function server(player: PlayerPage | null, games: MyGame[] = []) {
  const calls: { method: string; url: string; body: unknown }[] = [];
  vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    calls.push({ method, url, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const json = (status: number, body: unknown) =>
      new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
    if (method !== "GET") return new Response(null, { status: 204 });
    if (url.startsWith("/api/players/")) return player ? json(200, player) : json(404, { detail: "Player not found" });
    if (url === "/api/me/games") return json(200, { games });
    return json(200, []);
  }));
  return calls;
}

beforeEach(() => history.replaceState(null, "", `/players/${BOB}`));
afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
});

describe("a player's page", () => {
  it("shows the name, the online dot, the numbers and Watch for the table they play", async () => {
    server(page());
    render(<PlayerScreen id={BOB} me={ME} />);
    expect(await screen.findByRole("heading", { level: 1, name: /bob/ })).toBeTruthy();
    expect(screen.getByTestId("online-dot").dataset.online).toBe("true");
    expect(screen.getByTestId("player-presence").textContent).toBe("Online now");
    expect(screen.getByTestId("player-matches").textContent).toBe("3");
    expect(screen.getByTestId("player-wins").textContent).toBe("2");
    expect(screen.getByRole("link", { name: "Watch bob's table" }).getAttribute("href")).toBe("/watch/g-live");
  });

  it("has no dot when the player hides it", async () => {
    server(page({ online: undefined, playing: [] }));
    render(<PlayerScreen id={BOB} me={ME} />);
    await screen.findByRole("heading", { level: 1, name: /bob/ });
    expect(screen.queryByTestId("online-dot")).toBeNull();
    expect(screen.queryByTestId("player-presence")).toBeNull();
    expect(screen.queryByTestId("player-playing")).toBeNull();
  });

  it("follows and unfollows", async () => {
    const calls = server(page());
    render(<PlayerScreen id={BOB} me={ME} />);
    fireEvent.click(await screen.findByRole("button", { name: "Follow" }));
    await screen.findByRole("button", { name: "Unfollow" });
    expect(calls.find((c) => c.method === "POST")).toEqual({ method: "POST", url: "/api/me/following", body: { player: BOB } });
    fireEvent.click(screen.getByRole("button", { name: "Unfollow" }));
    await screen.findByRole("button", { name: "Follow" });
    expect(calls.some((c) => c.method === "DELETE" && c.url === `/api/me/following/${BOB}`)).toBe(true);
  });

  it("blocks only after saying what it does and that the player is not told", async () => {
    const calls = server(page());
    render(<PlayerScreen id={BOB} me={ME} />);
    fireEvent.click(await screen.findByRole("button", { name: "Block" }));
    const confirm = screen.getByRole("group", { name: "Block bob?" });
    expect(confirm.textContent).toContain("bob is not told");
    expect(calls.some((c) => c.method === "POST")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("group", { name: "Block bob?" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Block" }));
    fireEvent.click(screen.getByRole("button", { name: "Block bob" }));
    await screen.findByRole("button", { name: "Unblock" });
    expect(calls.find((c) => c.method === "POST")).toEqual({ method: "POST", url: "/api/me/blocked", body: { player: BOB } });
  });

  it("invites to the viewer's waiting table, then says Invited", async () => {
    const calls = server(page(), [waiting]);
    render(<PlayerScreen id={BOB} me={ME} />);
    fireEvent.click(await screen.findByRole("button", { name: "Invite to my table" }));
    await screen.findByText("Invited");
    expect(calls.find((c) => c.method === "POST")).toEqual({ method: "POST", url: "/api/games/g-mine/invite", body: { player: BOB } });
  });

  it("offers no invitation without a waiting table", async () => {
    server(page(), []);
    render(<PlayerScreen id={BOB} me={ME} />);
    await screen.findByRole("button", { name: "Follow" });
    await waitFor(() => expect(screen.queryByRole("button", { name: "Invite to my table" })).toBeNull());
  });

  it("has no buttons on your own page", async () => {
    server(page({ player: ME.player, name: "alice" }), [waiting]);
    render(<PlayerScreen id={ME.player} me={ME} />);
    await screen.findByRole("heading", { level: 1, name: /alice/ });
    expect(screen.queryByRole("button", { name: "Follow" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Block" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Invite to my table" })).toBeNull();
  });

  it("says Player not found for an unknown or erased player", async () => {
    server(null);
    render(<PlayerScreen id="nobody-at-all-12345" me={ME} />);
    expect(await screen.findByRole("heading", { level: 1, name: "Player not found" })).toBeTruthy();
  });
});
