// What the screens say about errors, the match and the waiting room, and how a failed first
// read of a game is handled.
import { describe, expect, it } from "vitest";
import { inviteText, matchGoesOnText } from "../src/describe";
import { classifyLoadFailure, errorText } from "../src/gamestate";
import type { GameView, LastHand } from "../src/types";

function view(extra: Partial<GameView> = {}): GameView {
  return {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "hand_end",
    options: { target_score: 11, napola: true, asso_pigliatutto: false },
    players: [0, 1, 2, 3].map((seat) => ({
      seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
      card_count: 0, captured_count: 0, scope: 0, is_you: seat === 1, connected: true,
    })),
    you: 1, hand: [], table: [], turn: null, hand_number: 1, scores: { A: 0, B: 0 }, last_play: null,
    seed_commitment: "c1", revision: 40, ...extra,
  };
}

function lastHand(scores: { A: number; B: number }): LastHand {
  const team = { cards: 20, denari: 5, settebello: false, primiera: 70, scope: 0, napola: 0, points: 0 };
  return { hand: 1, teams: { A: team, B: team }, award: {}, scores };
}

describe("refused moves", () => {
  const err = (code: string, message = "server words") => ({ code, message, serial: 1 });

  it("says what happened to the move for the codes of normal play", () => {
    expect(errorText(err("concurrent_move"))).toMatch(/^Too late: the table changed/);
    expect(errorText(err("concurrent_move"))).toMatch(/not played/);
    expect(errorText(err("not_your_turn"))).toMatch(/^Not your turn any more/);
    expect(errorText(err("unavailable"))).toMatch(/nothing was played/);
    expect(errorText(err("game_finished"))).toMatch(/game is over/);
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

describe("why the match goes on after a hand", () => {
  it("counts what each team still needs, yours first", () => {
    expect(matchGoesOnText(view({ last_hand: lastHand({ A: 4, B: 7 }) }))).toBe(
      "The match goes on to 11 points: your team needs 4 more, team A needs 7 more.",
    );
    expect(matchGoesOnText(view({ you: 0, last_hand: lastHand({ A: 4, B: 7 }) }))).toBe(
      "The match goes on to 11 points: your team needs 7 more, team B needs 4 more.",
    );
  });

  it("explains a tie at or past the target", () => {
    const v = view({ options: { target_score: 2 }, last_hand: lastHand({ A: 6, B: 6 }) });
    expect(matchGoesOnText(v)).toMatch(/Both teams have 6, and the target is 2: .*clear lead.*another hand/);
  });

  it("says nothing without a target", () => {
    expect(matchGoesOnText(view({ options: {} }))).toBe("");
  });
});

describe("the waiting room's invitation", () => {
  it("asks for as many friends as there are open seats", () => {
    expect(inviteText(3)).toMatch(/^Send the code or the link to three friends\./);
    expect(inviteText(2)).toMatch(/to two more friends\./);
    expect(inviteText(1)).toMatch(/to one more friend\./);
    expect(inviteText(0)).toBe("Every seat is taken: the table is opening.");
  });
});
