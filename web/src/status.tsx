// What a screen shows while its content is not there: on its way, failed, or nothing to show.
// Every screen says these the same way, and a screen reader hears them the same way: loading is
// a polite status, a failure an alert (with a button to try again where the screen can).

import type { ComponentChildren } from "preact";
import { tx } from "./i18n";
import { Alert } from "./widgets";

/** Something on its way: "Loading…" unless the screen says what (role="status"). */
export function Loading({ children }: { children?: ComponentChildren }) {
  return (
    <p class="loading" role="status">
      {children ?? tx("Loading…", "Caricamento…")}
    </p>
  );
}

/** Something that failed: ``what`` (ending in ": ") and why, as an alert; with ``onRetry``, a
 * button to try again. */
export function Failed({ what, error, onRetry }: { what?: string; error: ComponentChildren; onRetry?: () => void }) {
  return (
    <>
      <Alert>
        {what}
        {error}
      </Alert>
      {onRetry && (
        <p>
          <button type="button" class="button secondary" onClick={onRetry}>
            {tx("Try again", "Riprova")}
          </button>
        </p>
      )}
    </>
  );
}

/** Nothing to show: the screen says why, and what to do about it. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}
