// The analysis as the app reads it: the states of the server's answers, the wait between reads,
// each verdict's mark, and where "Next mistake" goes in the replay.
import { afterEach, describe, expect, it } from "vitest";
import {
  countsText, isMistake, lossText, markOf, mistakeSpots, nextMistake, playsOfHand, pollDelay, previousMistake,
  samePlay, spotOf, stateOfAnswer, stateOfAskError, stateOfReadError, verdictMark, VERDICTS,
} from "../src/analysis";
import { ApiError } from "../src/api";
import { setLang } from "../src/i18n";
import type { ReplayHand } from "../src/replay";
import type { Analysis, AnalysedPlay, Verdict } from "../src/types";

afterEach(() => setLang("en", null));

/** Two hands of 40 plays, moves numbered as a log does (an ack between the hands counts). */
function hands(): ReplayHand[] {
  const hand = (h: number, first: number): ReplayHand => ({
    number: h,
    dealt: [[], [], [], []],
    plays: Array.from({ length: 40 }, (_, i) => ({ number: first + i, seat: i % 4, card: "01D", capture: [], auto: false })),
  });
  return [hand(1, 1), hand(2, 45)];
}

function play(number: number, verdict: Verdict | null, auto = false): AnalysedPlay {
  return auto
    ? { number, hand: 1, played: { card: "02C", capture: [] }, auto: true }
    : { number, hand: 1, played: { card: "05S", capture: [] }, best: { card: "07D", capture: ["03S", "04B"] }, loss: 0.42, verdict: verdict ?? "best", auto: false };
}

function done(plays: AnalysedPlay[]): Analysis {
  return { status: "done", seat: 0, plays, summary: { accuracy: 87, inaccuracies: 1, mistakes: 1, blunders: 1 } };
}

describe("the states of the answers", () => {
  it("reads queued and running as waiting, done with its plays as done", () => {
    expect(stateOfAnswer({ status: "queued", seat: 2 })).toEqual({ kind: "waiting", status: "queued" });
    expect(stateOfAnswer({ status: "running", seat: 2 })).toEqual({ kind: "waiting", status: "running" });
    const answer = done([play(1, "best")]);
    expect(stateOfAnswer(answer)).toEqual({ kind: "done", analysis: answer });
  });

  it("waits again on a done without its plays rather than show nothing", () => {
    expect(stateOfAnswer({ status: "done", seat: 0 })).toEqual({ kind: "waiting", status: "running" });
  });

  it("reads 404 No analysis as never asked, other 4xx as final, the rest as worth reading again", () => {
    expect(stateOfReadError(new ApiError(404, "No analysis"))).toEqual({ kind: "none" });
    expect(stateOfReadError(new ApiError(404, "Game not found"))).toEqual({ kind: "failed", error: "Game not found" });
    expect(stateOfReadError(new ApiError(403, "Not seated at this game"))).toEqual({ kind: "failed", error: "Not seated at this game" });
    expect(stateOfReadError(new ApiError(0, "The server cannot be reached."))).toBeNull();
    expect(stateOfReadError(new ApiError(503, "Service unavailable"))).toBeNull();
    expect(stateOfReadError(new ApiError(429, "Too many requests", 3))).toBeNull();
  });

  it("shows a refused request in the contract's words", () => {
    expect(stateOfAskError(new ApiError(409, "Game is not finished"))).toEqual({ kind: "refused", error: "Game is not finished" });
    expect(stateOfAskError(new ApiError(403, "Not seated at this game"))).toEqual({ kind: "refused", error: "Not seated at this game" });
    const limited = stateOfAskError(new ApiError(429, "Too many analyses", 40));
    expect(limited).toEqual({ kind: "refused", error: expect.stringContaining("wait 40 seconds") });
  });
});

describe("the wait between reads", () => {
  it("starts at a second and grows by half each time, never past 8 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(pollDelay)).toEqual([1000, 1500, 2250, 3375, 5063, 7594, 8000, 8000]);
  });
});

