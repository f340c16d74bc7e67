// The REST client of the contract. Every error is an ApiError carrying the server's `detail`.

import { noteServerDate } from "./clock";
import type {
  AnyView,
  GameLog,
  GameType,
  LobbyView,
  Me,
  MyGame,
  Options,
  Preview,
  Provider,
} from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = "ApiError";
  }
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
    throw new ApiError(0, "The server cannot be reached. Check your connection and try again.");
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
        : `The server answered ${response.status}`;
    throw new ApiError(response.status, detail);
  }
  return data as T;
}

export const api = {
  me: () => request<Me>("GET", "/api/me"),
  providers: async () => (await request<{ providers: Provider[] }>("GET", "/api/auth/providers")).providers,
  gameTypes: () => request<GameType[]>("GET", "/api/game-types"),
  createGame: (game_type: string, options: Options) =>
    request<LobbyView>("POST", "/api/games", { game_type, options }),
  joinGame: (code: string) => request<AnyView>("POST", "/api/games/join", { code }),
  preview: (code: string) =>
    request<Preview>("GET", `/api/games/preview?code=${encodeURIComponent(code)}`),
  game: (id: string) => request<AnyView>("GET", `/api/games/${encodeURIComponent(id)}`),
  log: (id: string) => request<GameLog>("GET", logUrl(id)),
  myGames: async () => (await request<{ games: MyGame[] }>("GET", "/api/me/games")).games,
};

let typesOnce: Promise<GameType[]> | null = null;

/** The game types change only with a deploy: one request per page load is enough. */
export function gameTypesCached(): Promise<GameType[]> {
  typesOnce ??= api.gameTypes().catch((e) => {
    typesOnce = null;
    throw e;
  });
  return typesOnce;
}

export function logUrl(id: string): string {
  return `/api/games/${encodeURIComponent(id)}/log`;
}
