// The REST client of the contract. Every error is an ApiError carrying the server's `detail`.

import { noteServerDate } from "./clock";
import { tx } from "./i18n";
import type {
  Analysis,
  AnyView,
  ChatMessage,
  FollowedPlayer,
  GameLog,
  GameType,
  GameView,
  Invitation,
  Leaderboard,
  LeaveAnswer,
  LiveGame,
  LobbyView,
  MatchPage,
  Me,
  MutedPlayer,
  MyGame,
  OpenGames,
  Options,
  Phrase,
  PlayerName,
  PlayerPage,
  Preview,
  PushKey,
  PushSubscriptionBody,
  Provider,
  QuickMatchRequest,
  Rating,
  Settings,
  WatchedView,
} from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** A 429's Retry-After: whole seconds until the server takes the call again. */
    readonly retryAfter: number | null = null,
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

/** The Retry-After header in whole seconds (the gateway sends delay-seconds); null when absent
 * or an HTTP date. */
export function retryAfterSeconds(header: string | null): number | null {
  if (header === null || !/^\s*\d+\s*$/.test(header)) return null;
  return Number(header);
}

/** "a moment", "a second", "40 seconds", "2 minutes": how long to wait, for errorText. */
function waitWords(seconds: number | null): string {
  if (seconds === null) return tx("a moment", "un momento");
  if (seconds <= 1) return tx("a second", "un secondo");
  if (seconds < 90) return tx(`${seconds} seconds`, `${seconds} secondi`);
  const minutes = Math.round(seconds / 60);
  return tx(`${minutes} minutes`, `${minutes} minuti`);
}

/** What to tell the player of a failed call: the server's detail, else the error itself; a
 * rate limit's 429 in the player's words, with the wait the server named (a player who tries
 * again "in a moment" when the wait is a minute is only refused again). */
export function errorText(e: unknown): string {
  if (e instanceof ApiError && e.status === 429) {
    const wait = waitWords(e.retryAfter);
    return tx(
      `Too many requests in a short time, so nothing was done: wait ${wait} and try again.`,
      `Troppe richieste in poco tempo, quindi non è stato fatto niente: aspetta ${wait} e riprova.`,
    );
  }
  return e instanceof ApiError ? e.detail : String(e);
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const sent = Date.now();
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? { Accept: "application/json" } : {
        Accept: "application/json",
        "Content-Type": "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, tx("The server cannot be reached. Check your connection and try again.", "Il server non è raggiungibile. Controlla la connessione e riprova."));
  }
  noteServerDate(response.headers.get("date"), sent, Date.now());
  if (response.status === 204) return undefined as T;
  let data: unknown = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const detail =
      data && typeof data === "object" && typeof (data as { detail?: unknown }).detail === "string"
        ? (data as { detail: string }).detail
        : tx(`The server answered ${response.status}`, `Il server ha risposto ${response.status}`);
    throw new ApiError(response.status, detail, retryAfterSeconds(response.headers.get("retry-after")));
  }
  return data as T;
}

