// Which cards may be played and with which capture. The server's `legal` list is the only source:
// the app never re-implements the rules, so it cannot offer a move the engine would refuse.

import { cardList, cardsPhrase } from "./deck";
import type { GameView, LegalPlay } from "./types";
import { tx } from "./i18n";

export interface PlayMessage {
  action: "play";
  card: string;
  capture?: string[];
  revision: number;
}

/** What a click on a hand card does: play at once, let the player choose, or nothing. */
export type CardIntent =
  | { kind: "play"; message: PlayMessage }
  | { kind: "choose"; card: string; captures: string[][] }
  | { kind: "none" };

/** The legal entries of the view; empty when it is not the player's turn. */
export function legalPlays(view: GameView): LegalPlay[] {
  if (view.status !== "playing" || !view.your_turn) return [];
  return view.legal ?? [];
}

export function playableCards(view: GameView): Set<string> {
  return new Set(legalPlays(view).filter((p) => p.captures.length > 0).map((p) => p.card));
}

/** The play message for a card and one of its captures; [[]] (lay it down) sends no capture. */
export function playMessage(card: string, capture: readonly string[], revision: number): PlayMessage {
  const message: PlayMessage = { action: "play", card, revision };
  if (capture.length > 0) message.capture = [...capture];
  return message;
}

export function intentFor(view: GameView, card: string): CardIntent {
  const entry = legalPlays(view).find((p) => p.card === card);
  if (!entry || entry.captures.length === 0) return { kind: "none" };
  if (entry.captures.length === 1) {
    return { kind: "play", message: playMessage(card, entry.captures[0], view.revision) };
  }
  return { kind: "choose", card, captures: entry.captures };
}

/** The chooser's button text: "Take 3 of spade, 4 of bastoni". */
export function captureLabel(capture: readonly string[]): string {
  return capture.length === 0 ? tx("Lay it on the table", "Lasciala sul tavolo") : tx(`Take ${cardList(capture)}`, `Prendi ${cardsPhrase(capture)}`);
}

/** Table cards that belong to at least one of the captures: highlighted while choosing. */
export function candidateCards(captures: readonly string[][]): Set<string> {
  return new Set(captures.flat());
}

/** The captures still possible once the player has picked these table cards. */
export function narrow(captures: readonly string[][], picked: readonly string[]): string[][] {
  return captures.filter((c) => picked.every((p) => c.includes(p)));
}

/**
 * A click on a table card while choosing: toggle it in the picked set. When the picked cards
 * single out one capture, that capture is the answer; a pick that fits none starts over from it.
 */
export function pickTableCard(
  captures: readonly string[][],
  picked: readonly string[],
  card: string,
): { picked: string[]; chosen: string[] | null } {
  if (!candidateCards(captures).has(card)) return { picked: [...picked], chosen: null };
  let next = picked.includes(card) ? picked.filter((c) => c !== card) : [...picked, card];
  if (narrow(captures, next).length === 0) next = [card];
  const left = narrow(captures, next);
  return { picked: next, chosen: left.length === 1 && next.length > 0 ? left[0] : null };
}
