// How the views and messages of a game are folded: never backwards, the hand unlocked when a move
// may be lost, a hand's end caught from every state, presence, a rematch invitation; and what a
// refused move or a failed first read of a game says.
import { describe, expect, it } from "vitest";
import { asksForState, classifyLoadFailure, errorText, initialGameState, reduce } from "../src/gamestate";
import type { AnyView, GameView, LobbyView, ServerMessage } from "../src/types";
import { gameView, lobby, person, play, table, view } from "./fixtures";

describe("folding views", () => {
  const lobby: LobbyView = {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "lobby", options: {},
    players: [], seats_open: 3, created_at: "2026-12-02T10:00:00.000Z",
  };

  it("never rolls a started game back to an older revision or to the lobby", () => {
    let s = reduce(initialGameState, { type: "view", view: gameView({ revision: 9 }) });
    s = reduce(s, { type: "view", view: gameView({ revision: 8 }) });
    expect((s.view as GameView).revision).toBe(9);
    s = reduce(s, { type: "message", message: { type: "lobby", game: lobby } });
    expect(s.view?.status).toBe("playing");
  });

  it("opens the table when the first state follows the lobby", () => {
    let s = reduce(initialGameState, { type: "message", message: { type: "lobby", game: lobby } });
    s = reduce(s, { type: "message", message: { type: "state", game: gameView({ revision: 1 }) } });
    expect(s.view?.status).toBe("playing");
  });

  it("keeps the first commitment it saw", () => {
    let s = reduce(initialGameState, { type: "view", view: gameView({ revision: 1, seed_commitment: "first" }) });
    s = reduce(s, { type: "view", view: gameView({ revision: 2, seed_commitment: "second" }) });
    expect(s.commitment).toBe("first");
  });

  const state = (v: GameView) => ({ type: "message" as const, message: { type: "state" as const, game: v } });

  it("unlocks the hand on a newer state or on an error, not on the same state again", () => {
    let s = reduce(initialGameState, state(gameView({ revision: 3 })));
    s = reduce(s, { type: "sent", revision: 3 });
    expect(s.pendingRevision).toBe(3);
    s = reduce(s, state(gameView({ revision: 3 })));
    expect(s.pendingRevision).toBe(3);
    s = reduce(s, state(gameView({ revision: 4 })));
    expect(s.pendingRevision).toBeNull();
    s = reduce(s, { type: "sent", revision: 4 });
    s = reduce(s, { type: "message", message: { type: "error", code: "concurrent_move", message: "Moved on" } });
    expect(s.pendingRevision).toBeNull();
    expect(s.error?.code).toBe("concurrent_move");
  });

  it("unlocks a hand whose move may be lost: after a reconnect or a REST read", () => {
    let s = reduce(initialGameState, state(gameView({ revision: 3 })));
    s = reduce(s, { type: "sent", revision: 3 });
    expect(reduce(s, { type: "connected" }).pendingRevision).toBeNull();
    expect(reduce(s, { type: "view", view: gameView({ revision: 3 }) }).pendingRevision).toBeNull();
  });

  it("records the winner of game_over", () => {
    const s = reduce(initialGameState, { type: "message", message: { type: "game_over", scores: { A: 11, B: 7 }, winner: "A" } });
    expect(s.gameOver).toEqual({ scores: { A: 11, B: 7 }, winner: "A" });
  });
});

describe("the hand's plays", () => {
  it("are folded from every state, so a hand's end is caught even when renders are batched", () => {
    const states = [
      view({ revision: 37, last_play: play(0, "05S"), table: ["02C", "05S"], turn: 1 }, [0, 1, 1, 1]),
      view({ revision: 38, last_play: play(1, "06B"), table: ["02C", "05S", "06B"], turn: 2 }, [0, 0, 1, 1]),
      view({ revision: 39, last_play: play(2, "07C", ["02C", "05S"]), table: ["06B"], turn: 3 }, [0, 0, 0, 1]),
      view({ revision: 40, status: "hand_end", turn: null, table: [], last_play: play(3, "09D") }, [0, 0, 0, 0]),
    ];
    states[3].players[2].captured_count = 5; // carol's capture, and the last two cards
    let s = initialGameState;
    for (const game of states) s = reduce(s, { type: "message", message: { type: "state", game } });
    expect(s.trail?.plays.map((p) => p.n)).toEqual([37, 38, 39, 40]);
    expect(s.ending?.sweep).toEqual({ cards: ["06B", "09D"], seat: 2 });
    expect(s.ending?.before.revision).toBe(39);
    expect(s.lastPlaying).toBeNull();
    // An acknowledgement's state later in the hand end keeps the same ending.
    const ending = s.ending;
    s = reduce(s, { type: "message", message: { type: "state", game: { ...states[3], revision: 41, acknowledged: [0] } } });
    expect(s.ending).toBe(ending);
  });
});

