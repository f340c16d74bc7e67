// The member socket /ws/me: its messages folded into the invitations, the notices and the online
// changes; the invitations read again at each (re)connect without losing one that came live
// meanwhile; and the socket given up once the session is gone.
import { describe, expect, it } from "vitest";
import { initialMember, MemberFeed, memberSocketUrl, reduceMember, type MemberState } from "../src/membersocket";
import type { SocketDeps } from "../src/socket";
import type { Invitation, MemberMessage, MyGame } from "../src/types";

function game(id: string, extra: Partial<MyGame> = {}): MyGame {
  return {
    id, game_type: "scopone_scientifico", join_code: `CODE${id.toUpperCase()}`.slice(0, 6), status: "lobby",
    players: [{ seat: 0, name: "carol", team: "A", is_you: false, player: "carol-player-id-0001" }],
    seats_open: 3, your_turn: false, updated_at: "2026-12-02T10:00:00.000Z", pace: "live", ...extra,
  };
}

const carol = { player: "carol-player-id-0001", name: "carol" };
const invited = (id: string, by = carol): MemberMessage => ({ type: "invited", game: game(id), by });
const invitation = (id: string, at: string, by = carol): Invitation => ({ game: game(id), by, at });

function fold(state: MemberState, ...messages: MemberMessage[]): MemberState {
  return messages.reduce((s, message, i) => reduceMember(s, { type: "message", message, at: `2026-12-02T10:0${i}:00.000Z` }), state);
}

describe("the member socket's messages", () => {
  it("add an invitation to the list and to the notices, newest first, one per game", () => {
    const state = fold(initialMember, invited("g1"), invited("g2"), invited("g1", { player: "dave-player-id-00001", name: "dave" }));
    expect(state.invitations?.map((i) => [i.game.id, i.by.name])).toEqual([["g1", "dave"], ["g2", "carol"]]);
    expect(state.notices.map((n) => n.game.id)).toEqual(["g1", "g2"]);
    expect(state.serial).toBe(3);
  });

  it("keep the latest online change of each player, numbered", () => {
    const state = fold(initialMember,
      { type: "online", player: "p1", online: true },
      { type: "online", player: "p2", online: true },
      { type: "online", player: "p1", online: false });
    expect(state.online.get("p1")).toEqual({ player: "p1", online: false, serial: 3 });
    expect(state.online.get("p2")?.online).toBe(true);
  });

  it("ignore a type the app does not know (the server may add some)", () => {
    const unknown = { type: "something_new" } as unknown as MemberMessage;
    const before = fold(initialMember, invited("g1"));
    expect(reduceMember(before, { type: "message", message: unknown, at: "" })).toBe(before);
  });

  it("close a notice without dropping the invitation, and forget a game joined", () => {
    let state = fold(initialMember, invited("g1"), invited("g2"));
    state = reduceMember(state, { type: "dismiss", game: "g2" });
    expect(state.notices.map((n) => n.game.id)).toEqual(["g1"]);
    expect(state.invitations?.map((i) => i.game.id)).toEqual(["g2", "g1"]);
    state = reduceMember(state, { type: "forget", game: "g1" });
    expect(state.notices).toEqual([]);
    expect(state.invitations?.map((i) => i.game.id)).toEqual(["g2"]);
  });

  it("take the read list as the truth, but keep an invitation that came live after it was asked", () => {
    let state = fold(initialMember, invited("old"));
    const asOf = state.serial; // the read is asked now...
    state = fold(state, invited("live")); // ...an invitation comes while it travels...
    state = reduceMember(state, { type: "invitations", invitations: [invitation("g9", "2026-12-02T09:00:00.000Z")], asOf });
    // ...the read does not list "old" any more (its game started): it goes; "live" stays.
    expect(state.invitations?.map((i) => i.game.id)).toEqual(["live", "g9"]);
  });

  it("count a connect only when the socket opens after not being open", () => {
    let state = reduceMember(initialMember, { type: "status", status: "connecting" });
    state = reduceMember(state, { type: "status", status: "open" });
    state = reduceMember(state, { type: "status", status: "open" }); // every message says open
    expect(state.connects).toBe(1);
    state = reduceMember(state, { type: "status", status: "reconnecting" });
    state = reduceMember(state, { type: "status", status: "open" });
    expect(state.connects).toBe(2);
  });

  it("keep a turn-based game's your_turn as a notice", () => {
    const state = fold(initialMember, { type: "your_turn", game: game("d1", { status: "playing", your_turn: true }) });
    expect(state.turns.map((g) => g.id)).toEqual(["d1"]);
    expect(reduceMember(state, { type: "dismiss", game: "d1" }).turns).toEqual([]);
  });
});

