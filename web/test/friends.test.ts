// Players and relations as the screens use them: which names link to a page, the invitations
// merged one per game, the online changes applied to a list read earlier, the people a waiting
// room offers to invite, and the refusals in words.
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../src/api";
import {
  friendsOrder, inviteCandidates, inviteErrorText, joinErrorText, mergeInvitations, onlineNow,
  openInvitations, pageOf, playerHref, withOnline,
} from "../src/friends";
import { setLang } from "../src/i18n";
import type { FollowedPlayer, Invitation, MatchItem, MyGame } from "../src/types";

afterEach(() => setLang("en", null));

const game = (id: string, extra: Partial<MyGame> = {}): MyGame => ({
  id, game_type: "scopone_scientifico", join_code: "K7QX2M", status: "lobby", players: [],
  seats_open: 3, your_turn: false, updated_at: "2026-12-02T10:00:00.000Z", pace: "live", ...extra,
});
const inv = (id: string, at: string, by = "carol"): Invitation => ({ game: game(id), by: { player: `${by}-id-0123456789`, name: by }, at });

describe("a name's page", () => {
  it("is a person's, also while a bot plays their seat; never a bot's own or an erased member's", () => {
    expect(pageOf({ player: "abcdefghijklmnop" })).toBe("abcdefghijklmnop");
    expect(pageOf({ player: "abcdefghijklmnop", bot: "esperto", took_over: true })).toBe("abcdefghijklmnop");
    expect(pageOf({ bot: "esperto" })).toBeNull();
    expect(pageOf({ player: "abcdefghijklmnop", bot: "esperto" })).toBeNull();
    expect(pageOf({})).toBeNull(); // "deleted player"
    expect(playerHref("a_b-C")).toBe("/players/a_b-C");
  });
});

describe("the invitations", () => {
  it("are one per game, the latest kept, newest first", () => {
    const merged = mergeInvitations(
      [inv("g1", "2026-12-02T10:00:00.000Z"), inv("g2", "2026-12-02T10:05:00.000Z")],
      [inv("g1", "2026-12-02T10:09:00.000Z", "dave")],
    );
    expect(merged.map((i) => [i.game.id, i.by.name])).toEqual([["g1", "dave"], ["g2", "carol"]]);
  });

  it("shown are only those to a game still waiting with a seat open, that the member does not sit at", () => {
    const list = [
      inv("waiting", "2026-12-02T10:00:00.000Z"),
      { ...inv("full", "2026-12-02T10:00:00.000Z"), game: game("full", { seats_open: 0 }) },
      { ...inv("started", "2026-12-02T10:00:00.000Z"), game: game("started", { status: "playing" }) },
      inv("mine", "2026-12-02T10:00:00.000Z"),
    ];
    expect(openInvitations(list, [{ id: "mine" }]).map((i) => i.game.id)).toEqual(["waiting"]);
  });
});

describe("online dots", () => {
  const list: FollowedPlayer[] = [
    { player: "p1", name: "bob", online: false, playing: null },
    { player: "p2", name: "alice", online: true, playing: "g1" },
  ];

  it("take the socket's changes that came after the list was read, not those before", () => {
    const changes = new Map([
      ["p1", { player: "p1", online: true, serial: 5 }],
      ["p2", { player: "p2", online: false, serial: 2 }],
    ]);
    expect(withOnline(list, changes, 3).map((p) => p.online)).toEqual([true, true]);
    expect(withOnline(list, changes, 5)).toEqual(list);
  });

  it("stay hidden on a page that hides them, whatever the socket says", () => {
    const change = { player: "p1", online: true, serial: 9 };
    expect(onlineNow(undefined, change, 0)).toBeUndefined();
    expect(onlineNow(false, change, 0)).toBe(true);
    expect(onlineNow(false, change, 9)).toBe(false);
  });

  it("put the online friends first, then by name", () => {
    expect(friendsOrder([...list, { player: "p3", name: "aaron", online: false, playing: null }]).map((p) => p.name))
      .toEqual(["alice", "aaron", "bob"]);
  });
});

describe("the people a waiting room offers", () => {
  const match = (players: { name: string; player?: string; bot?: string }[]): MatchItem => ({
    id: "m", game_type: "scopone_scientifico", started_at: "", finished_at: "", rated: false, result: {},
    players: players.map((p, seat) => ({ seat, team: seat % 2 ? "B" : "A", won: false, points: 0, elo_delta: 0, ...p })),
  });

  it("are the followed, then the recent players; no bot, not me, not who sits here, each once", () => {
    const following = [{ player: "bob-id", name: "bob", online: true }];
    const recent = [
      match([{ name: "me", player: "me-id" }, { name: "Bruno", bot: "esperto" }, { name: "carol", player: "carol-id" }, { name: "bob", player: "bob-id" }]),
      match([{ name: "dave", player: "dave-id" }, { name: "carol", player: "carol-id" }, { name: "deleted player" }, { name: "erin", player: "erin-id" }]),
    ];
    const offered = inviteCandidates(following, recent, "me-id", [{ player: "me-id" }, { player: "erin-id" }, {}]);
    expect(offered).toEqual([
      { player: "bob-id", name: "bob", followed: true, online: true },
      { player: "carol-id", name: "carol", followed: false },
      { player: "dave-id", name: "dave", followed: false },
    ]);
  });
});

describe("refusals in words", () => {
  it("say why an invitation was refused, in both languages", () => {
    expect(inviteErrorText(new ApiError(403, "Blocked"))).toMatch(/^Blocked: /);
    expect(inviteErrorText(new ApiError(409, "Game is full"))).toMatch(/^Game is full/);
    expect(inviteErrorText(new ApiError(409, "Game already started"))).toBe("The game has already started.");
    expect(inviteErrorText(new ApiError(404, "Player not found"))).toMatch(/^Player not found/);
    expect(inviteErrorText(new ApiError(500, "Something else"))).toBe("Something else");
    setLang("it", null);
    expect(inviteErrorText(new ApiError(403, "Blocked"))).toMatch(/^Bloccato: /);
  });

  it("tell a blocked player joining why, and nothing more", () => {
    expect(joinErrorText(new ApiError(403, "Blocked"))).toMatch(/^Blocked: you cannot sit at this table/);
    expect(joinErrorText(new ApiError(404, "Game not found"))).toMatch(/^Game not found/);
    setLang("it", null);
    expect(joinErrorText(new ApiError(409, "Game is full"))).toMatch(/^La partita è al completo/);
  });
});