describe("the verdicts' marks", () => {
  it("gives each verdict its own symbol, word and colour, lichess's symbols for the mistakes", () => {
    const marks = VERDICTS.map(verdictMark);
    expect(marks.map((m) => m.symbol)).toEqual(["★", "✓", "?!", "?", "??"]);
    expect(marks.map((m) => m.word)).toEqual(["Best play", "Good play", "Inaccuracy", "Mistake", "Blunder"]);
    expect(new Set(marks.map((m) => m.className)).size).toBe(5);
  });

  it("says the words in Italian too", () => {
    setLang("it", null);
    expect(VERDICTS.map((v) => verdictMark(v).word)).toEqual(["La giocata migliore", "Buona giocata", "Imprecisione", "Errore", "Errore grave"]);
  });

  it("marks an auto-play as such, whatever else it carries, and counts only the three kinds of mistake", () => {
    expect(markOf(play(3, null, true))?.word).toBe("Auto-played, not judged");
    expect(markOf({ ...play(3, "blunder"), auto: true })?.className).toBe("verdict-auto");
    expect(VERDICTS.filter(isMistake)).toEqual(["inaccuracy", "mistake", "blunder"]);
    expect(isMistake(undefined)).toBe(false);
  });

  it("writes the points lost and the counts as people read them", () => {
    expect(lossText(0.42)).toBe("0.42 points");
    expect(lossText(1)).toBe("1.00 point");
    expect(lossText(0.001)).toBe("0 points");
    expect(countsText({ accuracy: 90, inaccuracies: 3, mistakes: 1, blunders: 0 })).toBe("3 inaccuracies, 1 mistake, no blunders");
    setLang("it", null);
    expect(lossText(0.42)).toBe("0,42 punti");
    expect(countsText({ accuracy: 90, inaccuracies: 0, mistakes: 2, blunders: 1 })).toBe("nessuna imprecisione, 2 errori, 1 errore grave");
  });

  it("knows the same play whatever the order of its capture", () => {
    expect(samePlay({ card: "07D", capture: ["04B", "03S"] }, { card: "07D", capture: ["03S", "04B"] })).toBe(true);
    expect(samePlay({ card: "07D", capture: [] }, { card: "07D", capture: ["07C"] })).toBe(false);
  });
});

describe("the plays in the replay", () => {
  it("places a play right after it is made, in its hand", () => {
    expect(spotOf(hands(), 1)).toEqual({ h: 0, k: 1 });
    expect(spotOf(hands(), 40)).toEqual({ h: 0, k: 40 });
    expect(spotOf(hands(), 45)).toEqual({ h: 1, k: 1 });
    expect(spotOf(hands(), 41)).toBeNull(); // the ack between the hands is no play
  });

  it("steps from mistake to mistake in replay order, across hands, skipping good plays and auto-plays", () => {
    const analysis = done([play(50, "blunder"), play(5, "inaccuracy"), play(9, "best"), play(13, "good"), play(17, "mistake"), play(21, null, true)]);
    const spots = mistakeSpots(hands(), analysis);
    expect(spots).toEqual([{ h: 0, k: 5 }, { h: 0, k: 17 }, { h: 1, k: 6 }]);
    expect(nextMistake(spots, { h: 0, k: 0 })).toEqual({ h: 0, k: 5 });
    expect(nextMistake(spots, { h: 0, k: 5 })).toEqual({ h: 0, k: 17 });
    expect(nextMistake(spots, { h: 0, k: 30 })).toEqual({ h: 1, k: 6 });
    expect(nextMistake(spots, { h: 1, k: 6 })).toBeNull();
    expect(previousMistake(spots, { h: 1, k: 6 })).toEqual({ h: 0, k: 17 });
    expect(previousMistake(spots, { h: 1, k: 0 })).toEqual({ h: 0, k: 17 });
    expect(previousMistake(spots, { h: 0, k: 5 })).toBeNull();
  });

  it("has nowhere to go without mistakes or without an analysis", () => {
    expect(mistakeSpots(hands(), done([play(1, "best"), play(5, "good")]))).toEqual([]);
    expect(mistakeSpots(hands(), null)).toEqual([]);
    expect(nextMistake([], { h: 0, k: 0 })).toBeNull();
  });

  it("lists a hand's analysed plays with their places", () => {
    const analysis = done([play(1, "best"), play(5, "mistake"), play(45, "good")]);
    expect(playsOfHand(hands(), 0, analysis).map((e) => [e.play.number, e.k])).toEqual([[1, 1], [5, 5]]);
    expect(playsOfHand(hands(), 1, analysis).map((e) => [e.play.number, e.k])).toEqual([[45, 1]]);
    expect(playsOfHand(hands(), 2, analysis)).toEqual([]);
  });
});
