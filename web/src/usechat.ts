// One table's talk for the screens: the history read when the page opens (and again when the
// socket comes back, for what it missed), the socket's `said` messages and the refusals of this
// page's `say`s, folded by chat.reduceChat; the phrases; muting, unmuting and reporting.

import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "preact/hooks";
import { api, errorText as apiErrorText, phrasesCached } from "./api";
import { initialChat, isSayAnswer, nextSayId, reduceChat, type ChatState, type Reader } from "./chat";
import { tx } from "./i18n";
import type { ChatMessage, Phrase, ServerMessage } from "./types";
import type { GameListener } from "./usegame";

export interface ChatConnection {
  state: ChatState;
  phrases: Phrase[];
  /** The names of the muted players, by player id (to offer "Unmute"). */
  mutedNames: ReadonlyMap<string, string>;
  /** Handed to useGame: takes `said` and the errors answering a `say`. */
  listener: GameListener;
  /** Read the history again (the game finished: the spectators' messages are the players' too). */
  refresh(): void;
  open(): void;
  close(): void;
  /** Send a phrase or a text with the game's socket; false (and an error shown) when it is closed. */
  say(send: (action: object) => boolean, what: { phrase: string } | { text: string }): boolean;
  mute(player: string, name: string): Promise<void>;
  unmute(player: string): Promise<void>;
  report(messageId: string, reason: string): Promise<void>;
  dismiss(): void;
}

/** `reader` is asked at each message: who reads changes as the view comes (the seat). */
export function useChat(id: string, reader: () => Reader): ChatConnection {
  const [state, dispatch] = useReducer(reduceChat, initialChat);
  const [phrases, setPhrases] = useState<Phrase[]>([]);
  const [mutedNames, setMutedNames] = useState<ReadonlyMap<string, string>>(new Map());
  const readerRef = useRef(reader);
  readerRef.current = reader;

  const loadHistory = useCallback(() => {
    api.chat(id).then(
      (messages) => dispatch({ type: "history", messages }),
      () => undefined, // the table shows without its past talk; new messages still come
    );
  }, [id]);

  useEffect(() => {
    loadHistory();
    phrasesCached().then(setPhrases, () => undefined);
    api.muted().then(
      (players) => {
        dispatch({ type: "muted", players: players.map((p) => p.player) });
        setMutedNames(new Map(players.map((p) => [p.player, p.name])));
      },
      () => undefined,
    );
  }, [id, loadHistory]);

  const listener = useMemo<GameListener>(() => ({
    onMessage: (message: ServerMessage) => {
      if (message.type === "said") {
        const { type: _type, ...said } = message;
        dispatch({ type: "said", message: said as ChatMessage, reader: readerRef.current() });
        return true;
      }
      if (message.type === "error" && isSayAnswer(message)) {
        dispatch({ type: "error", code: message.code, message: message.message });
        return true;
      }
      return false;
    },
    onReconnected: loadHistory,
  }), [loadHistory]);

  const say = useCallback((send: (action: object) => boolean, what: { phrase: string } | { text: string }) => {
    const ok = send({ action: "say", ...what, id: nextSayId() });
    if (!ok) {
      dispatch({
        type: "error",
        code: "offline",
        message: tx("Not sent: the table is not connected. Try again in a moment.", "Non inviato: il tavolo non è connesso. Riprova tra un momento."),
      });
    } else {
      dispatch({ type: "dismiss" });
    }
    return ok;
  }, []);

  const mute = useCallback(async (player: string, name: string) => {
    try {
      await api.mute(player);
    } catch (e) {
      dispatch({ type: "error", code: "mute", message: apiErrorText(e) });
      throw e;
    }
    dispatch({ type: "mute", player });
    setMutedNames((names) => new Map([...names, [player, name]]));
  }, []);

  const unmute = useCallback(async (player: string) => {
    try {
      await api.unmute(player);
    } catch (e) {
      dispatch({ type: "error", code: "unmute", message: apiErrorText(e) });
      throw e;
    }
    dispatch({ type: "unmute", player });
    setMutedNames((names) => {
      const next = new Map(names);
      next.delete(player);
      return next;
    });
    loadHistory(); // their messages the server kept from this member come back
  }, [loadHistory]);

  const report = useCallback(async (messageId: string, reason: string) => {
    await api.report(id, messageId, reason.trim() || undefined);
  }, [id]);

  return {
    state,
    phrases,
    mutedNames,
    listener,
    refresh: loadHistory,
    open: useCallback(() => dispatch({ type: "open" }), []),
    close: useCallback(() => dispatch({ type: "close" }), []),
    say,
    mute,
    unmute,
    report,
    dismiss: useCallback(() => dispatch({ type: "dismiss" }), []),
  };
}
