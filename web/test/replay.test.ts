// A hand played again from the move log, and the tally of its piles by suit and primiera.
import { describe, expect, it } from "vitest";
import {
  countBySuit,
  handsAfter,
  handsOfLog,
  lastHandPiles,
  playHand,
  primieraBySuit,
  primieraTotal,
  teamPiles,
  type HandPlay,
} from "../src/replay";
import type { GameLog } from "../src/types";

function log(plays: HandPlay[], options = { asso_pigliatutto: false }): GameLog {
  return {
    id: "g", game_type: "scopone_scientifico", options, seats: [], seed_commitment: null, revision: 0,
    moves: plays.map((p) => ({ number: p.number, type: p.auto ? "auto_play" : "play", seat: `seat:${p.seat}`,
      payload: { card: p.card, capture: p.capture }, auto: p.auto })),
  };
}

describe("a hand played again from the log", () => {
  const p = (number: number, seat: number, card: string, capture: string[] = []): HandPlay =>
    ({ number, seat, card, capture, auto: false });

  it("lays, takes, counts a scopa, and an ace sweeps under asso pigliatutto (no scopa)", () => {
    const plays = [p(1, 0, "03C"), p(2, 1, "03S", ["03C"]), p(3, 2, "05D"), p(4, 3, "01B")];
    expect(playHand(plays, 2, false)).toMatchObject({ table: [], piles: [[], ["03S", "03C"], [], []], scope: [0, 1, 0, 0], lastCapturer: 1 });
    expect(playHand(plays, 4, false).table).toEqual(["01B", "05D"]);
    const swept = playHand(plays, 4, true);
    expect(swept).toMatchObject({ table: [], piles: [[], ["03S", "03C"], [], ["01B", "05D"]], scope: [0, 1, 0, 0] });
  });

  it("cuts the log into hands of 40 and gives the last cards to the last capture", () => {
    const deck = ["D", "C", "S", "B"].flatMap((s) => Array.from({ length: 10 }, (_, i) => `${String(i + 1).padStart(2, "0")}${s}`));
    // 39 cards laid (no rank repeats within the first ten... so lay them as they come), then one capture.
    const plays: HandPlay[] = deck.slice(0, 39).map((card, i) => p(i + 1, i % 4, card));
    const table = playHand(plays, 39, false).table;
    expect(table).toHaveLength(39);
    plays.push(p(40, 3, "10B", ["10D"]));
    const hands = handsOfLog(log([...plays, p(41, 0, "01C")]));
    expect(hands.map((h) => h.length)).toEqual([40, 1]);
    const end = playHand(hands[0], 40, false);
    expect(end.table).toEqual([]);
    expect(end.sweep).toHaveLength(38);
    expect(teamPiles(end).B).toHaveLength(40);
    expect(lastHandPiles(log(plays))?.B).toHaveLength(40);
    expect(lastHandPiles(log(plays.slice(0, 10)))).toBeNull();
  });

  it("tells what each seat still holds", () => {
    const hand = { number: 1, dealt: [["01D", "02D"], ["03D"], [], []], plays: [p(1, 0, "02D")] };
    expect(handsAfter(hand, 0)).toEqual([["01D", "02D"], ["03D"], [], []]);
    expect(handsAfter(hand, 1)).toEqual([["01D"], ["03D"], [], []]);
  });
});

describe("the tally of a hand", () => {
  it("counts suits and the primiera card by card", () => {
    const pile = ["07D", "06D", "01C", "05S", "08B", "02B"];
    expect(countBySuit(pile)).toEqual({ D: 2, C: 1, S: 1, B: 2 });
    expect(primieraBySuit(pile)).toEqual({
      D: { card: "07D", value: 21 }, C: { card: "01C", value: 16 }, S: { card: "05S", value: 15 }, B: { card: "02B", value: 12 },
    });
    expect(primieraTotal(pile)).toBe(64);
    expect(primieraTotal(["07D", "07C", "07S"])).toBe(0); // no bastoni
  });
});
