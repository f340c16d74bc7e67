// "Since you left" at a daily table: the plays made while the player was away. The browser
// remembers per game how many moves of the log the player has seen (localStorage, so it holds
// over days and reloads); on opening the table the log (GET /api/games/<id>/log: public moves
// only, every seat's plays are public once made) gives the ones after that.

import type { LogMove } from "./types";

const KEY_PREFIX = "tavolo.seen.";
/** More than a few dozen games' marks is old news: the oldest go. */
const MAX_GAMES = 60;

export interface SeenStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  readonly length: number;
  key(index: number): string | null;
}

interface Mark {
  moves: number;
  at: number;
}

function read(store: SeenStore, key: string): Mark | null {
  try {
    const mark = JSON.parse(store.getItem(key) ?? "null") as Mark | null;
    return mark && typeof mark.moves === "number" ? mark : null;
  } catch {
    return null;
  }
}

/** How many moves of this game's log the player has seen; null the first time here. */
export function seenMoves(store: SeenStore, game: string): number | null {
  return read(store, KEY_PREFIX + game)?.moves ?? null;
}

/** Remember that the player has seen ``moves`` moves of this game (never fewer than before). */
export function markSeen(store: SeenStore, game: string, moves: number, nowMs: number): void {
  const key = KEY_PREFIX + game;
  const before = read(store, key);
  if (before && before.moves >= moves) return;
  try {
    store.setItem(key, JSON.stringify({ moves, at: nowMs }));
    prune(store);
  } catch {
    // A full or refused storage only costs the notice next time.
  }
}

function prune(store: SeenStore): void {
  const marks: [string, number][] = [];
  for (let i = 0; i < store.length; i++) {
    const key = store.key(i);
    if (key?.startsWith(KEY_PREFIX)) marks.push([key, read(store, key)?.at ?? 0]);
  }
  if (marks.length <= MAX_GAMES) return;
  marks.sort((a, b) => a[1] - b[1]);
  for (const [key] of marks.slice(0, marks.length - MAX_GAMES)) store.removeItem(key);
}

/** One thing that happened while the player was away. */
export type Missed =
  | { kind: "play"; seat: number; card: string; capture: string[]; auto: boolean }
  | { kind: "hand"; };

function seatNumber(seat: string | null): number | null {
  const m = seat ? /^seat:([0-3])$/.exec(seat) : null;
  return m ? Number(m[1]) : null;
}

/** The plays (and new hands) after the first ``seen`` moves of the log, oldest first. Acks and
 * the players' entropy are no news; only what everyone at the table saw is listed. */
export function missedMoves(moves: readonly LogMove[], seen: number): Missed[] {
  const out: Missed[] = [];
  for (const move of moves) {
    if (move.number <= seen) continue;
    if (move.type === "play" || move.type === "auto_play") {
      const seat = seatNumber(move.seat);
      const card = move.payload.card;
      if (seat === null || typeof card !== "string") continue;
      const capture = Array.isArray(move.payload.capture) ? move.payload.capture.filter((c): c is string => typeof c === "string") : [];
      out.push({ kind: "play", seat, card, capture, auto: move.auto || move.type === "auto_play" });
    } else if (move.type === "continue") {
      out.push({ kind: "hand" });
    }
  }
  return out;
}

/** The number of moves in a log: its last move's number. */
export function movesIn(moves: readonly Pick<LogMove, "number">[]): number {
  return moves.length ? moves[moves.length - 1].number : 0;
}

/** The moves seen while the table stays open: the log's count at opening plus the revisions
 * since (each move is one revision; a take-back, only ever at a table of bots, may make this
 * count high, which only leaves a play out of a later notice). */
export function movesNow(atOpen: { moves: number; revision: number }, revision: number): number {
  return atOpen.moves + Math.max(0, revision - atOpen.revision);
}

/** The newest ``max`` of the missed plays, and how many earlier ones are left out. */
export function newest(missed: readonly Missed[], max: number): { shown: Missed[]; earlier: number } {
  const earlier = Math.max(0, missed.length - max);
  return { shown: missed.slice(earlier), earlier };
}
