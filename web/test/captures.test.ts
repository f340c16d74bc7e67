import { describe, expect, it } from "vitest";
import { candidateCards, captureLabel, intentFor, narrow, pickTableCard, playableCards, playMessage } from "../src/captures";
import type { GameView } from "../src/types";

function view(extra: Partial<GameView>): GameView {
  return {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "playing", options: {},
    players: [], you: 0, hand: ["02C", "07D", "09B"], table: ["03S", "04B", "07C"], turn: 0, hand_number: 1, dealer: null,
    scores: { A: 0, B: 0 }, last_play: null, seed_commitment: "x", revision: 7, ...extra,
  };
}

const LEGAL = [
  { card: "02C", captures: [[]] },
  { card: "07D", captures: [["07C"], ["03S", "04B"]] },
  { card: "09B", captures: [["03S", "04B", "02D"].sort()] },
];

describe("choosing among captures", () => {
  const mine = view({ your_turn: true, legal: LEGAL });

  it("plays a card with one capture at once, with the view's revision", () => {
    expect(intentFor(mine, "09B")).toEqual({
      kind: "play",
      message: { action: "play", card: "09B", capture: ["02D", "03S", "04B"], revision: 7 },
    });
  });

  it("sends no capture for a card laid on the table ([[]])", () => {
    const intent = intentFor(mine, "02C");
    expect(intent.kind).toBe("play");
    expect(intent.kind === "play" && "capture" in intent.message).toBe(false);
  });

  it("asks the player to choose when a card has several captures", () => {
    expect(intentFor(mine, "07D")).toEqual({ kind: "choose", card: "07D", captures: [["07C"], ["03S", "04B"]] });
  });

  it("offers nothing when it is not your turn, even with a legal list", () => {
    const theirs = view({ legal: LEGAL });
    expect(intentFor(theirs, "02C")).toEqual({ kind: "none" });
    expect(playableCards(theirs).size).toBe(0);
  });

  it("offers only cards of the legal list", () => {
    const partial = view({ your_turn: true, legal: [LEGAL[1]] });
    expect([...playableCards(partial)]).toEqual(["07D"]);
    expect(intentFor(partial, "02C")).toEqual({ kind: "none" });
  });

  it("offers nothing outside the playing phase", () => {
    expect(playableCards(view({ status: "hand_end", your_turn: true, legal: LEGAL })).size).toBe(0);
  });

  it("names each capture for its button", () => {
    expect(captureLabel(["03S", "04B"])).toBe("Take 3 of spade, 4 of bastoni");
    expect(captureLabel(["07C"])).toBe("Take 7 of coppe");
    expect(captureLabel(["08D"])).toBe("Take 8 of denari (fante)");
  });

  it("highlights every table card some capture takes", () => {
    expect([...candidateCards([["07C"], ["03S", "04B"]])].sort()).toEqual(["03S", "04B", "07C"]);
  });

  it("builds play messages", () => {
    expect(playMessage("07D", ["07C"], 3)).toEqual({ action: "play", card: "07D", capture: ["07C"], revision: 3 });
    expect(playMessage("02C", [], 3)).toEqual({ action: "play", card: "02C", revision: 3 });
  });
});

describe("picking a capture on the table", () => {
  const captures = [["07C"], ["03S", "04B"], ["03S", "04C"]];

  it("chooses at once when one table card singles out a capture", () => {
    expect(pickTableCard(captures, [], "07C")).toEqual({ picked: ["07C"], chosen: ["07C"] });
    expect(pickTableCard(captures, [], "04B")).toEqual({ picked: ["04B"], chosen: ["03S", "04B"] });
  });

  it("waits while the picked cards fit several captures", () => {
    expect(pickTableCard(captures, [], "03S")).toEqual({ picked: ["03S"], chosen: null });
    expect(pickTableCard(captures, ["03S"], "04C")).toEqual({ picked: ["03S", "04C"], chosen: ["03S", "04C"] });
  });

  it("starts over from a card that fits none of the picked ones, and ignores cards of no capture", () => {
    expect(pickTableCard(captures, ["03S"], "07C")).toEqual({ picked: ["07C"], chosen: ["07C"] });
    expect(pickTableCard(captures, ["03S"], "09D")).toEqual({ picked: ["03S"], chosen: null });
  });

  it("unpicks a card picked twice", () => {
    expect(pickTableCard(captures, ["03S"], "03S")).toEqual({ picked: [], chosen: null });
    expect(narrow(captures, [])).toHaveLength(3);
  });
});
