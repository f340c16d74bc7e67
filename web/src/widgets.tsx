// Small pieces several screens share: the countdown, copy buttons, the reconnect banner, alerts.

import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { browserClock, serverOffset, type Clock } from "./clock";
import { formatSeconds, secondsLeft } from "./countdown";
import { formatDelta, LANGS, setLang, tx, type Lang } from "./i18n";
import type { GameType } from "./types";

/** Re-renders when the whole seconds left to `deadline` change (and never without one): a
 * countdown shows whole seconds, so rendering more often only costs a phone's battery. */
function useSecondsLeft(deadline: string | undefined): number {
  const [, tick] = useState(0);
  const seconds = secondsLeft(deadline, Date.now(), serverOffset());
  useEffect(() => {
    if (!deadline || seconds <= 0) return;
    const left = Date.parse(deadline) - (Date.now() + serverOffset());
    // The next change of the displayed number: just past the next whole second.
    const wait = ((left % 1000) + 1000) % 1000 + 15;
    const t = setTimeout(() => tick((n) => n + 1), wait);
    return () => clearTimeout(t);
  });
  return seconds;
}

/** Whether ``waitMs`` have passed since the component was first shown: one timer, one re-render
 * when they have (nothing ticks meanwhile). */
export function useWaited(waitMs: number, clock: Clock = browserClock): boolean {
  const [since] = useState(() => clock.now());
  const [ticks, tick] = useState(0);
  const due = clock.now() - since >= waitMs;
  useEffect(() => {
    if (due) return;
    const t = clock.setTimeout(() => tick((n) => n + 1), since + waitMs - clock.now());
    return () => clock.clearTimeout(t);
  }, [due, ticks, waitMs, clock]);
  return due;
}

export function Countdown({ deadline, label }: { deadline?: string; label: string }) {
  const seconds = useSecondsLeft(deadline);
  if (!deadline) return null;
  return (
    <span class={`countdown${seconds <= 5 ? " is-urgent" : ""}`} title={label}>
      <span class="countdown-label">{label} </span>
      <span data-testid="countdown" class="countdown-value">
        {formatSeconds(seconds)}
      </span>
    </span>
  );
}

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall back below */
  }
  // Plain http on another host has no Clipboard API: the old selection trick still works.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [note, setNote] = useState("");
  useEffect(() => {
    if (!note) return;
    const t = setTimeout(() => setNote(""), 2500);
    return () => clearTimeout(t);
  }, [note]);
  return (
    <span class="copy">
      <button
        type="button"
        class="button secondary"
        onClick={async () => setNote((await copyText(text)) ? tx("Copied", "Copiato") : tx("Select it and copy by hand", "Selezionalo e copialo a mano"))}
      >
        {label}
      </button>
      <span class="copy-note" aria-live="polite">
        {note}
      </span>
    </span>
  );
}

/**
 * "Reconnecting…" while the table's socket is down, in a live region that stays on the page
 * (empty meanwhile): a screen reader reads a region's changes, not a region that appears with
 * its words already in it. Once the socket is back after a drop the region says so, to screen
 * readers only (the banner going away says it on screen).
 */
export function ReconnectBanner({ show }: { show: boolean }) {
  const [dropped, setDropped] = useState(false);
  useEffect(() => {
    if (show) setDropped(true);
  }, [show]);
  return (
    <div class="banner-region" role="status">
      {show ? (
        <div class="banner">
          {tx("Reconnecting…", "Riconnessione…")}{" "}
          <span class="banner-detail">
            {tx(
              "The connection to the table dropped; the game goes on and you will be back in a moment.",
              "La connessione al tavolo è caduta; la partita continua e tra un momento sarai di nuovo al tavolo.",
            )}
          </span>
        </div>
      ) : (
        dropped && (
          <span class="visually-hidden">
            {tx("Connected again: the table is up to date.", "Di nuovo connesso: il tavolo è aggiornato.")}
          </span>
        )
      )}
    </div>
  );
}

