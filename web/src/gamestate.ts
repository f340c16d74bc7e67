// What the app knows about one game, folded from REST answers and socket messages. Pure, so the
// ordering rules (a late REST answer never rolls the table back) are tested without a browser.

import type { AnyView, GameView, RematchNotice, ServerMessage, Scores, Team } from "./types";
import { isLobby } from "./types";
import { tx } from "./i18n";
import { extendTrail, finalSweep, type Sweep, type Trail } from "./plays";

/** The end of a hand seen as it happened: the view before its last play, the view after it, and
 * where the cards left on the table went. The table shows it before the hand's summary. */
export interface Ending {
  before: GameView;
  after: GameView;
  sweep: Sweep;
}

export interface ServerError {
  code: string;
  message: string;
  /** Distinguishes two equal errors in a row, so each one is shown. */
  serial: number;
}

export interface GameState {
  view: AnyView | null;
  /** The seed commitment as first seen during play: the deal check compares the seed with it. */
  commitment: string | null;
  gameOver: { scores: Scores; winner: Team } | null;
  error: ServerError | null;
  /** The revision a play was sent at: the hand is locked until a newer view or an error. */
  pendingRevision: number | null;
  /** Another player created the rematch of this finished game: the invitation to show. */
  rematch: RematchNotice | null;
  /** The revision at which this page last sent a play: the view right after it is that play's
   * (a practice player may take it back while nobody has played after it). */
  playedAt: number | null;
  /** The plays of the hand being played, kept from each view's `last_play`. */
  trail: Trail | null;
  /** The last view of a hand being played (null once a hand ended). */
  lastPlaying: GameView | null;
  /** The end of the latest hand this page saw happen. */
  ending: Ending | null;
}

export const initialGameState: GameState = {
  view: null,
  commitment: null,
  gameOver: null,
  error: null,
  pendingRevision: null,
  rematch: null,
  playedAt: null,
  trail: null,
  lastPlaying: null,
  ending: null,
};

export type GameEvent =
  /** A view read over REST (first load, or after the socket dropped). */
  | { type: "view"; view: AnyView }
  /** The socket (re)opened: a move sent before is either in the next state or lost. */
  | { type: "connected" }
  | { type: "message"; message: ServerMessage }
  /** An action was sent at this revision; `play` when it was a card. */
  | { type: "sent"; revision: number; play?: boolean }
  | { type: "dismiss" };

/** A view replaces the current one unless it is older: a lobby never replaces a started game,
 * and a game view never replaces one of a higher revision. */
export function isNewer(current: AnyView | null, next: AnyView): boolean {
  if (!current) return true;
  if (isLobby(next)) return isLobby(current);
  if (isLobby(current)) return true;
  return next.revision >= current.revision;
}

function withView(state: GameState, view: AnyView): GameState {
  if (!isNewer(state.view, view)) return state;
  const game = isLobby(view) ? null : (view as GameView);
  const changed = !game || state.view === null || isLobby(state.view) ||
    game.revision !== (state.view as GameView).revision;
  let ending = state.ending;
  const before = state.lastPlaying;
  if (game && game.status !== "playing" && before && before.hand_number === game.hand_number) {
    const sweep = finalSweep(before, game);
    if (sweep) ending = { before, after: game, sweep };
  }
  return {
    ...state,
    view,
    trail: game ? extendTrail(state.trail, game) : state.trail,
    lastPlaying: game ? (game.status === "playing" ? game : null) : state.lastPlaying,
    ending,
    commitment: state.commitment ?? game?.seed_commitment ?? null,
    gameOver:
      game?.status === "finished" && game.winner
        ? { scores: game.scores, winner: game.winner }
        : state.gameOver,
    pendingRevision: changed ? null : state.pendingRevision,
  };
}

/** Who is connected changed (a `presence` message): the players' `connected` marks follow it;
 * the game itself did not change. */
function withPresence(state: GameState, connected: number[]): GameState {
  const view = state.view;
  if (!view || isLobby(view)) return state;
  const players = view.players.map((p) => ({ ...p, connected: connected.includes(p.seat) }));
  return { ...state, view: { ...view, players } };
}

/** The number of watchers changed (a `spectators` message): the view's `spectators` follows it. */
function withWatchers(state: GameState, count: number): GameState {
  const view = state.view;
  if (!view || isLobby(view)) return state;
  return { ...state, view: { ...view, spectators: count } };
}