export const api = {
  me: () => request<Me>("GET", "/api/me"),
  providers: async () => (await request<{ providers: Provider[] }>("GET", "/api/auth/providers")).providers,
  gameTypes: () => request<GameType[]>("GET", "/api/game-types"),
  /** With ``open``, the game is listed for anyone to join (sent only then: the field is new);
   * ``spectators`` false keeps it from being watched (sent only then: watching is the default). */
  createGame: (game_type: string, options: Options, open = false, spectators = true) =>
    request<LobbyView>("POST", "/api/games", {
      game_type, options, ...(open ? { open } : {}), ...(spectators ? {} : { spectators: false }),
    }),
  /** "Play now": a seat at an open game (the lobby, or the game view when it filled the table),
   * or a new open game with the caller at seat 0. */
  quickMatch: (body: QuickMatchRequest = {}) => request<AnyView>("POST", "/api/games/quick", body),
  /** Games in the lobby anyone may join, newest first. */
  openGames: async (gameType?: string | null) =>
    (await request<OpenGames>("GET", `/api/games/open${queryString({ game_type: gameType })}`)).games,
  /** The creator lists the waiting game for anyone to join, or takes it off the list. */
  setOpen: (id: string, open: boolean) =>
    request<LobbyView>("POST", `/api/games/${encodeURIComponent(id)}/open`, { open }),
  joinGame: (code: string) => request<AnyView>("POST", "/api/games/join", { code }),
  preview: (code: string) =>
    request<Preview>("GET", `/api/games/preview?code=${encodeURIComponent(code)}`),
  game: (id: string) => request<AnyView>("GET", `/api/games/${encodeURIComponent(id)}`),
  log: (id: string) => request<GameLog>("GET", logUrl(id)),
  /** The caller's analysis of a finished game they sat in (404 "No analysis" when never asked). */
  analysis: (id: string) => request<Analysis>("GET", analysisUrl(id)),
  /** Ask for it: queued (202), or its current status when asked before (200). */
  askAnalysis: (id: string) => request<Analysis>("POST", analysisUrl(id)),
  myGames: async () => (await request<{ games: MyGame[] }>("GET", "/api/me/games")).games,
  matches: (query: { limit?: number; cursor?: string | null; gameType?: string | null }) =>
    request<MatchPage>("GET", `/api/me/matches${queryString({
      limit: query.limit, cursor: query.cursor, game_type: query.gameType,
    })}`),
  ratings: async () => (await request<{ ratings: Rating[] }>("GET", "/api/me/ratings")).ratings,
  leaderboard: (gameType: string, limit = 100) =>
    request<Leaderboard>("GET", `/api/leaderboard${queryString({ game_type: gameType, limit })}`),
  deleteMe: () => request<void>("DELETE", "/api/me"),
  rematch: (id: string) => request<AnyView>("POST", `/api/games/${encodeURIComponent(id)}/rematch`, {}),
  /** The creator seats a bot: the lobby, or the game view when this filled the last seat. */
  addBot: (id: string, seat: number, level: string) =>
    request<AnyView>("POST", `/api/games/${encodeURIComponent(id)}/bots`, { seat, level }),
  removeBot: (id: string, seat: number) =>
    request<LobbyView>("DELETE", `/api/games/${encodeURIComponent(id)}/bots/${seat}`),
  /** In the lobby: move to another empty seat. */
  takeSeat: (id: string, seat: number) =>
    request<LobbyView>("POST", `/api/games/${encodeURIComponent(id)}/seat`, { seat }),
  /** In the lobby: frees the seat. While playing: a bot plays it for the rest of the match. */
  leave: (id: string) => request<LeaveAnswer>("POST", `/api/games/${encodeURIComponent(id)}/leave`),
  /** Take back the seat a bot took over: the game view. */
  returnToSeat: (id: string) => request<GameView>("POST", `/api/games/${encodeURIComponent(id)}/return`),
  /** The quick phrases, in both languages (no session needed). */
  phrases: async () => (await request<{ phrases?: Phrase[] } | null>("GET", "/api/phrases"))?.phrases ?? [],
  /** The last messages of a table the caller may see, oldest first. */
  chat: async (id: string) =>
    (await request<{ messages?: ChatMessage[] } | null>("GET", `/api/games/${encodeURIComponent(id)}/chat`))?.messages ?? [],
  muted: async () => (await request<{ players?: MutedPlayer[] } | null>("GET", "/api/me/muted"))?.players ?? [],
  mute: (player: string) => request<void>("POST", "/api/me/muted", { player }),
  unmute: (player: string) => request<void>("DELETE", `/api/me/muted/${encodeURIComponent(player)}`),
  /** Report a message to the operators, with an optional reason. */
  report: (id: string, messageId: string, reason?: string) =>
    request<{ reported: boolean }>(
      "POST",
      `/api/games/${encodeURIComponent(id)}/chat/${encodeURIComponent(messageId)}/report`,
      reason ? { reason } : {},
    ),
  /** Started games anyone may watch, highest rated first. */
  liveGames: async (limit = 20, gameType?: string | null) =>
    (await request<{ games?: LiveGame[] } | null>("GET", `/api/games/live${queryString({ game_type: gameType, limit })}`))?.games ?? [],
  /** A game as a spectator sees it (the public lobby or the public view). */
  watch: (id: string) => request<WatchedView>("GET", `/api/games/${encodeURIComponent(id)}/watch`),
  /** A player's public page as the caller sees it (404 "Player not found"). */
  player: (player: string) => request<PlayerPage>("GET", `/api/players/${encodeURIComponent(player)}`),
  following: async () => (await request<{ players: FollowedPlayer[] }>("GET", "/api/me/following")).players,
  follow: (player: string) => request<void>("POST", "/api/me/following", { player }),
  unfollow: (player: string) => request<void>("DELETE", `/api/me/following/${encodeURIComponent(player)}`),
  blocked: async () => (await request<{ players: PlayerName[] }>("GET", "/api/me/blocked")).players,
  block: (player: string) => request<void>("POST", "/api/me/blocked", { player }),
  unblock: (player: string) => request<void>("DELETE", `/api/me/blocked/${encodeURIComponent(player)}`),
  settings: () => request<Settings>("GET", "/api/me/settings"),
  setSettings: (settings: Partial<Settings>) => request<Settings>("PUT", "/api/me/settings", settings),
  /** A seated player of a game in the lobby invites someone to it (204). */
  invite: (id: string, player: string) =>
    request<void>("POST", `/api/games/${encodeURIComponent(id)}/invite`, { player }),
  /** The caller's invitations that still hold, newest first. */
  invitations: async () => (await request<{ invitations: Invitation[] }>("GET", "/api/me/invitations")).invitations,
  /** The server's VAPID application server key (no session needed). */
  pushKey: () => request<PushKey>("GET", "/api/push/key"),
  /** The browser's push subscription, for `your_turn` and `invited` (201). */
  subscribePush: (subscription: PushSubscriptionBody) => request<void>("POST", "/api/me/push", subscription),
  /** The server forgets the subscription (204). */
  unsubscribePush: (endpoint: string) => request<void>("DELETE", "/api/me/push", { endpoint }),
};

let phrasesOnce: Promise<Phrase[]> | null = null;

/** The phrase catalogue changes only with a deploy: one request per page load is enough. */
export function phrasesCached(): Promise<Phrase[]> {
  phrasesOnce ??= api.phrases().catch((e) => {
    phrasesOnce = null;
    throw e;
  });
  return phrasesOnce;
}

/** "?a=1&b=x" of the given values, leaving out the empty ones. */
export function queryString(params: Record<string, string | number | null | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== null && value !== "")
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  return parts.length ? `?${parts.join("&")}` : "";
}

let typesOnce: Promise<GameType[]> | null = null;

/** The game types change only with a deploy: one request per page load is enough. */
export function gameTypesCached(): Promise<GameType[]> {
  typesOnce ??= api.gameTypes().catch((e) => {
    typesOnce = null;
    throw e;
  });
  return typesOnce;
}

/** The Server-Sent Events stream of the open games (an `open_games` event at every change). */
export function openGamesEventsUrl(gameType?: string | null): string {
  return `/api/games/open/events${queryString({ game_type: gameType })}`;
}

export function analysisUrl(id: string): string {
  return `/api/games/${encodeURIComponent(id)}/analysis`;
}

export function logUrl(id: string): string {
  return `/api/games/${encodeURIComponent(id)}/log`;
}
