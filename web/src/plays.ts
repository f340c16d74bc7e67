// The plays of the hand being played, as the table shows them: the server sends one `state` per
// change with only the newest `last_play`, so the app keeps the hand's plays itself (numbered by
// how many cards are down, so a take-back or a missed state never leaves a wrong entry), and
// works out what a play took and where the last cards of a hand went.

import type { GameView, LastPlay } from "./types";

export const CARDS_PER_HAND = 40;

/** A play of the hand: `n` is its number in the hand, 1..40. */
export interface TrailPlay extends LastPlay {
  n: number;
}

/** The plays of one hand seen so far, oldest first. */
export interface Trail {
  hand: number;
  plays: TrailPlay[];
}

/** How many cards of the hand are down, i.e. the number of the view's `last_play` (0 before). */
export function playsDown(view: Pick<GameView, "status" | "players" | "last_play">): number {
  if (view.status !== "playing") return view.last_play ? CARDS_PER_HAND : 0;
  const held = view.players.reduce((n, p) => n + p.card_count, 0);
  return CARDS_PER_HAND - held;
}

/** The trail after a new view: a new hand starts afresh, a play replaces any at or after its
 * number (a take-back goes back), and the view's last play is added. */
export function extendTrail(trail: Trail | null, view: GameView): Trail {
  const hand = view.hand_number;
  const n = playsDown(view);
  let plays = trail && trail.hand === hand ? trail.plays.filter((p) => p.n < n) : [];
  if (view.last_play && n > 0) plays = [...plays, { ...view.last_play, n }];
  if (trail && trail.hand === hand && sameTrail(trail.plays, plays)) return trail;
  return { hand, plays };
}

function sameTrail(a: TrailPlay[], b: TrailPlay[]): boolean {
  return a.length === b.length && a.every((p, i) => p.n === b[i].n && p.card === b[i].card && p.seat === b[i].seat);
}

/** The cards a play took into the player's pile, the played card included; none when it was laid
 * on the table. `tableAfter` tells an ace that took itself (asso pigliatutto on an empty table,
 * sent with no capture) from one laid down. */
export function takenBy(play: LastPlay | null, tableAfter: readonly string[]): string[] {
  if (!play) return [];
  if (play.capture.length > 0 || !tableAfter.includes(play.card)) return [...play.capture, play.card];
  return [];
}

/** Where the last cards of a hand went: the cards left on the table after its 40th play, and the
 * seat of the last capture, which takes them (null when no card was left). */
export interface Sweep {
  cards: string[];
  seat: number | null;
}

/**
 * The final sweep, from the view before the hand's last play (39 cards down) and the view after
 * it (hand_end or finished, whose table is already empty). The seat that took the leftovers is
 * the one whose pile grew by more than its own last play explains. Null when `before` is not the
 * view right before the last play (a state was missed).
 */
export function finalSweep(before: GameView, after: GameView): Sweep | null {
  const play = after.last_play;
  if (!play || before.status !== "playing" || before.hand_number !== after.hand_number) return null;
  if (playsDown(before) !== CARDS_PER_HAND - 1) return null;
  const taken = new Set(play.capture);
  const took = play.capture.length > 0 || isAceSweep(before, play);
  const left = took ? before.table.filter((c) => !taken.has(c)) : [...before.table, play.card].sort();
  if (left.length === 0) return { cards: [], seat: null };
  const grew = (seat: number) => {
    const was = before.players.find((p) => p.seat === seat)?.captured_count ?? 0;
    const is = after.players.find((p) => p.seat === seat)?.captured_count ?? 0;
    return is - was - (seat === play.seat && took ? play.capture.length + 1 : 0);
  };
  const seat = [0, 1, 2, 3].find((s) => grew(s) > 0);
  return { cards: left, seat: seat ?? null };
}

/** An ace that takes the whole table (asso pigliatutto, no ace on the table). */
function isAceSweep(before: GameView, play: LastPlay): boolean {
  return Boolean(before.options?.asso_pigliatutto) && play.card.startsWith("01") &&
    !before.table.some((c) => c.startsWith("01"));
}

const KEY = (id: string) => `tavolo:trail:${id}`;

/** The trail kept over a reload of the page (sessionStorage: this tab only). */
export function loadTrail(id: string): Trail | null {
  try {
    const raw = sessionStorage.getItem(KEY(id));
    if (!raw) return null;
    const trail = JSON.parse(raw) as Trail;
    return typeof trail?.hand === "number" && Array.isArray(trail.plays) ? trail : null;
  } catch {
    return null;
  }
}

export function saveTrail(id: string, trail: Trail): void {
  try {
    sessionStorage.setItem(KEY(id), JSON.stringify(trail));
  } catch {
    /* storage full or disabled: the trail lasts as long as the page */
  }
}
