// "Your tables" on the start page: every unfinished game of the member, the ones where it is their
// turn first (the one whose time runs out soonest first), each with its pace and the time left
// to the turn's deadline in words ("2 h 14 min left").

import { tx } from "./i18n";

/** What ordering and the words need of a game of GET /api/me/games. The pace and the deadline
 * are read when the server sends them; a game without a pace is a live one. */
export interface TableFacts {
  id: string;
  your_turn: boolean;
  updated_at: string;
  pace?: string | null;
  deadline?: string | null;
}

export type Pace = "live" | "daily";

export function paceOf(game: { pace?: string | null } | { options?: Record<string, unknown> | null }): Pace {
  const pace = "pace" in game ? game.pace : (game as { options?: Record<string, unknown> | null }).options?.pace;
  return pace === "daily" ? "daily" : "live";
}

/** "Daily" / "Live" as a table's tag. */
export function paceText(pace: Pace): string {
  return pace === "daily" ? tx("Daily", "Giornaliera") : tx("Live", "Dal vivo");
}

/** The pace as a choice says it, with what it means for a turn. */
export function paceChoiceText(pace: Pace): string {
  return pace === "daily" ? tx("Daily (a day a turn)", "Giornaliera (un giorno a turno)") : tx("Live (30 s a turn)", "Dal vivo (30 s a turno)");
}

function deadlineMs(game: TableFacts): number {
  const t = game.deadline ? Date.parse(game.deadline) : NaN;
  return Number.isNaN(t) ? Infinity : t;
}

/** Your turn first; among those, and among the others, the deadline nearest first (a game
 * with none, such as one in the lobby, after the ones with one), then the latest changed. */
export function sortTables<T extends TableFacts>(games: readonly T[]): T[] {
  return [...games].sort((a, b) => {
    if (a.your_turn !== b.your_turn) return a.your_turn ? -1 : 1;
    const da = deadlineMs(a);
    const db = deadlineMs(b);
    if (da !== db) return da < db ? -1 : 1;
    return Date.parse(b.updated_at) - Date.parse(a.updated_at);
  });
}

/** Milliseconds left to a server deadline on the browser's clock corrected by ``offsetMs``;
 * null without a deadline, never below 0. */
export function msLeft(deadline: string | null | undefined, nowMs: number, offsetMs = 0): number | null {
  const t = deadline ? Date.parse(deadline) : NaN;
  if (Number.isNaN(t)) return null;
  return Math.max(0, t - (nowMs + offsetMs));
}

/**
 * "2 h 14 min left", "3 min left", "40 s left", "Time is up": the time left said as a person
 * would, rounded down (a turn never gets longer than it reads). Above two days: "3 days left".
 */
export function timeLeftText(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s <= 0) return tx("Time is up", "Tempo scaduto");
  if (s < 60) return tx(`${s} s left`, `${s} s rimasti`);
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return tx(`${minutes} min left`, `${minutes} min rimasti`);
  const hours = Math.floor(minutes / 60);
  if (hours < 48) {
    const m = minutes % 60;
    const en = m ? `${hours} h ${m} min left` : `${hours} h left`;
    const it = m ? `${hours} h ${m} min rimasti` : `${hours} h rimaste`;
    return tx(en, it);
  }
  const days = Math.floor(hours / 24);
  return tx(`${days} days left`, `${days} giorni rimasti`);
}

/** How often the time left must be said again: its smallest unit (a second under a minute, a
 * minute under two days, then an hour), so a page of daily tables re-renders once a minute. */
export function tickFor(ms: number | null): number | null {
  if (ms === null || ms <= 0) return null;
  if (ms < 60_000) return 1000;
  if (ms < 48 * 3_600_000) return 60_000;
  return 3_600_000;
}

/** The milliseconds until the text of ``ms`` left changes: just past its unit's next boundary. */
export function nextChangeIn(ms: number): number | null {
  const unit = tickFor(ms);
  if (unit === null) return null;
  const rest = ms % unit;
  return (rest === 0 ? unit : rest) + 15;
}
