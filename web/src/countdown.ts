// Seconds left until a server deadline. The deadline is the server's ISO time, the browser's
// clock may be off: an offset estimated from the server's Date header corrects a clock that is
// clearly wrong, and the result never goes below 0.

import { tx } from "./i18n";

/** Whole seconds left (rounded up, so "1" shows until the very end); 0 once past or unknown. */
export function secondsLeft(deadlineIso: string | undefined | null, nowMs: number, offsetMs = 0): number {
  if (!deadlineIso) return 0;
  const deadline = Date.parse(deadlineIso);
  if (Number.isNaN(deadline)) return 0;
  const left = deadline - (nowMs + offsetMs);
  return left <= 0 ? 0 : Math.ceil(left / 1000);
}

/** The threshold under which an offset is noise: the Date header has one-second resolution. */
export const SKEW_TOLERANCE_MS = 2000;

/**
 * The server clock minus ours, from an HTTP Date header read between sentMs and receivedMs.
 * The header is truncated to the second, so the server's time was in [date, date + 1 s):
 * take the middle. Offsets within the tolerance are reported as 0 (not worth correcting).
 */
export function offsetFromDateHeader(
  dateHeader: string | null,
  sentMs: number,
  receivedMs: number,
): number | null {
  if (!dateHeader) return null;
  const server = Date.parse(dateHeader);
  if (Number.isNaN(server)) return null;
  const offset = server + 500 - (sentMs + receivedMs) / 2;
  return Math.abs(offset) <= SKEW_TOLERANCE_MS ? 0 : Math.round(offset);
}

/** "9 s" for short waits, "1:15" for longer ones, "23 h" for a daily game's (rounded down; the
 * minutes show from its last hour: the turn's pill has room for a few characters only). */
export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago": how long ago a server time was. */
export function timeAgo(iso: string | undefined, nowMs: number, offsetMs = 0): string {
  const then = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(then)) return "";
  const s = Math.max(0, Math.floor((nowMs + offsetMs - then) / 1000));
  if (s < 60) return tx("just now", "proprio ora");
  if (s < 3600) return tx(`${Math.floor(s / 60)} min ago`, `${Math.floor(s / 60)} min fa`);
  if (s < 86400) {
    const h = Math.floor(s / 3600);
    return tx(`${h} h ago`, h === 1 ? "1 ora fa" : `${h} ore fa`);
  }
  const d = Math.floor(s / 86400);
  return d === 1 ? tx("1 day ago", "1 giorno fa") : tx(`${d} days ago`, `${d} giorni fa`);
}
