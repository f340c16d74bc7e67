// The game socket: one WebSocket per open table, reconnected with exponential backoff and jitter
// when it drops, and soon (jittered too) when its gateway stops (1012). Every `state` message is a complete view, so a reconnect needs no replay: the
// first message after it puts the table right.

import type { ServerMessage } from "./types";

export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 10_000;

/**
 * The wait before reconnect attempt `attempt` (0 for the first retry): the ceiling doubles from
 * 0.5 s up to 10 s, and the wait is drawn from its upper half ("equal jitter"), so many clients
 * dropped by one server restart do not come back in the same instant, yet none waits long.
 */
export function backoffDelay(
  attempt: number,
  random: () => number = Math.random,
  baseMs = BACKOFF_BASE_MS,
  capMs = BACKOFF_CAP_MS,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, Math.min(attempt, 30)));
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(Math.max(baseMs, ceiling * (0.5 + r / 2)));
}

/**
 * The close code of a gateway that stops (a rollout or a restart: "Service Restart"). Its sockets
 * all close at once, so each client comes back at its own moment within the spread: soon, but
 * not all in the same instant.
 */
export const SERVICE_RESTART = 1012;
export const RESTART_MIN_MS = 200;
export const RESTART_SPREAD_MS = 2_000;

/** The wait before reconnecting after a SERVICE_RESTART close: uniform over the spread. */
export function restartDelay(random: () => number = Math.random): number {
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(RESTART_MIN_MS + r * RESTART_SPREAD_MS);
}

export interface SocketHooks<M = ServerMessage> {
  onMessage(message: M): void;
  onStatus(status: ConnectionStatus): void;
  /**
   * The socket closed without our asking. Resolve true to reconnect, false to give up (the
   * caller has learned why, e.g. the session ended or the player is not seated).
   */
  onClose(code: number, reason: string): Promise<boolean> | boolean;
}

interface SocketLike {
  onopen: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
  onclose: ((ev: CloseEvent) => void) | null;
  onerror: ((ev: Event) => void) | null;
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export interface SocketDeps {
  createSocket(url: string): SocketLike;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  random(): number;
}

const browserDeps: SocketDeps = {
  createSocket: (url) => new WebSocket(url),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as number),
  random: Math.random,
};

const OPEN = 1;

/**
 * The message types the app asks for beyond the four every socket gets (lobby, state, game_over,
 * error): who is connected, a rematch invitation at a finished game, table talk (`said`) and the
 * number of watchers (`spectators`). A socket that does not ask never receives them
 * (docs/websocket.md, Socket features).
 */
export const SOCKET_FEATURES = ["presence", "rematch", "chat", "spectators"] as const;

/** What a spectator's socket asks for: the spectators' talk, the watcher count, who is connected. */
export const WATCH_FEATURES = ["chat", "spectators", "presence"] as const;

export function gameSocketUrl(id: string, loc: { protocol: string; host: string } = location): string {
  const scheme = loc.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${loc.host}/ws/games/${encodeURIComponent(id)}?features=${SOCKET_FEATURES.join(",")}`;
}

/** A spectator's socket: /ws/games/<id>/watch, the public view after every change. */
export function watchSocketUrl(id: string, loc: { protocol: string; host: string } = location): string {
  const scheme = loc.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${loc.host}/ws/games/${encodeURIComponent(id)}/watch?features=${WATCH_FEATURES.join(",")}`;
}

/** A socket of JSON messages reconnecting as above: a table's (the default), or the member's
 * (membersocket.ts). */
export class GameSocket<M = ServerMessage> {
  private socket: SocketLike | null = null;
  private timer: unknown = null;
  private attempt = 0;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly hooks: SocketHooks<M>,
    private readonly deps: SocketDeps = browserDeps,
  ) {}

  start(): void {
    this.stopped = false;
    this.connect(this.attempt === 0 ? "connecting" : "reconnecting");
  }

  /** Send an action; false when the socket is not open (the caller tells the player). */
  send(action: object): boolean {
    if (!this.socket || this.socket.readyState !== OPEN) return false;
    this.socket.send(JSON.stringify(action));
    return true;
  }

  /** Skip the wait (the browser came back online). */
  retryNow(): void {
    if (this.stopped || this.timer === null) return;
    this.deps.clearTimeout(this.timer);
    this.timer = null;
    this.connect("reconnecting");
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.deps.clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = socket.onmessage = socket.onerror = socket.onopen = null;
      socket.close(1000, "Leaving the table");
    }
    this.hooks.onStatus("closed");
  }

  private connect(status: ConnectionStatus): void {
    this.hooks.onStatus(status);
    const socket = this.deps.createSocket(this.url);
    this.socket = socket;
    socket.onmessage = (event) => {
      let message: M;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return; // the server sends JSON only; anything else is ignored
      }
      // A message means the server took us: the next drop starts the backoff afresh.
      this.attempt = 0;
      this.hooks.onStatus("open");
      this.hooks.onMessage(message);
    };
    socket.onopen = () => {
      if (this.socket === socket) this.hooks.onStatus("open");
    };
    socket.onclose = (event) => {
      if (this.socket !== socket || this.stopped) return;
      this.socket = null;
      void this.closed(event.code, event.reason);
    };
  }

  private async closed(code: number, reason: string): Promise<void> {
    // A drop of a working socket shows "Reconnecting…" at once; a session that ended does not.
    if (code !== 1008) this.hooks.onStatus("reconnecting");
    let retry = false;
    try {
      retry = await this.hooks.onClose(code, reason);
    } catch {
      retry = true;
    }
    if (this.stopped) return;
    if (!retry) {
      this.stopped = true;
      this.hooks.onStatus("closed");
      return;
    }
    const delay =
      code === SERVICE_RESTART ? restartDelay(this.deps.random) : backoffDelay(this.attempt, this.deps.random);
    this.attempt++;
    this.timer = this.deps.setTimeout(() => {
      this.timer = null;
      if (!this.stopped) this.connect("reconnecting");
    }, delay);
  }
}
