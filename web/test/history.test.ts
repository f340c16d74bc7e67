// The history's match items: the caller's row, the teams, the score and the winner, and how
// practice matches, bots and abandonments are marked.
import { describe, expect, it } from "vitest";
import { eloChange, finalScores, isPractice, myRow, teamPlayers, unratedKind, winnerOf } from "../src/history";
import type { MatchItem, MatchPlayer } from "../src/types";

describe("the new pages", () => {
  it("read a match item: the caller's row, the teams, the score and the winner", () => {
    const match: MatchItem = {
      id: "m", game_type: "scopone_scientifico", started_at: "", finished_at: "", rated: true,
      result: { scores: { A: 11, B: 7 }, winner: "A", audit: [] },
      players: [
        { seat: 1, name: "bob", team: "B", won: false, points: 7, elo_delta: -16 },
        { seat: 0, name: "alice", team: "A", won: true, points: 11, elo_delta: 16 },
        { seat: 3, name: "dave", team: "B", won: false, points: 7, elo_delta: -16 },
        { seat: 2, name: "carol", team: "A", won: true, points: 11, elo_delta: 16 },
      ],
    };
    expect(myRow(match, "dave")?.elo_delta).toBe(-16);
    expect(teamPlayers(match, "A").map((p) => p.name)).toEqual(["alice", "carol"]);
    expect(finalScores(match)).toEqual({ A: 11, B: 7 });
    expect(winnerOf(match)).toBe("A");
    expect(finalScores({ ...match, result: {} })).toEqual({ A: 11, B: 7 });
    expect(winnerOf({ ...match, result: {} })).toBe("A");
  });
});

describe("the history of matches with bots", () => {
  const row = (seat: number, extra: Partial<MatchPlayer> = {}): MatchPlayer => ({
    seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
    won: seat % 2 === 0, points: seat % 2 === 0 ? 11 : 7, elo_delta: seat % 2 === 0 ? 16 : -16, ...extra,
  });
  const match = (rated: boolean, players: MatchPlayer[]): MatchItem => ({
    id: "m", game_type: "scopone_scientifico", started_at: "", finished_at: "", rated,
    result: { scores: { A: 11, B: 7 }, winner: "A" }, players,
  });
  const practice = match(false, [
    row(0, { elo_delta: 0 }),
    row(1, { name: "Bot 2", bot: "esperto", elo_delta: undefined }),
    row(2, { name: "Bot 3", bot: "maestro", elo_delta: null }),
    row(3, { name: "Bot 4", bot: "principiante", elo_delta: undefined }),
  ]);

  it("marks a practice match, and shows no Elo change in it", () => {
    expect(isPractice(practice)).toBe(true);
    expect(unratedKind(practice)).toBe("practice");
    expect(practice.players.map((p) => eloChange(practice, p))).toEqual([null, null, null, null]);
  });

  it("marks a match someone abandoned as unrated; only the one who left loses", () => {
    const left = match(false, [row(0, { elo_delta: 0 }), row(1, { abandoned: true, elo_delta: -16 }), row(2, { elo_delta: 0 }), row(3, { elo_delta: 0 })]);
    expect(isPractice(left)).toBe(false);
    expect(unratedKind(left)).toBe("unrated");
    expect(left.players.map((p) => eloChange(left, p))).toEqual([null, -16, null, null]);
  });

  it("shows every change of a rated match", () => {
    const rated = match(true, [row(0), row(1), row(2), row(3)]);
    expect(unratedKind(rated)).toBe("");
    expect(rated.players.map((p) => eloChange(rated, p))).toEqual([16, -16, 16, -16]);
  });

  it("never takes a bot's row for yours", () => {
    const named = match(false, [row(0, { name: "esperto" }), row(1, { name: "esperto", bot: "esperto" }), row(2), row(3)]);
    expect(myRow(named, "esperto")?.seat).toBe(0);
    expect(myRow(practice, "Bot 2")).toBeUndefined();
  });
});
