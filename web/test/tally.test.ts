// The tally of a hand is shown only when the replayed piles agree with the server's scoring.
import { describe, expect, it } from "vitest";
import { pilesMatch } from "../src/tally";
import type { LastHand } from "../src/types";

describe("the tally of a hand", () => {
  it("is shown only when it agrees with the server's scoring", () => {
    const piles = { A: ["07D", "01C", "05S", "02B"], B: ["03D"] };
    const team = { settebello: false, scope: 0, napola: 0, points: 0 };
    const hand: LastHand = {
      hand: 1, award: {}, scores: { A: 0, B: 0 },
      teams: { A: { ...team, cards: 4, denari: 1, primiera: 64 }, B: { ...team, cards: 1, denari: 1, primiera: 0 } },
    };
    expect(pilesMatch(piles, hand)).toBe(true);
    expect(pilesMatch({ A: piles.A, B: [] }, hand)).toBe(false);
  });
});
