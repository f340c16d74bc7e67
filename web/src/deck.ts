// Card codes (CONTRACT: "RRS", rank 01..10, suit D/C/S/B) and the names people read.

import { lang, tx } from "./i18n";

export type Suit = "D" | "C" | "S" | "B";

export const SUITS: readonly Suit[] = ["D", "C", "S", "B"];

export const SUIT_NAMES: Record<Suit, string> = {
  D: "denari",
  C: "coppe",
  S: "spade",
  B: "bastoni",
};

export const FIGURES: Record<number, string> = { 8: "fante", 9: "cavallo", 10: "re" };

/** The canonical order of the deal: 01D..10D, 01C..10C, 01S..10S, 01B..10B. */
export const DECK: readonly string[] = SUITS.flatMap((suit) =>
  Array.from({ length: 10 }, (_, i) => `${String(i + 1).padStart(2, "0")}${suit}`),
);

export interface ParsedCard {
  rank: number;
  suit: Suit;
}

export function parseCard(code: string): ParsedCard {
  const rank = Number(code.slice(0, 2));
  const suit = code.slice(2) as Suit;
  if (!/^(0[1-9]|10)[DCSB]$/.test(code)) throw new Error(`Not a card: ${code}`);
  return { rank, suit };
}

const ITALIAN_RANKS: Record<number, string> = { 1: "asso", 8: "fante", 9: "cavallo", 10: "re" };

/** The accessible name of a card: "7 of denari (settebello)", "8 of spade (fante)", "1 of
 * coppe" in English (suits and figures keep their Italian names); as Italian players name it
 * in Italian: "7 di denari (settebello)", "fante di spade", "asso di coppe". */
export function cardName(code: string): string {
  const { rank, suit } = parseCard(code);
  const settebello = code === "07D" ? " (settebello)" : "";
  if (lang() === "it") return `${ITALIAN_RANKS[rank] ?? rank} di ${SUIT_NAMES[suit]}${settebello}`;
  const figure = FIGURES[rank];
  return `${rank} of ${SUIT_NAMES[suit]}${settebello || (figure ? ` (${figure})` : "")}`;
}

/** Names joined for a list: "3 of spade, 4 of bastoni". */
export function cardList(codes: readonly string[]): string {
  return codes.map(cardName).join(", ");
}

/** A card in a sentence, with its article in Italian: "il 7 di denari (settebello)",
 * "l'asso di coppe", "il fante di spade"; in English the accessible name. */
export function cardPhrase(code: string): string {
  const noun = cardName(code);
  if (lang() === "en") return noun;
  return parseCard(code).rank === 1 ? `l'${noun}` : `il ${noun}`;
}

/** Cards in a sentence: "3 of spade, 4 of bastoni" / "il 3 di spade e il 4 di bastoni". */
export function cardsPhrase(codes: readonly string[]): string {
  if (lang() === "en") return cardList(codes);
  return andList(codes.map(cardPhrase));
}

/** "a, b and c" / "a, b e c" ("ed" before a word starting with e, as Italian writes it). */
export function andList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  const head = items.slice(0, -1).join(", ");
  const last = items[items.length - 1];
  return tx(`${head} and ${last}`, `${head} ${/^[eèé]/i.test(last) ? "ed" : "e"} ${last}`);
}

export function teamOf(seat: number): "A" | "B" {
  return seat % 2 === 0 ? "A" : "B";
}
