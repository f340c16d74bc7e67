// Table talk (CONTRACT, Table talk), as the chat drawer shows it: the messages of the table folded
// from the history (GET /api/games/<id>/chat) and the socket's `said`, the unread count of a
// closed drawer, the players this member muted (their messages disappear at once), when free text
// may be sent and why not, and the words for a refused message. Pure, so it is tested without a
// browser; the drawer (chatdrawer.tsx) only draws it.

import { tx, type Lang } from "./i18n";
import type { ChatMessage, Phrase } from "./types";

/** The most messages kept on the page (the server's history holds the last 100). */
export const KEEP_MESSAGES = 200;
/** The longest free text the server takes, once trimmed. */
export const MAX_TEXT_CHARS = 200;
/** The prefix of the `id` of a `say` this page sends: an error echoing it belongs to the drawer. */
export const SAY_ID_PREFIX = "say-";

/** Who reads the drawer: a seated player (their seat) or a spectator (their player id). */
export interface Reader {
  seat?: number | null;
  player?: string | null;
}

export interface ChatError {
  code: string;
  message: string;
  /** Distinguishes two equal errors in a row, so each one is said again. */
  serial: number;
}

export interface ChatState {
  /** Every message kept, oldest first, muted players' included (they are hidden, not dropped). */
  messages: ChatMessage[];
  /** Messages that came while the drawer was closed, from others, not muted. */
  unread: number;
  open: boolean;
  /** The player ids this member muted. */
  muted: ReadonlySet<string>;
  error: ChatError | null;
  /** The newest message of someone else that came live (not from the history), to announce. */
  latest: ChatMessage | null;
}

export const initialChat: ChatState = { messages: [], unread: 0, open: false, muted: new Set(), error: null, latest: null };

export type ChatEvent =
  /** The history read over REST: the messages already there when the page opened are read. */
  | { type: "history"; messages: ChatMessage[] }
  /** A `said` from the socket. */
  | { type: "said"; message: ChatMessage; reader: Reader }
  | { type: "open" }
  | { type: "close" }
  /** The muted players, read from GET /api/me/muted. */
  | { type: "muted"; players: string[] }
  | { type: "mute"; player: string }
  | { type: "unmute"; player: string }
  /** A `say` was refused (an `error` echoing a say's id). */
  | { type: "error"; code: string; message: string }
  | { type: "dismiss" };

/** The member's public player id, when GET /api/me carries it. */
export function playerIdOf(me: object | null | undefined): string | null {
  const player = (me as { player?: unknown } | null | undefined)?.player;
  return typeof player === "string" ? player : null;
}

/** The author's player id, when the message carries one (a bot has none). */
export function authorOf(message: ChatMessage): string | null {
  return message.from.player ?? null;
}

export function isSpectatorMessage(message: ChatMessage): boolean {
  return "spectator" in message.from && message.from.spectator === true;
}

/** Whether the reader wrote the message (their own messages are never unread). */
export function isOwn(message: ChatMessage, reader: Reader): boolean {
  const from = message.from;
  if (reader.player && from.player === reader.player) return true;
  return !isSpectatorMessage(message) && reader.seat !== null && reader.seat !== undefined &&
    "seat" in from && from.seat === reader.seat;
}

/** The messages to show: a muted player's are left out (the server stops sending them, and the
 * ones already on the page go at once). */
export function visibleMessages(state: Pick<ChatState, "messages" | "muted">): ChatMessage[] {
  if (state.muted.size === 0) return state.messages;
  return state.messages.filter((m) => {
    const author = authorOf(m);
    return author === null || !state.muted.has(author);
  });
}

/** Messages merged by id (a message met in the history and on the socket is kept once), in the
 * order they were said, the newest KEEP_MESSAGES. */
export function mergeMessages(current: readonly ChatMessage[], incoming: readonly ChatMessage[]): ChatMessage[] {
  const byId = new Map<string, ChatMessage>();
  for (const m of current) byId.set(m.id, m);
  for (const m of incoming) byId.set(m.id, m);
  const merged = [...byId.values()];
  // ISO timestamps of one format sort as strings; a stable sort keeps arrival order for ties.
  merged.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return merged.slice(-KEEP_MESSAGES);
}

