// What the table says: where each seat sits, whose turn it is, the last play, why the match goes
// on after a hand, and the waiting room's invitation.
import { afterEach, describe, expect, it } from "vitest";
import {
  dealerOf,
  firstHandHint,
  inviteText,
  lastPlayText,
  leaderOf,
  matchGoesOnText,
  seatRoleText,
  seatsAround,
  turnText,
} from "../src/describe";
import { setLang } from "../src/i18n";
import type { GameView, LastHand } from "../src/types";
import { gameView } from "./fixtures";

function view(extra: Partial<GameView> = {}): GameView {
  return {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "hand_end",
    options: { target_score: 11, napola: true, asso_pigliatutto: false },
    players: [0, 1, 2, 3].map((seat) => ({
      seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
      card_count: 0, captured_count: 0, scope: 0, is_you: seat === 1, connected: true,
    })),
    you: 1, hand: [], table: [], turn: null, hand_number: 1, dealer: null, scores: { A: 0, B: 0 }, last_play: null,
    seed_commitment: "c1", revision: 40, ...extra,
  };
}

function lastHand(scores: { A: number; B: number }): LastHand {
  const team = { cards: 20, denari: 5, settebello: false, primiera: 70, scope: 0, napola: 0, points: 0 };
  return { hand: 1, teams: { A: team, B: team }, award: {}, scores };
}

describe("what the table says", () => {
  it("seats the next player on your right and your partner across", () => {
    expect(seatsAround(2)).toEqual({ bottom: 2, right: 3, top: 0, left: 1 });
    expect(seatsAround(0)).toEqual({ bottom: 0, right: 1, top: 2, left: 3 });
  });

  it("tells whose turn it is", () => {
    expect(turnText(gameView())).toBe("bob's turn");
    expect(turnText(gameView({ turn: 2, your_turn: true }))).toBe("Your turn");
    expect(turnText(gameView({ status: "hand_end", turn: null }))).toBe("");
    setLang("it", null);
    expect(turnText(gameView())).toBe("Tocca a bob");
    expect(turnText(gameView({ turn: 0 }))).toBe("Tocca ad alice");
  });

  it("describes the last play, its scopa and an auto-play", () => {
    const v = gameView();
    expect(lastPlayText(v, { seat: 1, card: "05S", capture: [], scopa: false, auto: false })).toBe(
      "bob played 5 of spade on the table.",
    );
    expect(lastPlayText(v, { seat: 2, card: "07D", capture: ["03S", "04B"], scopa: true, auto: false })).toBe(
      "You played 7 of denari (settebello) and took 3 of spade, 4 of bastoni. Scopa!",
    );
    expect(lastPlayText(v, { seat: 3, card: "01C", capture: [], scopa: false, auto: true })).toMatch(/dave's time ran out: 1 of coppe was auto-played/);
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

  it("says it in Italian, with \"ad\" before a vowel", () => {
    setLang("it", null);
    expect(inviteText(2)).toMatch(/^Manda il codice o il link ad altri due amici\./);
    expect(inviteText(1)).toMatch(/^Manda il codice o il link a un altro amico\./);
    expect(inviteText(3)).toMatch(/^Manda il codice o il link a tre amici\./);
  });

  it("at a table open to anyone (quick match seats strangers there) asks for no friends", () => {
    expect(inviteText(2, true)).toBe(
      "This table is open to anyone: a player can take one of the 2 open seats from the Play page, and the table opens by itself as soon as the fourth player sits down. You can also send the code or the link to a friend.",
    );
    expect(inviteText(1, true)).toMatch(/can take the open seat from the Play page/);
    expect(inviteText(2, true)).not.toMatch(/friends/);
    setLang("it", null);
    expect(inviteText(2, true)).toMatch(/^Questo tavolo è aperto a tutti: chiunque può prendere uno dei 2 posti liberi dalla pagina Gioca/);
  });
});

describe("who deals and who leads", () => {
  it("reads the view's dealer; the seat after it leads", () => {
    const v = gameView({ dealer: 1, options: { first_dealer: "drawn" } });
    expect([dealerOf(v), leaderOf(v)]).toEqual([1, 2]);
    expect([0, 1, 2, 3].map((seat) => seatRoleText(v, seat))).toEqual(["", "dealer", "leads", ""]);
    expect(leaderOf(gameView({ dealer: 3 }))).toBe(0);
    setLang("it", null);
    expect([0, 1, 2, 3].map((seat) => seatRoleText(v, seat))).toEqual(["", "mazziere", "di mano", ""]);
  });

  it("follows the old rule for a game made before the first dealer was drawn, and knows none otherwise", () => {
    // Hand 1 led by seat 0 (dealt by seat 3), each next hand by the next seat.
    expect([1, 2, 3, 4, 5].map((hand) => leaderOf(gameView({ hand_number: hand, options: {} })))).toEqual([0, 1, 2, 3, 0]);
    expect(dealerOf(gameView({ hand_number: 1, options: {} }))).toBe(3);
    expect(dealerOf(gameView({ options: { first_dealer: "drawn" } }))).toBeNull();
    expect(seatRoleText(gameView({ options: { first_dealer: "drawn" } }), 0)).toBe("");
  });
});

describe("a newcomer's tip", () => {
  it("is one sentence about the scopa, in both languages", () => {
    expect(firstHandHint()).toMatch(/^Tip: .*scopa\.$/);
    setLang("it", null);
    expect(firstHandHint()).toMatch(/^Consiglio: .*scopa\.$/);
  });
});

afterEach(() => setLang("en", null));
