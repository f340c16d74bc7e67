// One game's live connection for the screens: the first view over REST, then the socket's
// messages folded by gamestate.reduce. When the socket drops, GET /api/games/<id> tells why
// (a browser only ever sees close code 1006) and brings the view up to date meanwhile; a gateway
// that stops (1012) needs no such call, the socket just comes back. The socket stays open at a
// finished game, where a `rematch` invitation may come.

import { useCallback, useEffect, useReducer, useRef, useState } from "preact/hooks";
import { api, ApiError } from "./api";
import { asksForState, classifyLoadFailure, initialGameState, reduce, type GameState, type LoadFailure } from "./gamestate";
import { loadTrail, saveTrail } from "./plays";
import { GameSocket, gameSocketUrl, SERVICE_RESTART, watchSocketUrl, type ConnectionStatus } from "./socket";
import type { AnyView, ServerMessage } from "./types";
import { tx } from "./i18n";

export interface GameConnection {
  state: GameState;
  connection: ConnectionStatus;
  /** Set when the game cannot be shown at all (not seated, unknown game). */
  fatal: string | null;
  /** Send an action; false when the socket is not open. */
  send(action: object, revision?: number): boolean;
  /** Show a view a REST call answered (a bot seated, a seat taken back) before the socket's. */
  adopt(view: AnyView): void;
  dismissError(): void;
}

const COMMITMENT_KEY = (id: string) => `tavolo:commitment:${id}`;

/** The commitment shown during play, kept across reloads so the final check compares with it. */
export function rememberedCommitment(id: string): string | null {
  try {
    return localStorage.getItem(COMMITMENT_KEY(id));
  } catch {
    return null;
  }
}

function rememberCommitment(id: string, commitment: string): void {
  try {
    if (!localStorage.getItem(COMMITMENT_KEY(id))) localStorage.setItem(COMMITMENT_KEY(id), commitment);
  } catch {
    /* storage disabled: the check falls back on the commitment seen in this page */
  }
}

function failureOf(error: unknown, watch = false): LoadFailure {
  if (watch && error instanceof ApiError && error.status === 403) {
    return { kind: "fatal", message: tx("This game does not allow spectators.", "Questa partita non ammette spettatori.") };
  }
  if (error instanceof ApiError) return classifyLoadFailure(error.status === 0 ? null : error.status, error.detail);
  return { kind: "fatal", message: String(error instanceof Error ? error.message : error) };
}

/** What a game's connection hands to others: the messages the game state does not fold (table
 * talk), and the moment the socket is back (to read what it missed). */
export interface GameListener {
  /** True when the message was taken (it is not folded into the game state). */
  onMessage?(message: ServerMessage): boolean;
  onReconnected?(): void;
}

/** A spectator's connection: the public view (GET /api/games/<id>/watch) and /ws/games/<id>/watch. */
export interface ConnectionOptions {
  watch?: boolean;
  listener?: GameListener;
}

