// A hand played again from the move log: the plays of each hand (the log's payload always lists
// what a play took), the table and the four hands after any number of plays, each team's pile
// with the last cards going to the last capture, and (with the revealed seed) the deals.

import { deal, hexToBytes } from "./fairness";
import { SUITS, teamOf, type Suit } from "./deck";
import type { GameLog, Team } from "./types";

export const CARDS_PER_HAND = 40;

export interface HandPlay {
  /** The move's number in the log. */
  number: number;
  seat: number;
  card: string;
  capture: string[];
  auto: boolean;
}

/** The log's plays cut into hands of 40 (a hand ends exactly when its 40 cards are down). */
export function handsOfLog(log: Pick<GameLog, "moves">): HandPlay[][] {
  const hands: HandPlay[][] = [];
  for (const move of log.moves) {
    if (move.type !== "play" && move.type !== "auto_play") continue;
    const seat = Number(String(move.seat ?? "").replace(/^seat:/, ""));
    const card = String(move.payload?.card ?? "");
    const raw = move.payload?.capture;
    const capture = Array.isArray(raw) ? raw.map(String) : [];
    if (hands.length === 0 || hands[hands.length - 1].length === CARDS_PER_HAND) hands.push([]);
    hands[hands.length - 1].push({ number: move.number, seat, card, capture, auto: move.type === "auto_play" || move.auto });
  }
  return hands;
}

/** The table and the piles after some plays of a hand. */
export interface TableState {
  /** The cards on the table, sorted. */
  table: string[];
  /** Each seat's pile (captured cards), in the order taken. */
  piles: string[][];
  /** Each seat's scope. */
  scope: number[];
  lastCapturer: number | null;
  /** After the 40th play: the cards left on the table, which went to the last capturer. */
  sweep: string[];
}

/** An ace takes the whole table under asso pigliatutto when no ace is on it. */
function sweeps(card: string, table: readonly string[], asso: boolean): boolean {
  return asso && card.startsWith("01") && !table.some((c) => c.startsWith("01"));
}

/** The table after the first `count` plays of a hand (all of them: the leftovers swept too). */
export function playHand(plays: readonly HandPlay[], count: number, asso: boolean): TableState {
  let table: string[] = [];
  const piles: string[][] = [[], [], [], []];
  const scope = [0, 0, 0, 0];
  let lastCapturer: number | null = null;
  const upTo = Math.min(count, plays.length);
  for (let i = 0; i < upTo; i++) {
    const { seat, card, capture } = plays[i];
    const ace = sweeps(card, table, asso);
    if (capture.length > 0 || ace) {
      // The log lists what a play took; an ace sweeping takes the whole table whatever it lists.
      const took = ace ? table : capture;
      const taken = new Set(took);
      table = table.filter((c) => !taken.has(c));
      piles[seat].push(card, ...took);
      lastCapturer = seat;
      // A capture that empties the table is a scopa, except on the hand's last play or by the ace.
      if (table.length === 0 && !ace && i < CARDS_PER_HAND - 1) scope[seat]++;
    } else {
      table = [...table, card].sort();
    }
  }
  let sweep: string[] = [];
  if (upTo === CARDS_PER_HAND && table.length > 0 && lastCapturer !== null) {
    sweep = table;
    piles[lastCapturer].push(...table);
    table = [];
  }
  return { table, piles, scope, lastCapturer, sweep };
}

/** Each team's pile: seats 0 and 2 are A, 1 and 3 are B. */
export function teamPiles(state: Pick<TableState, "piles">): Record<Team, string[]> {
  const out: Record<Team, string[]> = { A: [], B: [] };
  state.piles.forEach((pile, seat) => out[teamOf(seat)].push(...pile));
  return out;
}

/** How many cards of each suit a pile holds. */
export function countBySuit(cards: readonly string[]): Record<Suit, number> {
  const out: Record<Suit, number> = { D: 0, C: 0, S: 0, B: 0 };
  for (const c of cards) out[c.slice(2) as Suit]++;
  return out;
}

// Primiera values by rank: 7=21, 6=18, ace=16, 5=15, 4=14, 3=13, 2=12, figures 10.
const PRIMIERA: Record<number, number> = { 1: 16, 2: 12, 3: 13, 4: 14, 5: 15, 6: 18, 7: 21, 8: 10, 9: 10, 10: 10 };

export function primieraValue(card: string): number {
  return PRIMIERA[Number(card.slice(0, 2))];
}

/** The best card of each suit in a pile for the primiera (null when the pile lacks the suit). */
export function primieraBySuit(cards: readonly string[]): Record<Suit, { card: string | null; value: number }> {
  const out = Object.fromEntries(SUITS.map((s) => [s, { card: null, value: 0 }])) as Record<Suit, { card: string | null; value: number }>;
  for (const card of cards) {
    const best = out[card.slice(2) as Suit];
    const value = primieraValue(card);
    if (value > best.value) {
      best.card = card;
      best.value = value;
    }
  }
  return out;
}

/** The primiera of a pile: the four best cards summed, 0 when a suit is missing. */
export function primieraTotal(cards: readonly string[]): number {
  const best = Object.values(primieraBySuit(cards));
  return best.some((b) => b.card === null) ? 0 : best.reduce((n, b) => n + b.value, 0);
}

/** The cards each team took in the last hand of the log (its last 40 plays), or null when the
 * log's last hand is not complete. */
export function lastHandPiles(log: Pick<GameLog, "moves" | "options">): Record<Team, string[]> | null {
  const hands = handsOfLog(log);
  const last = hands[hands.length - 1];
  if (!last || last.length !== CARDS_PER_HAND) return null;
  return teamPiles(playHand(last, CARDS_PER_HAND, Boolean(log.options?.asso_pigliatutto)));
}

/** One hand to replay: its number, the cards dealt to each seat (sorted) and its plays. */
export interface ReplayHand {
  number: number;
  dealt: string[][];
  plays: HandPlay[];
}

/** Every hand of a finished game's log, dealt again from the revealed seed. */
export async function replayHands(log: GameLog): Promise<ReplayHand[]> {
  if (!log.seed) throw new Error("The seed is not revealed");
  const seed = hexToBytes(log.seed);
  const hands = handsOfLog(log);
  return Promise.all(hands.map(async (plays, i) => ({ number: i + 1, dealt: await deal(seed, i + 1), plays })));
}

/** What each seat still holds after the first `count` plays of a hand. */
export function handsAfter(hand: ReplayHand, count: number): string[][] {
  const played = new Set(hand.plays.slice(0, count).map((p) => p.card));
  return hand.dealt.map((cards) => cards.filter((c) => !played.has(c)));
}
