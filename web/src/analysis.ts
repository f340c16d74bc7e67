// "Analyse my play" (CONTRACT, Analysis of a finished match): what the app makes of the server's
// answers. The asking and waiting as states (never asked, queued or running, done, refused), how
// long to wait before reading again, each verdict's symbol, colour and words, and where each judged
// play sits in the replay, so "Next mistake" can jump to it.

import { ApiError, errorText } from "./api";
import { tx } from "./i18n";
import type { Analysis, AnalysedPlay, Verdict } from "./types";
import type { ReplayHand } from "./replay";

/** What the screen shows of one match's analysis. */
export type AnalysisState =
  | { kind: "loading" }
  /** Never asked (GET: 404 "No analysis"): the button. */
  | { kind: "none" }
  /** The request is on its way. */
  | { kind: "asking" }
  | { kind: "waiting"; status: "queued" | "running" }
  | { kind: "done"; analysis: Analysis }
  /** The server refused the request (409 not finished, 403 not seated, 429 too many): its
   * words, and the button again. */
  | { kind: "refused"; error: string }
  /** A read failed for good (another 4xx): its words. */
  | { kind: "failed"; error: string };

/** The state an answer of GET or POST /api/games/{id}/analysis stands for. */
export function stateOfAnswer(answer: Analysis): AnalysisState {
  if (answer.status === "done" && answer.plays && answer.summary) return { kind: "done", analysis: answer };
  // "done" without its plays would be a server bug: read again rather than show nothing.
  return { kind: "waiting", status: answer.status === "queued" ? "queued" : "running" };
}

/** The state a failed read stands for, or null when it is worth reading again (the server down
 * or restarting, a rate limit, a 5xx): the poll goes on, more slowly. */
export function stateOfReadError(e: unknown): AnalysisState | null {
  if (e instanceof ApiError && e.status === 404 && e.detail === "No analysis") return { kind: "none" };
  if (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 429) {
    return { kind: "failed", error: errorText(e) };
  }
  return null;
}

/** The state a refused request stands for: the server's words (a 429 in the player's words). */
export function stateOfAskError(e: unknown): AnalysisState {
  return { kind: "refused", error: errorText(e) };
}

/** Reading again while the analysis waits: 1 s, then half as long again each time, at most 8 s
 * (an analysis takes seconds to half a minute; a queue behind others, minutes). */
export const POLL_FIRST_MS = 1000;
export const POLL_MAX_MS = 8000;

export function pollDelay(attempt: number): number {
  return Math.min(POLL_MAX_MS, Math.round(POLL_FIRST_MS * 1.5 ** Math.max(0, attempt)));
}

/** The calm progress line of a waiting analysis. */
export function waitingText(status: "queued" | "running" | "asking"): string {
  if (status === "running") return tx("Analysing your plays…", "Analisi delle tue giocate in corso…");
  return tx("Your analysis is in the queue; it starts shortly…", "La tua analisi è in coda; comincia a breve…");
}

// -- the verdicts ----------------------------------------------------------------------------------

export const VERDICTS: readonly Verdict[] = ["best", "good", "inaccuracy", "mistake", "blunder"];

/** The verdicts "Next mistake" stops at. */
export function isMistake(verdict: Verdict | null | undefined): boolean {
  return verdict === "inaccuracy" || verdict === "mistake" || verdict === "blunder";
}

/** A verdict's mark, as lichess marks moves: a symbol (shown; screen readers hear the word) and
 * the CSS class of its colour. */
export interface VerdictMark {
  symbol: string;
  word: string;
  className: string;
}

export function verdictMark(verdict: Verdict): VerdictMark {
  const words: Record<Verdict, [string, string, string]> = {
    best: ["★", "Best play", "La giocata migliore"],
    good: ["✓", "Good play", "Buona giocata"],
    inaccuracy: ["?!", "Inaccuracy", "Imprecisione"],
    mistake: ["?", "Mistake", "Errore"],
    blunder: ["??", "Blunder", "Errore grave"],
  };
  const [symbol, en, it] = words[verdict];
  return { symbol, word: tx(en, it), className: `verdict-${verdict}` };
}

/** The mark of an auto-play (the time ran out): not judged. */
export function autoMark(): VerdictMark {
  // A word, not a clock glyph: many phones' fonts lack one.
  return { symbol: tx("auto", "auto"), word: tx("Auto-played, not judged", "Giocata in automatico, non valutata"), className: "verdict-auto" };
}

/** The mark of a listed play: its verdict's, or the auto-play's. */
export function markOf(play: AnalysedPlay): VerdictMark | null {
  if (play.auto) return autoMark();
  return play.verdict ? verdictMark(play.verdict) : null;
}

