// The pace of the table: the server's states arrive as fast as people and bots play, and the
// last card of a hand is followed at once by the hand's summary. The game state keeps the hand's
// plays and the end of a hand as it happened (gamestate.ts); here the table is held with the
// last play and the final sweep for a few seconds before the summary (a tap skips the wait).

import { useEffect, useState } from "preact/hooks";
import type { Ending } from "./gamestate";

/** How long the last play and the sweep stay before the hand's summary. */
export const HOLD_MS = 2800;
/** How long the cards a capture took stay on the table, lit, before they go. */
export const TAKEN_MS = 1100;

/** The end of a hand to hold on the table now (null when none, or its time is over), and how to
 * skip it. */
export function useHold(ending: Ending | null): { closing: Ending | null; skip: () => void } {
  const [done, setDone] = useState<Ending | null>(null);
  useEffect(() => {
    if (!ending) return;
    const t = setTimeout(() => setDone(ending), HOLD_MS);
    return () => clearTimeout(t);
  }, [ending]);
  const closing = ending && ending !== done ? ending : null;
  return { closing, skip: () => setDone(ending) };
}
