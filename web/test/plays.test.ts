// The hand's plays kept from successive states, what a capture took, where the last cards of a
// hand went.
import { describe, expect, it } from "vitest";
import { extendTrail, finalSweep, playsDown, takenBy } from "../src/plays";
import { play, view } from "./fixtures";

describe("the hand's plays", () => {
  it("numbers each play by the cards down and keeps them in order", () => {
    let trail = extendTrail(null, view());
    expect(trail.plays).toEqual([]);
    trail = extendTrail(trail, view({ last_play: play(0, "05S"), revision: 2 }, [9, 10, 10, 10]));
    trail = extendTrail(trail, view({ last_play: play(1, "05C", ["05S"]), revision: 3 }, [9, 9, 10, 10]));
    trail = extendTrail(trail, view({ last_play: play(2, "07D"), revision: 4 }, [9, 9, 9, 10]));
    expect(trail.plays.map((p) => [p.n, p.card])).toEqual([[1, "05S"], [2, "05C"], [3, "07D"]]);
    expect(playsDown(view({ last_play: play(2, "07D") }, [9, 9, 9, 10]))).toBe(3);
  });

  it("goes back on a take-back and starts afresh with a new hand", () => {
    let trail = extendTrail(null, view({ last_play: play(0, "05S") }, [9, 10, 10, 10]));
    trail = extendTrail(trail, view({ last_play: play(1, "06C") }, [9, 9, 10, 10]));
    trail = extendTrail(trail, view({ last_play: play(0, "05S") }, [9, 10, 10, 10])); // bob took his card back
    expect(trail.plays.map((p) => p.card)).toEqual(["05S"]);
    trail = extendTrail(trail, view({ hand_number: 2, last_play: null }));
    expect(trail).toEqual({ hand: 2, plays: [] });
  });

  it("keeps the same trail when a view repeats the same play", () => {
    const trail = extendTrail(null, view({ last_play: play(0, "05S") }, [9, 10, 10, 10]));
    expect(extendTrail(trail, view({ last_play: play(0, "05S"), revision: 9 }, [9, 10, 10, 10]))).toBe(trail);
  });

  it("knows what a play took, an ace sweeping an empty table included", () => {
    expect(takenBy(play(1, "05C", ["02S", "03D"]), ["07B"])).toEqual(["02S", "03D", "05C"]);
    expect(takenBy(play(1, "05C"), ["05C", "07B"])).toEqual([]);
    expect(takenBy(play(1, "01C"), [])).toEqual(["01C"]);
    expect(takenBy(null, [])).toEqual([]);
  });

  it("sends the last cards of a hand to the last capture", () => {
    const before = view({ table: ["02C", "04S", "06B"], turn: 3 }, [0, 0, 0, 1]);
    before.players[1].captured_count = 10;
    const after = view({ status: "hand_end", turn: null, table: [], last_play: play(3, "04B", ["04S"]) }, [0, 0, 0, 0]);
    after.players[1].captured_count = 12; // bob took 02C and 06B
    after.players[3].captured_count = 2; // dave's own capture
    expect(finalSweep(before, after)).toEqual({ cards: ["02C", "06B"], seat: 1 });
    const laid = view({ status: "hand_end", turn: null, table: [], last_play: play(3, "09D") }, [0, 0, 0, 0]);
    laid.players[1].captured_count = 14;
    expect(finalSweep(before, laid)).toEqual({ cards: ["02C", "04S", "06B", "09D"], seat: 1 });
    expect(finalSweep(view({}, [0, 0, 1, 1]), after)).toBeNull(); // a state was missed
  });
});
