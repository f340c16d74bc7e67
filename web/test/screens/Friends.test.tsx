// @vitest-environment jsdom
// The Friends screen and the waiting room's "Invite a player": the followed players online first
// with Watch and Invite, the empty state that says how to follow someone, and an invitation that
// says "Invited", or why not in words.
import { cleanup, fireEvent, render, screen, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { InvitePlayers } from "../../src/invite";
import { FriendsScreen } from "../../src/screens/Friends";
import type { FollowedPlayer, MyGame } from "../../src/types";
import { lobby, person } from "../fixtures";

const waiting: MyGame = {
  id: "g-mine", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "lobby",
  players: [{ seat: 0, name: "alice", team: "A", is_you: true, player: "alice-player-id-0123" }],
  seats_open: 3, your_turn: false, updated_at: "2026-12-02T10:00:00.000Z", pace: "live",
};

function server({ following = [] as FollowedPlayer[], games = [] as MyGame[], invite = [204, null] as [number, unknown], matches = [] as unknown[] } = {}) {
  const posts: { url: string; body: unknown }[] = [];
  vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
    const json = (status: number, data: unknown) => new Response(data === null ? null : JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
    if (init.method === "POST") {
      posts.push({ url, body: JSON.parse(String(init.body)) });
      return json(invite[0], invite[1]);
    }
    if (url === "/api/me/following") return json(200, { players: following });
    if (url === "/api/me/games") return json(200, { games });
    if (url.startsWith("/api/me/matches")) return json(200, { items: matches, next_cursor: null });
    return json(404, { detail: "Not Found" });
  }));
  return posts;
}

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
});

describe("Friends", () => {
  it("lists the followed players online first, with Watch for the table they play and Invite to yours", async () => {
    const posts = server({
      games: [waiting],
      following: [
        { player: "bob-player-id-012345", name: "bob", online: false, playing: null },
        { player: "carol-player-id-0123", name: "carol", online: true, playing: "g-live" },
      ],
    });
    render(<FriendsScreen />);
    const rows = await screen.findAllByTestId("friend");
    expect(rows.map((r) => r.dataset.player)).toEqual(["carol-player-id-0123", "bob-player-id-012345"]);
    expect(screen.getByText("1 of 2 online")).toBeTruthy();
    expect(within(rows[0]).getByRole("link", { name: "Watch carol's table" }).getAttribute("href")).toBe("/watch/g-live");
    expect(within(rows[0]).getByRole("link", { name: "carol" }).getAttribute("href")).toBe("/players/carol-player-id-0123");
    fireEvent.click(await within(rows[1]).findByRole("button", { name: "Invite bob" }));
    await within(rows[1]).findByText("Invited");
    expect(posts).toEqual([{ url: "/api/games/g-mine/invite", body: { player: "bob-player-id-012345" } }]);
  });

  it("says how to follow someone when nobody is followed", async () => {
    server();
    render(<FriendsScreen />);
    expect(await screen.findByText(/You follow nobody yet\. Tap a player's name/)).toBeTruthy();
  });
});

describe("the waiting room's Invite a player", () => {
  it("offers the followed and the recent players and says a refusal in words", async () => {
    const posts = server({
      invite: [403, { detail: "Blocked" }],
      following: [{ player: "bob-player-id-012345", name: "bob", online: true, playing: null }],
      matches: [{
        id: "m1", game_type: "scopone_scientifico", started_at: "", finished_at: "", rated: false, result: {},
        players: [
          { seat: 0, name: "alice", team: "A", won: true, points: 11, elo_delta: 0, player: "alice-player-id-0123" },
          { seat: 1, name: "dave", team: "B", won: false, points: 3, elo_delta: 0, player: "dave-player-id-01234" },
          { seat: 2, name: "Bruno", team: "A", won: true, points: 11, elo_delta: 0, bot: "esperto" },
        ],
      }],
    });
    const room = lobby([{ ...person(0, "alice", true), player: "alice-player-id-0123" }]);
    render(<InvitePlayers lobby={room} />);
    const offered = await screen.findAllByTestId("invite-candidate");
    expect(offered.map((r) => r.textContent)).toEqual(["bobyou followInvite", "daveplayed with youInvite"]);
    fireEvent.click(within(offered[0]).getByRole("button", { name: "Invite bob" }));
    expect((await within(offered[0]).findByRole("alert")).textContent).toMatch(/^Blocked: one of you blocked the other/);
    expect(posts).toHaveLength(1);
  });
});
