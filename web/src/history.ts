// What the history screens work out from a match item: whose match it is, the teams, the outcome.

import type { MatchItem, MatchPlayer, Team } from "./types";

/** The caller's own row of a match (the contract's items carry names, not ids). */
export function myRow(match: MatchItem, myName: string): MatchPlayer | undefined {
  return match.players.find((p) => p.name === myName);
}

export function teamPlayers(match: MatchItem, team: Team): MatchPlayer[] {
  return match.players.filter((p) => p.team === team).sort((a, b) => a.seat - b.seat);
}

/** The final score: the result's, else the points the seats carry (one per team). */
export function finalScores(match: MatchItem): Record<Team, number> {
  if (match.result?.scores) return match.result.scores;
  const of = (team: Team) => match.players.find((p) => p.team === team)?.points ?? 0;
  return { A: of("A"), B: of("B") };
}

export function winnerOf(match: MatchItem): Team | undefined {
  return match.result?.winner ?? match.players.find((p) => p.won)?.team;
}