class FakeSocket {
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  readyState = 0;
  closed = false;
  constructor(readonly url: string) {}
  send() {}
  close() {
    this.closed = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({} as Event);
  }
  receive(message: object) {
    this.onmessage?.({ data: JSON.stringify(message) } as MessageEvent);
  }
  drop(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code, reason: "" } as CloseEvent);
  }
}

function feedHarness({ loggedIn = true, reads = [[]] as Invitation[][] } = {}) {
  const sockets: FakeSocket[] = [];
  const timers: (() => void)[] = [];
  let asked = 0;
  const socket: SocketDeps = {
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    setTimeout: (fn) => timers.push(fn),
    clearTimeout: () => undefined,
    random: () => 0,
  };
  const feed = new MemberFeed({
    invitations: async () => reads[Math.min(asked++, reads.length - 1)],
    stillLoggedIn: async () => loggedIn,
    now: () => "2026-12-02T10:30:00.000Z",
    socket,
  }, () => "ws://tavolo.test/ws/me");
  const flush = () => new Promise((r) => setTimeout(r, 0));
  return { feed, sockets, timers, flush, asked: () => asked };
}

describe("the member feed", () => {
  it("opens /ws/me, reads the invitations once connected, and folds the messages in", async () => {
    const h = feedHarness({ reads: [[invitation("g1", "2026-12-02T09:00:00.000Z")]] });
    const seen: MemberState[] = [];
    h.feed.subscribe((s) => seen.push(s));
    h.feed.start();
    h.feed.start(); // one socket per tab, however often it is asked
    expect(h.sockets).toHaveLength(1);
    expect(h.sockets[0].url).toBe("ws://tavolo.test/ws/me");
    h.sockets[0].open();
    await h.flush();
    expect(h.asked()).toBe(1);
    expect(h.feed.current.invitations?.map((i) => i.game.id)).toEqual(["g1"]);
    h.sockets[0].receive({ type: "invited", game: game("g2"), by: carol });
    expect(h.feed.current.invitations?.map((i) => i.game.id)).toEqual(["g2", "g1"]);
    expect(h.feed.current.notices[0].at).toBe("2026-12-02T10:30:00.000Z");
    expect(seen.length).toBeGreaterThan(2);
  });

  it("reconnects after a drop and reads the invitations again, for what the drop missed", async () => {
    const h = feedHarness({ reads: [[], [invitation("missed", "2026-12-02T10:10:00.000Z")]] });
    h.feed.start();
    h.sockets[0].open();
    await h.flush();
    h.sockets[0].drop();
    await h.flush();
    expect(h.feed.current.status).toBe("reconnecting");
    h.timers.shift()?.();
    h.sockets[1].open();
    await h.flush();
    expect(h.asked()).toBe(2);
    expect(h.feed.current.invitations?.map((i) => i.game.id)).toEqual(["missed"]);
    expect(h.feed.current.connects).toBe(2);
  });

  it("gives up once the session is gone (the socket closed with 1008, GET /api/me says 401)", async () => {
    const h = feedHarness({ loggedIn: false });
    h.feed.start();
    h.sockets[0].open();
    h.sockets[0].drop(1008);
    await h.flush();
    expect(h.timers).toHaveLength(0);
    expect(h.feed.current.status).toBe("closed");
  });

  it("forgets everything when stopped (logged out)", async () => {
    const h = feedHarness();
    h.feed.start();
    h.sockets[0].open();
    h.sockets[0].receive({ type: "online", player: "p1", online: true });
    h.feed.stop();
    expect(h.sockets[0].closed).toBe(true);
    expect(h.feed.current).toBe(initialMember);
  });
});

describe("the member socket's address", () => {
  it("follows the page's scheme", () => {
    expect(memberSocketUrl({ protocol: "https:", host: "tavolo.example" })).toBe("wss://tavolo.example/ws/me");
    expect(memberSocketUrl({ protocol: "http:", host: "localhost:8080" })).toBe("ws://localhost:8080/ws/me");
  });
});
