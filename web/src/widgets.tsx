// Small pieces several screens share: the countdown, copy buttons, the reconnect banner, alerts.

import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { serverOffset } from "./clock";
import { formatSeconds, secondsLeft } from "./countdown";
import { tx } from "./i18n";
import type { GameType } from "./types";

/** Re-renders every quarter second while mounted: enough for a seconds display. */
function useNow(periodMs = 250): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), periodMs);
    return () => clearInterval(t);
  }, [periodMs]);
  return now;
}

export function Countdown({ deadline, label }: { deadline?: string; label: string }) {
  const seconds = secondsLeft(deadline, useNow(), serverOffset());
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

export function ReconnectBanner({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <div class="banner" role="status">
      {tx("Reconnecting…", "Riconnessione…")}{" "}
      <span class="banner-detail">
        {tx(
          "The connection to the table dropped; the game goes on and you will be back in a moment.",
          "La connessione al tavolo è caduta; la partita continua e tra un momento sarai di nuovo al tavolo.",
        )}
      </span>
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

/** Something that could not be loaded: ``what`` (ending in ": "), why, and a button to load it again. */
export function LoadFailed({ what, error, retry }: { what: string; error: string; retry: () => void }) {
  return (
    <>
      <Alert>
        {what}
        {error}
      </Alert>
      <p>
        <button type="button" class="button secondary" onClick={retry}>
          {tx("Try again", "Riprova")}
        </button>
      </p>
    </>
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
