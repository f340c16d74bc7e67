// The live games anyone may watch (GET /api/games/live), as the Watch page and the start page list
// them: the two teams in words, the score, the hand, and how many watch.

import { displayName } from "./bots";
import { tx } from "./i18n";
import type { LiveGame } from "./types";

/** How often a list of live tables is read again while the page is visible (nothing pushes it). */
export const LIVE_REFRESH_MS = 15_000;

/** "alice & carol": the names of a team's seats, in seat order (a bot by its name). */
export function teamNames(game: Pick<LiveGame, "players">, team: "A" | "B"): string {
  return game.players
    .filter((p) => p.team === team)
    .sort((a, b) => a.seat - b.seat)
    .map((p) => displayName(p) || tx(`Seat ${p.seat + 1}`, `Posto ${p.seat + 1}`))
    .join(" & ");
}

/** "Hand 3 · 4–1", or the shuffle before the first hand. */
export function liveProgress(game: Pick<LiveGame, "status" | "hand_number" | "scores">): string {
  if (game.status === "seeding" || game.hand_number === null || game.hand_number === undefined) {
    return tx("Shuffling together", "Mescolano insieme");
  }
  const where = game.status === "hand_end"
    ? tx(`end of hand ${game.hand_number}`, `fine della mano ${game.hand_number}`)
    : tx(`hand ${game.hand_number}`, `mano ${game.hand_number}`);
  return `${game.scores.A}–${game.scores.B} · ${where}`;
}

/** The accessible name of a table's Watch link: who plays, so a list of links reads apart. */
export function watchLinkLabel(game: Pick<LiveGame, "players">): string {
  return tx(
    `Watch ${teamNames(game, "A")} against ${teamNames(game, "B")}`,
    `Guarda ${teamNames(game, "A")} contro ${teamNames(game, "B")}`,
  );
}

/** How many people (not bots) sit at the table. */
export function peopleAt(game: Pick<LiveGame, "players">): number {
  return game.players.filter((p) => !p.bot).length;
}
