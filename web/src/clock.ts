// The one place that remembers how far the browser's clock is from the server's.

import { offsetFromDateHeader } from "./countdown";

let offsetMs = 0;

export function serverOffset(): number {
  return offsetMs;
}

/** Called by the REST client with every response's Date header. */
export function noteServerDate(dateHeader: string | null, sentMs: number, receivedMs: number): void {
  const offset = offsetFromDateHeader(dateHeader, sentMs, receivedMs);
  if (offset !== null) offsetMs = offset;
}

/** The time and the timers a waiting screen reads: the browser's, or a test's. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const browserClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
};