/** "0.42 points": the expected points lost, as people read them. */
export function lossText(loss: number): string {
  const shown = loss < 0.005 ? "0" : loss.toFixed(2);
  return tx(`${shown} ${shown === "1.00" ? "point" : "points"}`, `${shown.replace(".", ",")} ${shown === "1.00" ? "punto" : "punti"}`);
}

type Counted = "inaccuracy" | "mistake" | "blunder";

/** "inaccuracy" or "inaccuracies" by the count, as the summary's figures read. */
export function countWord(verdict: Counted, n: number): string {
  const words: Record<Counted, [string, string, string, string]> = {
    inaccuracy: ["inaccuracy", "inaccuracies", "imprecisione", "imprecisioni"],
    mistake: ["mistake", "mistakes", "errore", "errori"],
    blunder: ["blunder", "blunders", "errore grave", "errori gravi"],
  };
  const [one, many, uno, tanti] = words[verdict];
  return n === 1 ? tx(one, uno) : tx(many, tanti);
}

/** "3 inaccuracies, 1 mistake, no blunders": the summary's counts in words. */
export function countsText(summary: Analysis["summary"]): string {
  if (!summary) return "";
  const part = (verdict: Counted, n: number, none: [string, string]) => (n === 0 ? tx(...none) : `${n} ${countWord(verdict, n)}`);
  return [
    part("inaccuracy", summary.inaccuracies, ["no inaccuracies", "nessuna imprecisione"]),
    part("mistake", summary.mistakes, ["no mistakes", "nessun errore"]),
    part("blunder", summary.blunders, ["no blunders", "nessun errore grave"]),
  ].join(", ");
}

// -- the plays in the replay -----------------------------------------------------------------------

/** A place in the replay: hand index (0-based) and plays shown (1..40: the play just made). */
export interface ReplaySpot {
  h: number;
  k: number;
}

/** Where the play with this move number shows in the replay: the spot right after it, where the
 * replay describes it. Null when the log has no such play. */
export function spotOf(hands: readonly ReplayHand[], number: number): ReplaySpot | null {
  for (let h = 0; h < hands.length; h++) {
    const i = hands[h].plays.findIndex((p) => p.number === number);
    if (i >= 0) return { h, k: i + 1 };
  }
  return null;
}

/** The analysed plays by move number. */
export function playsByNumber(analysis: Analysis | null | undefined): Map<number, AnalysedPlay> {
  return new Map((analysis?.plays ?? []).map((p) => [p.number, p]));
}

/** The spots of the marked mistakes (inaccuracies, mistakes, blunders) in replay order. */
export function mistakeSpots(hands: readonly ReplayHand[], analysis: Analysis | null | undefined): ReplaySpot[] {
  const spots: ReplaySpot[] = [];
  for (const play of analysis?.plays ?? []) {
    if (play.auto || !isMistake(play.verdict)) continue;
    const spot = spotOf(hands, play.number);
    if (spot) spots.push(spot);
  }
  return spots.sort((a, b) => a.h - b.h || a.k - b.k);
}

const after = (a: ReplaySpot, b: ReplaySpot) => a.h > b.h || (a.h === b.h && a.k > b.k);

/** The first marked mistake after ``from``, or null when none is left. */
export function nextMistake(spots: readonly ReplaySpot[], from: ReplaySpot): ReplaySpot | null {
  return spots.find((s) => after(s, from)) ?? null;
}

/** The last marked mistake before ``from``, or null when none is. */
export function previousMistake(spots: readonly ReplaySpot[], from: ReplaySpot): ReplaySpot | null {
  return [...spots].reverse().find((s) => after(from, s)) ?? null;
}

/** The analysed plays of one hand (0-based index), in the order played. */
export function playsOfHand(hands: readonly ReplayHand[], h: number, analysis: Analysis | null | undefined): { play: AnalysedPlay; k: number }[] {
  const byNumber = playsByNumber(analysis);
  const out: { play: AnalysedPlay; k: number }[] = [];
  hands[h]?.plays.forEach((p, i) => {
    const found = byNumber.get(p.number);
    if (found) out.push({ play: found, k: i + 1 });
  });
  return out;
}

/** The same play: the same card and the same capture (in any order). */
export function samePlay(a: { card: string; capture?: string[] | null }, b: { card: string; capture?: string[] | null }): boolean {
  const ca = [...(a.capture ?? [])].sort().join(" ");
  const cb = [...(b.capture ?? [])].sort().join(" ");
  return a.card === b.card && ca === cb;
}