export function reduce(state: GameState, event: GameEvent): GameState {
  switch (event.type) {
    case "view":
      // A REST view is read after a drop: a move still pending then may never be answered, so
      // the hand is unlocked (a move sent twice is refused by the server, never played twice).
      return { ...withView(state, event.view), pendingRevision: null };
    case "connected":
      return { ...state, pendingRevision: null };
    case "sent":
      return {
        ...state,
        pendingRevision: event.revision,
        error: null,
        playedAt: event.play ? event.revision : state.playedAt,
      };
    case "dismiss":
      return { ...state, error: null };
    case "message": {
      const m = event.message;
      switch (m.type) {
        case "lobby":
        case "state":
          return withView(state, m.game);
        case "game_over":
          return { ...state, gameOver: { scores: m.scores, winner: m.winner } };
        case "rematch":
          return { ...state, rematch: { game_id: m.game_id, join_code: m.join_code, by: m.by } };
        case "presence":
          return withPresence(state, m.connected);
        case "spectators":
          return withWatchers(state, m.count);
        case "error":
          return {
            ...state,
            pendingRevision: null,
            error: { code: m.code, message: m.message, serial: (state.error?.serial ?? 0) + 1 },
          };
        default:
          return state;
      }
    }
  }
}

/**
 * The message shown for a refused move. The codes a player meets in normal play (a second tab
 * or device played first, a timeout played for them, the server hiccuped, too many moves in a
 * second) get a short sentence
 * that says what became of the move (the next view puts the table right); the rest keep the
 * server's own words (its `message` is for people, e.g. why a move is illegal).
 */
export function errorText(error: ServerError): string {
  switch (error.code) {
    case "concurrent_move":
      return tx("Too late: the table changed before your move arrived, so it was not played.", "Troppo tardi: il tavolo è cambiato prima che arrivasse la tua mossa, che non è stata giocata.");
    case "not_your_turn":
      return tx("Not your turn any more: your move was not played.", "Non è più il tuo turno: la tua mossa non è stata giocata.");
    case "unavailable":
      return tx("The server did not answer; nothing was played. Try again.", "Il server non ha risposto; non è stato giocato niente. Riprova.");
    case "game_finished":
      return tx("The game is over: no more moves.", "La partita è finita: niente più mosse.");
    case "rate_limited":
      return tx("One moment, please: too many moves at once, so that one was not played. Wait a second and play it again.", "Un momento, per favore: troppe mosse insieme, quella non è stata giocata. Aspetta un secondo e rigiocala.");
    default:
      return error.message || tx("The server refused the move.", "Il server ha rifiutato la mossa.");
  }
}

/**
 * Whether a socket message calls for a fresh `state`: a refused move at a started table, so the
 * table is surely right. Not `rate_limited`: nothing changed, and one more message would only be
 * refused again.
 */
export function asksForState(message: ServerMessage, view: AnyView | null): boolean {
  return message.type === "error" && message.code !== "rate_limited" && view !== null && view.status !== "lobby";
}

/** What to do when the first read of a game fails. */
export type LoadFailure =
  | { kind: "unauthenticated" }
  /** The game cannot be shown to this player at all: say why and stop. */
  | { kind: "fatal"; message: string }
  /** The server is down, restarting or briefly overloaded: keep trying. */
  | { kind: "retry" };

/**
 * Sort a failed GET /api/games/<id>. Only answers about the game itself are final (404, 403,
 * and 400 for an id the server rejects); no answer at all or a 5xx is a server that is
 * restarting, and the page must not give up on the table because of it.
 */
export function classifyLoadFailure(status: number | null, detail: string): LoadFailure {
  if (status === 401) return { kind: "unauthenticated" };
  if (status === 404) return { kind: "fatal", message: tx("Game not found. The link may be wrong, or the game has expired.", "Partita non trovata. Il link potrebbe essere sbagliato, o la partita è scaduta.") };
  if (status === 403) return { kind: "fatal", message: tx("You are not seated at this game. Ask a player for its join code.", "Non sei seduto a questa partita. Chiedi a un giocatore il codice per unirti.") };
  if (status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return { kind: "fatal", message: detail };
  }
  return { kind: "retry" };
}
