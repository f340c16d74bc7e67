// The chat drawer of a table: a button with the unread count (in the table's bar, or floating
// over the other screens of a game), and the drawer it opens: the messages (as text, never HTML),
// each with "Mute" and "Report"; the quick phrases as chips; a text field where free text is
// allowed (otherwise disabled, saying why); a refused message said clearly. The newest message of
// someone else is announced politely to screen readers whether the drawer is open or not.

import { useEffect, useRef, useState } from "preact/hooks";
import {
  authorOf,
  chatErrorText,
  isOwn,
  isSpectatorMessage,
  MAX_TEXT_CHARS,
  messageText,
  textAllowed,
  textClosedReason,
  textProblem,
  timeOf,
  visibleMessages,
  type Reader,
} from "./chat";
import { errorText as apiErrorText } from "./api";
import { PlayerLink } from "./playerlink";
import { tx, useLang } from "./i18n";
import type { ChatMessage } from "./types";
import type { ChatConnection } from "./usechat";

export function ChatIcon() {
  return (
    <svg class="chat-icon" viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
      <path
        d="M4 4h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H10l-4.5 3.6V17H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        stroke-linejoin="round"
      />
    </svg>
  );
}

export function EyeIcon() {
  return (
    <svg class="eye-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path d="M1.5 12S5.5 5 12 5s10.5 7 10.5 7-4 7-10.5 7S1.5 12 1.5 12z" fill="none" stroke="currentColor" stroke-width="2" />
      <circle cx="12" cy="12" r="3" fill="currentColor" />
    </svg>
  );
}

/** "3 watching": how many members watch the table (nothing while nobody does). */
export function WatcherCount({ count }: { count: number | null | undefined }) {
  if (!count) return null;
  const label = tx(`${count} watching`, `${count} spettator${count === 1 ? "e" : "i"}`);
  return (
    <span class="watchers" data-testid="watcher-count" role="img" aria-label={label} title={label}>
      <EyeIcon />
      <span aria-hidden="true">{count}</span>
    </span>
  );
}

/** The name of who said a message, as the drawer shows it. */
export function authorName(message: ChatMessage, reader: Reader): string {
  if (isOwn(message, reader)) return tx("You", "Tu");
  return message.from.name;
}