describe("practice and take-back", () => {
  it("remembers the revision a play was sent at, not an acknowledgement's", () => {
    let s = reduce(initialGameState, { type: "sent", revision: 8, play: true });
    expect(s.playedAt).toBe(8);
    s = reduce(s, { type: "sent", revision: 12 });
    expect(s.playedAt).toBe(8);
  });

  it("shows a refused takeback like any refused move", () => {
    const s = reduce(initialGameState, {
      type: "message", message: { type: "error", code: "illegal_move", message: "Nothing to take back" },
    });
    expect(s.error?.message).toBe("Nothing to take back");
  });
});

describe("presence", () => {
  it("follows a presence message without changing the game", () => {
    const view = table([{ connected: true }, { connected: true }, { connected: true }]);
    const before = reduce(initialGameState, { type: "message", message: { type: "state", game: view } });
    const after = reduce(before, { type: "message", message: { type: "presence", connected: [0, 2, 3] } });
    const game = after.view as GameView;
    expect(game.players.map((p) => p.connected)).toEqual([true, false, true, true]);
    expect(game.revision).toBe(view.revision);
    expect(game.hand).toEqual(view.hand);
  });

  it("leaves a waiting room alone", () => {
    const waiting = lobby([person(0, "alice", true)]);
    const before = reduce(initialGameState, { type: "view", view: waiting });
    expect(reduce(before, { type: "message", message: { type: "presence", connected: [] } })).toBe(before);
  });
});

describe("the new pages", () => {
  it("keep a rematch invitation from the socket", () => {
    const state = reduce(initialGameState, {
      type: "message",
      message: { type: "rematch", game_id: "n", join_code: "Q4WZ7N", by: "alice" },
    });
    expect(state.rematch).toEqual({ game_id: "n", join_code: "Q4WZ7N", by: "alice" });
  });
});

describe("refused moves", () => {
  const err = (code: string, message = "server words") => ({ code, message, serial: 1 });

  it("says what happened to the move for the codes of normal play", () => {
    expect(errorText(err("concurrent_move"))).toMatch(/^Too late: the table changed/);
    expect(errorText(err("concurrent_move"))).toMatch(/not played/);
    expect(errorText(err("not_your_turn"))).toMatch(/^Not your turn any more/);
    expect(errorText(err("unavailable"))).toMatch(/nothing was played/);
    expect(errorText(err("game_finished"))).toMatch(/game is over/);
    expect(errorText(err("rate_limited"))).toMatch(/^One moment, please: .* not played/);
  });

  it("asks for the current view after a refusal, but not after a rate limit", () => {
    const playing = { status: "playing" } as AnyView;
    const refused = (code: string) => ({ type: "error", code, message: "m" }) as ServerMessage;
    expect(asksForState(refused("concurrent_move"), playing)).toBe(true);
    expect(asksForState(refused("rate_limited"), playing)).toBe(false);
    expect(asksForState(refused("illegal_move"), { status: "lobby" } as AnyView)).toBe(false);
    expect(asksForState({ type: "presence", connected: [0] } as ServerMessage, playing)).toBe(false);
  });

  it("keeps the server's own words for the others", () => {
    expect(errorText(err("illegal_move", "The hand is over: acknowledge it to continue"))).toBe(
      "The hand is over: acknowledge it to continue",
    );
    expect(errorText(err("something_new", ""))).toBe("The server refused the move.");
  });
});

describe("a failed first read of a game", () => {
  it("gives up only on answers about the game itself", () => {
    expect(classifyLoadFailure(401, "Not authenticated")).toEqual({ kind: "unauthenticated" });
    expect(classifyLoadFailure(404, "Game not found")).toMatchObject({ kind: "fatal", message: expect.stringMatching(/^Game not found/) });
    expect(classifyLoadFailure(403, "Not seated at this game")).toMatchObject({ kind: "fatal", message: expect.stringMatching(/not seated/) });
    expect(classifyLoadFailure(400, "Bad id")).toEqual({ kind: "fatal", message: "Bad id" });
  });

  it("keeps trying while the server is unreachable or failing", () => {
    expect(classifyLoadFailure(null, "The server cannot be reached")).toEqual({ kind: "retry" });
    expect(classifyLoadFailure(502, "Bad gateway")).toEqual({ kind: "retry" });
    expect(classifyLoadFailure(503, "Service unavailable, try again")).toEqual({ kind: "retry" });
    expect(classifyLoadFailure(500, "oops")).toEqual({ kind: "retry" });
    expect(classifyLoadFailure(429, "Too many requests")).toEqual({ kind: "retry" });
  });
});