export function reduceChat(state: ChatState, event: ChatEvent): ChatState {
  switch (event.type) {
    case "history":
      return { ...state, messages: mergeMessages(state.messages, event.messages) };
    case "said": {
      const known = state.messages.some((m) => m.id === event.message.id);
      if (known) return state;
      const author = authorOf(event.message);
      const fromOthers = !isOwn(event.message, event.reader) && !(author && state.muted.has(author));
      return {
        ...state,
        messages: mergeMessages(state.messages, [event.message]),
        unread: fromOthers && !state.open ? state.unread + 1 : state.unread,
        latest: fromOthers ? event.message : state.latest,
      };
    }
    case "open":
      return { ...state, open: true, unread: 0 };
    case "close":
      return { ...state, open: false, unread: 0 };
    case "muted":
      return { ...state, muted: new Set(event.players) };
    case "mute":
      return { ...state, muted: new Set([...state.muted, event.player]) };
    case "unmute": {
      const muted = new Set(state.muted);
      muted.delete(event.player);
      return { ...state, muted };
    }
    case "error":
      return { ...state, error: { code: event.code, message: event.message, serial: (state.error?.serial ?? 0) + 1 } };
    case "dismiss":
      return { ...state, error: null };
  }
}

/** The statuses in which free text may be sent (CONTRACT: the lobby, a hand's end, the game
 * over); during `seeding` and `playing` only quick phrases. */
export function textAllowed(status: string | null | undefined): boolean {
  return status === "lobby" || status === "hand_end" || status === "finished";
}

/** Why the text field is disabled, said beside it; empty when text is allowed. */
export function textClosedReason(status: string | null | undefined): string {
  if (textAllowed(status)) return "";
  return tx(
    "While cards are in play only quick phrases: write again at the end of the hand.",
    "Mentre si gioca solo frasi rapide: potrai scrivere a fine mano.",
  );
}

/** What is wrong with a text before it is sent (the server checks it again); empty when fine. */
export function textProblem(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length === 0) return tx("Write something first.", "Scrivi qualcosa prima.");
  if ([...trimmed].length > MAX_TEXT_CHARS) {
    return tx(`At most ${MAX_TEXT_CHARS} characters.`, `Al massimo ${MAX_TEXT_CHARS} caratteri.`);
  }
  if (/^\p{Cf}*$/u.test(trimmed)) return tx("Write something first.", "Scrivi qualcosa prima.");
  // The server's rule (talk.models.clean_text): Cc, the line separators and the bidi controls.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(trimmed)) {
    return tx("Line breaks and control characters cannot be sent.", "A capo e caratteri di controllo non si possono inviare.");
  }
  return "";
}

/** A phrase's text in the page's language; its id when the catalogue does not know it. */
export function phraseText(phrases: readonly Phrase[], id: string, language: Lang): string {
  const phrase = phrases.find((p) => p.id === id);
  if (!phrase) return id.replace(/_/g, " ");
  return phrase.text[language] || phrase.text.en || id;
}

/** What a message says, as text (never HTML): the phrase in the page's language, or the text. */
export function messageText(message: ChatMessage, phrases: readonly Phrase[], language: Lang): string {
  if (message.phrase) return phraseText(phrases, message.phrase, language);
  return message.text ?? "";
}

/** The words for a refused message. */
export function chatErrorText(error: Pick<ChatError, "code" | "message">): string {
  switch (error.code) {
    case "chat_closed":
      return tx(
        "Not sent: while cards are in play only quick phrases are allowed.",
        "Non inviato: mentre si gioca sono ammesse solo le frasi rapide.",
      );
    case "rate_limited":
      return tx(
        "Not sent: too many messages at once. Wait a second and try again.",
        "Non inviato: troppi messaggi insieme. Aspetta un secondo e riprova.",
      );
    case "bad_request":
      return tx(
        `Not sent: the message was refused (${error.message}).`,
        `Non inviato: il messaggio è stato rifiutato (${error.message}).`,
      );
    default:
      return error.message || tx("Not sent.", "Non inviato.");
  }
}

/** "12:07": when a message was said, in the browser's time zone. */
export function timeOf(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
}

/** Whether a socket message is the answer to one of this page's `say`s. */
export function isSayAnswer(message: { type: string; id?: string | null }): boolean {
  return message.type === "error" && typeof message.id === "string" && message.id.startsWith(SAY_ID_PREFIX);
}

let saySerial = 0;

/** A fresh id for a `say` (the error answering it echoes it). */
export function nextSayId(): string {
  saySerial += 1;
  return `${SAY_ID_PREFIX}${Date.now().toString(36)}-${saySerial}`;
}
