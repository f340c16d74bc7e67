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
