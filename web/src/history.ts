// What the history screens work out from a match item: whose match it is, the teams, the outcome,
// whether it was rated, and which Elo change each row shows.

import type { MatchItem, MatchPlayer, Team } from "./types";

/** Someone's row of a match: by their player id when both carry one, else by name (items made
 * before player ids); a bot is never them. */
export function myRow(match: MatchItem, myName: string, myPlayer?: string | null): MatchPlayer | undefined {
  const rows = match.players.filter((p) => !p.bot);
  if (myPlayer) {
    const byId = rows.find((p) => p.player === myPlayer);
    if (byId || rows.some((p) => p.player)) return byId;
  }
  return rows.find((p) => p.name === myName);
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

/** A practice match: a bot sat at the table from the start, so it was not rated. */
export function isPractice(match: MatchItem): boolean {
  return match.rated === false && match.players.some((p) => Boolean(p.bot));
}

/** How the list and the match page label a match that changed no rating, or "" for a rated one. */
export type Unrated = "practice" | "unrated" | "";

export function unratedKind(match: MatchItem): Unrated {
  if (match.rated !== false) return "";
  return isPractice(match) ? "practice" : "unrated";
}

/**
 * The Elo change a row shows, or null for none: a bot has no rating, and an unrated match changed
 * nobody's, except that a player who abandoned it lost what a lost match costs (CONTRACT, Bots).
 */
export function eloChange(match: MatchItem, player: MatchPlayer): number | null {
  if (player.bot || typeof player.elo_delta !== "number") return null;
  if (match.rated === false && !player.abandoned) return null;
  return player.elo_delta;
}