export function Alert({ children, onClose }: { children: ComponentChildren; onClose?: () => void }) {
  // The dismiss button sits outside the role="alert" element, so the alert reads as its message only.
  return (
    <div class="alert">
      <div role="alert" class="alert-text">
        {children}
      </div>
      {onClose && (
        <button type="button" class="alert-close" aria-label={tx("Dismiss", "Chiudi")} onClick={onClose}>
          ×
        </button>
      )}
    </div>
  );
}

export function TeamBadge({ team, mine }: { team: "A" | "B"; mine?: boolean }) {
  return (
    <span class={`team-badge team-${team}`}>
      {tx(`Team ${team}`, `Squadra ${team}`)}
      {mine ? tx(" (yours)", " (la tua)") : ""}
    </span>
  );
}

/** The game-type filter of a list; with ``allLabel``, a first choice of every type (value ""). */
export function GameTypeFilter({ id, types, value, onChange, allLabel }: {
  id: string;
  types: GameType[];
  value: string;
  onChange: (gameType: string) => void;
  allLabel?: string;
}) {
  return (
    <div class="field filter">
      <label for={id}>{tx("Game type", "Tipo di gioco")}</label>
      <select id={id} value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        {allLabel !== undefined && <option value="">{allLabel}</option>}
        {types.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </div>
  );
}

const LANG_NAMES: Record<Lang, string> = { en: "English", it: "Italiano" };

export function LanguageSwitch({ current }: { current: Lang }) {
  return (
    <div class="lang-switch" role="group" aria-label={tx("Language", "Lingua")}>
      {LANGS.map((l) => (
        <button
          key={l}
          type="button"
          lang={l}
          class={`lang-option${l === current ? " is-current" : ""}`}
          aria-pressed={l === current ? "true" : "false"}
          onClick={() => setLang(l)}
        >
          {LANG_NAMES[l]}
        </button>
      ))}
    </div>
  );
}


/** A ring that empties as the time to a deadline runs out (the seat on turn wears it), by a CSS
 * animation from the time left when it appears, a step a second: no re-rendering while it runs. The whole ring
 * is the time left when the deadline was first seen; it turns red for the last five seconds. */
export function TurnRing({ deadline }: { deadline?: string }) {
  const offset = serverOffset();
  const { left, total } = useMemo(() => {
    const now = Date.now() + offset;
    const left = deadline ? Math.max(0, Date.parse(deadline) - now) : 0;
    return { left, total: Math.max(left, 1000) };
  }, [deadline]);
  if (!deadline) return null;
  const circumference = 2 * Math.PI * 16;
  const elapsed = Math.min(1, 1 - left / total);
  return (
    <svg
      class="turn-ring"
      viewBox="0 0 36 36"
      aria-hidden="true"
      focusable="false"
      key={deadline}
      style={{
        "--ring": circumference.toFixed(2),
        "--ring-from": (circumference * elapsed).toFixed(2),
        "--ring-left": `${left}ms`,
        "--ring-urgent": `${Math.max(0, left - 5000)}ms`,
        // One step a second: the ring ticks like the countdown, and the page paints it once a
        // second rather than every frame.
        "--ring-steps": String(Math.max(1, Math.round(left / 1000))),
      }}
    >
      <circle class="turn-ring-track" cx="18" cy="18" r="16" />
      <circle class="turn-ring-left" cx="18" cy="18" r="16" stroke-dasharray={circumference.toFixed(2)} transform="rotate(-90 18 18)" />
    </svg>
  );
}

/** A loudspeaker, with sound waves or crossed out. */
export function SpeakerIcon({ on }: { on: boolean }) {
  return (
    <svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d="M4 9h4l5-4v14l-5-4H4Z" fill="currentColor" />
      {on ? (
        <path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
      ) : (
        <path d="m16 9 5 6m0-6-5 6" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
      )}
    </svg>
  );
}

export function EloDelta({ delta }: { delta: number }) {
  const kind = delta > 0 ? "up" : delta < 0 ? "down" : "even";
  return (
    <span class={`elo-delta is-${kind}`} data-testid="elo-delta">
      {formatDelta(delta)}
    </span>
  );
}
