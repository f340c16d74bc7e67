// The game screen holds the table as it was after the last play of a hand, before its summary.
import { describe, expect, it } from "vitest";
import { playsDown } from "../../src/plays";
import { closingView } from "../../src/screens/Game";
import { play, view } from "../fixtures";

describe("the hand's plays", () => {
  it("holds the table as it was right after the last play", () => {
    const before = view({ hand: [], table: ["02C", "04S"], turn: 3, turn_deadline: "x", your_turn: undefined }, [0, 0, 0, 1]);
    const after = view({ status: "hand_end", turn: null, revision: 40, last_play: play(3, "04B", ["04S"]) }, [0, 0, 0, 0]);
    const held = closingView({ before, after, sweep: { cards: ["02C"], seat: 3 } });
    expect(held).toMatchObject({ status: "playing", table: ["02C"], turn: null, revision: 40, last_play: after.last_play });
    expect(held.turn_deadline).toBeUndefined();
    expect(playsDown(held)).toBe(40);
  });
});