function MessageActions({ message, chat, onDone }: { message: ChatMessage; chat: ChatConnection; onDone: () => void }) {
  const [reporting, setReporting] = useState(false);
  const [reason, setReason] = useState("");
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [reported, setReported] = useState(false);
  const player = authorOf(message);
  const name = message.from.name;
  const firstRef = useRef<HTMLButtonElement>(null);
  // The keyboard lands on the first action when they open, and back on it when a report is sent
  // or cancelled (the form it was in is gone).
  useEffect(() => {
    if (!reporting) firstRef.current?.focus();
  }, [reporting]);

  const mute = async () => {
    if (!player) return;
    setBusy(true);
    try {
      await chat.mute(player, name);
      onDone();
    } catch {
      setBusy(false);
    }
  };
  const report = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await chat.report(message.id, reason);
      setStatus(tx("Reported: thank you. The operators will read it.", "Segnalato: grazie. Gli operatori lo leggeranno."));
      setReported(true);
      setReporting(false);
    } catch (error) {
      setStatus(apiErrorText(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="chat-actions" role="group" aria-label={tx(`Message of ${name}`, `Messaggio di ${name}`)}>
      {!reporting && (
        <>
          {player && (
            <button type="button" class="button small secondary" ref={firstRef} disabled={busy} onClick={mute}>
              {tx(`Mute ${name}`, `Silenzia ${name}`)}
            </button>
          )}
          {!reported && (
            <button type="button" class="button small secondary" ref={player ? undefined : firstRef} disabled={busy}
              onClick={() => setReporting(true)}>
              {tx("Report", "Segnala")}
            </button>
          )}
        </>
      )}
      {reporting && (
        <form class="chat-report" onSubmit={report}>
          <label>
            {tx("Why (optional)", "Perché (facoltativo)")}
            <input type="text" maxLength={200} value={reason} autoFocus
              onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <button type="submit" class="button small" disabled={busy}>{tx("Send the report", "Invia la segnalazione")}</button>
          <button type="button" class="button small secondary" onClick={() => setReporting(false)}>{tx("Cancel", "Annulla")}</button>
        </form>
      )}
      {status && <p class="chat-note" role="status">{status}</p>}
    </div>
  );
}

function MessageItem({ message, reader, chat }: { message: ChatMessage; reader: Reader; chat: ChatConnection }) {
  const lang = useLang();
  const [acting, setActing] = useState(false);
  const own = isOwn(message, reader);
  const who = authorName(message, reader);
  const spectator = isSpectatorMessage(message);
  const team = "seat" in message.from ? (message.from.seat % 2 === 0 ? "A" : "B") : null;
  return (
    <li class={`chat-message${own ? " is-own" : ""}${spectator ? " is-spectator" : ""}${message.phrase ? " is-phrase" : ""}`}
      data-testid="chat-message" data-message={message.id}>
      <span class="chat-meta">
        <strong class={`chat-who${team ? ` team-${team}` : ""}`}>
          {own ? who : <PlayerLink who={message.from} newTab>{who}</PlayerLink>}
        </strong>
        {spectator && <span class="chat-tag">{tx("spectator", "spettatore")}</span>}
        <time dateTime={message.at}>{timeOf(message.at)}</time>
        {!own && (
          <button type="button" class="chat-more" aria-expanded={acting ? "true" : "false"}
            aria-label={tx(`Mute or report ${message.from.name}`, `Silenzia o segnala ${message.from.name}`)}
            onClick={() => setActing(!acting)}>
            <span aria-hidden="true">⋯</span>
          </button>
        )}
      </span>
      {/* Text, never HTML: JSX escapes it. */}
      <span class="chat-text">{messageText(message, chat.phrases, lang)}</span>
      {acting && <MessageActions message={message} chat={chat} onDone={() => setActing(false)} />}
    </li>
  );
}

export function ChatDrawer({ chat, reader, status, send, spectator = false, watchers, placement }: {
  chat: ChatConnection;
  reader: Reader;
  /** The game's status: free text only in the lobby, at a hand's end and once finished. */
  status: string | null | undefined;
  send: (action: object) => boolean;
  /** The spectators' channel (a spectator's drawer). */
  spectator?: boolean;
  watchers?: number | null;
  /** In the table's bar, or floating over the other screens. */
  placement: "bar" | "float";
}) {
  const lang = useLang();
  const { state } = chat;
  const [draft, setDraft] = useState("");
  const [problem, setProblem] = useState("");
  const toggleRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLElement>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const shown = visibleMessages(state);
  const allowed = textAllowed(status);
  const reason = textClosedReason(status);
  const title = spectator ? tx("Spectators' talk", "Chat degli spettatori") : tx("Table talk", "Chat del tavolo");

  // The newest message of someone else that came live, announced politely (not the history).
  const latest = state.latest;
  const announced = latest && !state.muted.has(latest.from.player ?? "")
    ? tx(`${latest.from.name} says: `, `${latest.from.name} dice: `) + messageText(latest, chat.phrases, lang)
    : "";

  // On a wide screen the open drawer takes its own column: the table makes room beside it.
  useEffect(() => {
    document.body.classList.toggle("chat-open", state.open);
    return () => document.body.classList.remove("chat-open");
  }, [state.open]);

  // Keep the newest message in view while the drawer is open.
  useEffect(() => {
    if (state.open && listRef.current) listRef.current.scrollTop = listRef.current.scrollHeight;
  }, [state.open, shown.length]);

  // Escape closes the drawer and gives the keyboard back to its button.
  useEffect(() => {
    if (!state.open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      chat.close();
      toggleRef.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [state.open]);

  // Opening puts the keyboard in the drawer, on Close (the first of its controls): an Enter
  // there sends nothing by mistake, and Tab goes on to the phrases.
  useEffect(() => {
    if (state.open) panelRef.current?.querySelector<HTMLElement>(".chat-chip, .chat-close")?.focus();
  }, [state.open]);

  const submit = (e: Event) => {
    e.preventDefault();
    const found = textProblem(draft);
    setProblem(found);
    if (found || !allowed) return;
    if (chat.say(send, { text: draft.trim() })) setDraft("");
  };

  const unread = state.unread;
  const toggleLabel = unread > 0
    ? tx(`${title}, ${unread} unread`, `${title}, ${unread} non lett${unread === 1 ? "o" : "i"}`)
    : title;
  const mutedEntries = [...chat.mutedNames.entries()];

  return (
    <>
      <button
        type="button"
        ref={toggleRef}
        class={placement === "bar" ? "bar-icon chat-toggle" : "chat-toggle is-floating"}
        aria-expanded={state.open ? "true" : "false"}
        aria-controls="chat-drawer"
        aria-label={toggleLabel}
        title={title}
        data-testid="chat-toggle"
        onClick={() => (state.open ? chat.close() : chat.open())}
      >
        <ChatIcon />
        {unread > 0 && (
          <span class="chat-badge" data-testid="chat-unread" aria-hidden="true">{unread > 99 ? "99+" : unread}</span>
        )}
      </button>
      {/* A new node for each message, so one said twice in a row ("Good luck!") is read twice. */}
      <div class="visually-hidden" aria-live="polite" data-testid="chat-announcer">
        {announced && <span key={latest?.id}>{announced}</span>}
      </div>
      {state.open && (
        <section id="chat-drawer" class={`chat-drawer${spectator ? " is-spectators" : ""}`} ref={panelRef}
          aria-label={title} data-testid="chat-drawer">
          <header class="chat-head">
            <h2>{title}</h2>
            <WatcherCount count={watchers} />
            <button type="button" class="chat-close" aria-label={tx("Close the talk", "Chiudi la chat")}
              onClick={() => {
                chat.close();
                toggleRef.current?.focus();
              }}>
              <span aria-hidden="true">×</span>
            </button>
          </header>
          {spectator && (
            <p class="chat-channel" data-testid="chat-channel">
              {status === "finished"
                ? tx("The match is over: the players read this talk too.", "La partita è finita: ora anche i giocatori leggono questa chat.")
                : tx("Spectators only: the players do not read this until the match is over.", "Solo spettatori: i giocatori non la leggono fino alla fine della partita.")}
            </p>
          )}
          <ol class="chat-list" ref={listRef} aria-label={tx("Messages", "Messaggi")}>
            {shown.length === 0 && (
              <li class="chat-empty">
                {spectator
                  ? tx("Nothing said yet.", "Ancora niente.")
                  : tx("Nothing said yet: greet the table.", "Ancora niente: saluta il tavolo.")}
              </li>
            )}
            {shown.map((m) => <MessageItem key={m.id} message={m} reader={reader} chat={chat} />)}
          </ol>
          {state.error && (
            <p class="chat-error" role="alert" key={state.error.serial} data-testid="chat-error">
              {chatErrorText(state.error)}
            </p>
          )}
          <div class="chat-chips" role="group" aria-label={tx("Quick phrases", "Frasi rapide")}>
            {chat.phrases.map((p) => (
              <button type="button" class="chat-chip" key={p.id} data-phrase={p.id}
                onClick={() => chat.say(send, { phrase: p.id })}>
                {p.text[lang] || p.text.en}
              </button>
            ))}
          </div>
          <form class="chat-form" onSubmit={submit}>
            <label class="visually-hidden" for="chat-text">{tx("Your message", "Il tuo messaggio")}</label>
            <input
              id="chat-text"
              type="text"
              autoComplete="off"
              maxLength={MAX_TEXT_CHARS}
              disabled={!allowed}
              placeholder={allowed ? tx("Write to the table…", "Scrivi al tavolo…") : tx("Quick phrases only", "Solo frasi rapide")}
              aria-describedby={!allowed ? "chat-closed-reason" : problem ? "chat-problem" : undefined}
              value={draft}
              onInput={(e) => {
                setDraft((e.currentTarget as HTMLInputElement).value);
                setProblem("");
              }}
            />
            <button type="submit" class="button small" disabled={!allowed}>{tx("Send", "Invia")}</button>
          </form>
          {!allowed && <p class="chat-note" id="chat-closed-reason" data-testid="chat-closed-reason">{reason}</p>}
          {allowed && problem && <p class="chat-note is-problem" id="chat-problem" role="alert">{problem}</p>}
          {mutedEntries.length > 0 && (
            <details class="chat-muted">
              <summary>{tx(`Muted (${mutedEntries.length})`, `Silenziati (${mutedEntries.length})`)}</summary>
              <ul>
                {mutedEntries.map(([player, name]) => (
                  <li key={player}>
                    {name}{" "}
                    <button type="button" class="button small secondary" onClick={() => void chat.unmute(player).catch(() => undefined)}>
                      {tx(`Unmute ${name}`, `Riattiva ${name}`)}
                    </button>
                  </li>
                ))}
              </ul>
            </details>
          )}
        </section>
      )}
    </>
  );
}