export function useGame(id: string, onUnauthenticated: () => void, options: ConnectionOptions = {}): GameConnection {
  const watch = Boolean(options.watch);
  const listenerRef = useRef<GameListener | undefined>(options.listener);
  listenerRef.current = options.listener;
  const read = (gameId: string): Promise<AnyView> => (watch ? api.watch(gameId) as Promise<AnyView> : api.game(gameId));
  const [state, dispatch] = useReducer(reduce, id, (gameId) => ({ ...initialGameState, trail: loadTrail(gameId) }));
  const [connection, setConnection] = useState<ConnectionStatus>("connecting");
  const [fatal, setFatal] = useState<string | null>(null);
  const socketRef = useRef<GameSocket | null>(null);
  const viewRef = useRef<AnyView | null>(null);
  /** The last action sent: a commit or reveal refused (sent again after a reload, or after the
   * phase moved on) is no error the player needs to see. */
  const lastActionRef = useRef<string | null>(null);
  viewRef.current = state.view;
  const unauth = useRef(onUnauthenticated);
  unauth.current = onUnauthenticated;

  useEffect(() => {
    let cancelled = false;
    let socket: GameSocket | null = null;

    const openSocket = () => {
      let last: ConnectionStatus | null = null;
      let opened = false;
      socket = new GameSocket(watch ? watchSocketUrl(id) : gameSocketUrl(id), {
        onStatus: (s) => {
          if (cancelled) return;
          if (s === "open" && last !== "open") {
            dispatch({ type: "connected" });
            if (opened) listenerRef.current?.onReconnected?.();
            opened = true;
          }
          last = s;
          setConnection(s);
        },
        onMessage: (message) => {
          if (cancelled) return;
          if (listenerRef.current?.onMessage?.(message)) return;
          const quiet =
            message.type === "error" &&
            message.code === "illegal_move" &&
            (lastActionRef.current === "commit" || lastActionRef.current === "reveal");
          if (!quiet) dispatch({ type: "message", message });
          // A spectator's socket takes no action but `say`: it never asks for the state again.
          if (!watch && asksForState(message, viewRef.current)) {
            socket?.send({ action: "state" });
          }
        },
        onClose: async (code, reason) => {
          if (cancelled) return false;
          if (code === 1008) {
            unauth.current();
            return false;
          }
          // The gateway stops (a rollout): nothing to learn, and every socket it had closes at
          // once; come back soon (GameSocket spreads the moments), the first state is whole.
          if (code === SERVICE_RESTART) return true;
          if (code === 1000 && reason === "Game not found") {
            setFatal(tx("Game not found: it expired before enough players joined.", "Partita non trovata: è scaduta prima che arrivassero abbastanza giocatori."));
            return false;
          }
          try {
            const view = await read(id);
            if (!cancelled) dispatch({ type: "view", view });
            return true; // a finished game too: its socket brings a rematch invitation
          } catch (error) {
            const failure = failureOf(error, watch);
            if (failure.kind === "unauthenticated") {
              unauth.current();
              return false;
            }
            if (failure.kind === "fatal") {
              setFatal(failure.message);
              return false;
            }
            return true; // the gateway is down or restarting: keep trying
          }
        },
      });
      socketRef.current = socket;
      socket.start();
    };

    read(id).then(
      (view) => {
        if (cancelled) return;
        dispatch({ type: "view", view });
        // A finished game's socket stays open too: another player's rematch arrives on it.
        openSocket();
      },
      (error) => {
        if (cancelled) return;
        const failure = failureOf(error, watch);
        if (failure.kind === "unauthenticated") return unauth.current();
        if (failure.kind === "fatal") return setFatal(failure.message);
        // The server is down or restarting (a reload during a deploy, a phone waking up with
        // no network yet): open the socket anyway. It retries with backoff under the
        // "Reconnecting…" banner, and its first message is the whole view.
        openSocket();
      },
    );

    const online = () => socket?.retryNow();
    window.addEventListener("online", online);
    return () => {
      cancelled = true;
      window.removeEventListener("online", online);
      socket?.stop();
      socketRef.current = null;
    };
  }, [id, watch]);

  // The hand's plays survive a reload of the page.
  const trail = state.trail;
  useEffect(() => {
    if (trail) saveTrail(id, trail);
  }, [id, trail]);

  const commitment = state.commitment;
  useEffect(() => {
    if (commitment) rememberCommitment(id, commitment);
  }, [id, commitment]);

  const send = useCallback((action: object, revision?: number) => {
    const ok = socketRef.current?.send(action) ?? false;
    if (ok) lastActionRef.current = String((action as { action?: unknown }).action ?? "");
    if (ok && revision !== undefined) {
      dispatch({ type: "sent", revision, play: (action as { action?: unknown }).action === "play" });
    }
    return ok;
  }, []);
  const adopt = useCallback((view: AnyView) => dispatch({ type: "view", view }), []);
  const dismissError = useCallback(() => dispatch({ type: "dismiss" }), []);

  return { state, connection, fatal, send, adopt, dismissError };
}

