// "Since you left" at a daily table: on opening it, the plays made while the player was away
// (from the move log, public moves only), in a short list over the table that a tap dismisses.
// While the table stays open every new move counts as seen.

import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api";
import { playLine } from "./describe";
import { tx } from "./i18n";
import { markSeen, missedMoves, movesIn, movesNow, newest, seenMoves, type Missed, type SeenStore } from "./sinceleft";
import { paceOf } from "./tables";
import type { AnyView, GameLog, GameView } from "./types";

export interface SinceLeftDeps {
  log(id: string): Promise<Pick<GameLog, "moves" | "revision">>;
  store: SeenStore;
  now(): number;
}

const browserDeps: SinceLeftDeps = { log: (id) => api.log(id), store: globalThis.localStorage, now: () => Date.now() };

/** How many of the missed plays the notice lists (the rest are counted). */
const SHOWN = 8;

/** The missed plays of this daily game (null: nothing to say), and closing the notice. */
export function useSinceLeft(id: string, view: AnyView | null, deps: SinceLeftDeps = browserDeps): {
  missed: Missed[] | null;
  dismiss: () => void;
} {
  const [missed, setMissed] = useState<Missed[] | null>(null);
  const atOpen = useRef<{ moves: number; revision: number } | null>(null);
  const asked = useRef(false);
  // This page saw the game before its cards: it saw every play live, so nothing was missed.
  const sawStart = useRef(false);
  // The lobby and the players' shuffle (seeding) come before any play: nothing is missed there.
  const started = view !== null && view.status !== "lobby" && view.status !== "seeding";
  const daily = view !== null && paceOf({ options: view.options }) === "daily";
  const revision = started ? (view as GameView).revision : 0;
  useEffect(() => {
    if (!view || !daily || !deps.store) return;
    // Before the cards nothing is missed yet: every play after it is news.
    if (!started) {
      sawStart.current = true;
      return markSeen(deps.store, id, 0, deps.now());
    }
    if (atOpen.current) return markSeen(deps.store, id, movesNow(atOpen.current, revision), deps.now());
    if (asked.current) return;
    asked.current = true;
    deps.log(id).then(
      (log) => {
        const total = movesIn(log.moves);
        const seen = seenMoves(deps.store, id);
        if (seen !== null && !sawStart.current) {
          const news = missedMoves(log.moves, seen);
          if (news.some((m) => m.kind === "play")) setMissed(news);
        }
        atOpen.current = { moves: total, revision: log.revision };
        markSeen(deps.store, id, total, deps.now());
      },
      () => {
        asked.current = false; // tried again at the next change of the table
      },
    );
  }, [id, revision, started, daily]);
  return { missed, dismiss: () => setMissed(null) };
}

/** One missed thing as a line: "bob: 5 of spade, took 2 of coppe"; a new hand as such. */
export function missedLine(view: Pick<GameView, "players" | "you">, m: Missed): string {
  if (m.kind === "hand") return tx("A new hand was dealt.", "È stata distribuita una nuova mano.");
  return playLine(view, { seat: m.seat, card: m.card, capture: m.capture, auto: m.auto, scopa: false });
}

export function SinceLeftNotice({ view, missed, onDismiss }: {
  view: Pick<GameView, "players" | "you">;
  missed: Missed[];
  onDismiss: () => void;
}) {
  const { shown, earlier } = newest(missed, SHOWN);
  return (
    <section class="since-left" aria-labelledby="since-left-title" data-testid="since-left">
      <h2 id="since-left-title">{tx("Since you left", "Da quando sei uscito")}</h2>
      {earlier > 0 && (
        <p class="since-left-earlier">
          {earlier === 1 ? tx("1 earlier play, then:", "1 giocata prima, poi:") : tx(`${earlier} earlier plays, then:`, `${earlier} giocate prima, poi:`)}
        </p>
      )}
      <ol>
        {shown.map((m, i) => (
          <li key={i} data-testid="since-left-play">{missedLine(view, m)}</li>
        ))}
      </ol>
      <button type="button" class="since-left-close" aria-label={tx("Dismiss: since you left", "Chiudi: da quando sei uscito")}
        onClick={onDismiss}>
        ×
      </button>
    </section>
  );
}
