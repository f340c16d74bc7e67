// The open tables, live. The gateway streams them as Server-Sent Events (an `open_games` event at
// once and at every change, its data the body of GET /api/games/open); EventSource reconnects by
// itself after a dropped stream. When it keeps failing, or gives up (it does on an error answer),
// the list is read with GET /api/games/open instead, never more often than every 10 s, and the
// stream is tried again after a minute of that.

import { useEffect, useState } from "preact/hooks";
import { api, errorText, openGamesEventsUrl } from "./api";
import type { OpenGame } from "./types";

/** The shortest time between two reads of the list: no page polls faster. */
export const POLL_MS = 10_000;
/** Errors of the stream in a row (with no event between) before the list is polled instead. */
export const ERRORS_BEFORE_POLLING = 3;
/** How long the list is polled before the stream is tried again. */
export const STREAM_RETRY_MS = 60_000;

/** EventSource.CLOSED: the browser will not reconnect this one. */
const CLOSED = 2;

export interface SourceLike {
  readyState: number;
  onerror: ((ev: Event) => void) | null;
  addEventListener(type: "open_games", listener: (ev: MessageEvent<string>) => void): void;
  close(): void;
}

export interface FeedDeps {
  /** A new event stream, or null where the browser has no EventSource. */
  createSource(url: string): SourceLike | null;
  fetchList(): Promise<OpenGame[]>;
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Whether the page is seen: a hidden page skips its polls. */
  visible(): boolean;
}

export interface FeedHooks {
  onGames(games: OpenGame[]): void;
  /** Why the list cannot be read now; null once it can again. */
  onError(text: string | null): void;
}

export function browserFeedDeps(gameType?: string | null): FeedDeps {
  return {
    createSource: (url) => (typeof EventSource === "function" ? (new EventSource(url) as SourceLike) : null),
    fetchList: () => api.openGames(gameType),
    now: () => Date.now(),
    setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
    clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
    visible: () => typeof document === "undefined" || document.visibilityState !== "hidden",
  };
}

/** The games of an event's data (the body of GET /api/games/open), or null when it is not one. */
export function gamesOf(data: string): OpenGame[] | null {
  try {
    const body = JSON.parse(data) as { games?: unknown };
    return Array.isArray(body?.games) ? (body.games as OpenGame[]) : null;
  } catch {
    return null;
  }
}

export class OpenGamesFeed {
  private source: SourceLike | null = null;
  private errors = 0;
  private timer: unknown = null;
  private lastPoll = -Infinity;
  private pollsLeft = 0;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly hooks: FeedHooks,
    private readonly deps: FeedDeps,
  ) {}

  /** "stream" while the events come, "polling" while the list is read every 10 s. */
  get mode(): "stream" | "polling" | "stopped" {
    return this.stopped ? "stopped" : this.source ? "stream" : "polling";
  }

  start(): void {
    this.openStream();
  }

  stop(): void {
    this.stopped = true;
    this.closeStream();
    this.clearTimer();
  }

  private openStream(): void {
    this.errors = 0;
    let source: SourceLike | null = null;
    try {
      source = this.deps.createSource(this.url);
    } catch {
      source = null; // a browser that refuses the stream: the polls still work
    }
    if (!source) return this.startPolling();
    this.source = source;
    source.addEventListener("open_games", (event) => {
      if (this.source !== source) return;
      const games = gamesOf(event.data);
      if (!games) return;
      this.errors = 0;
      this.hooks.onGames(games);
      this.hooks.onError(null);
    });
    source.onerror = () => {
      if (this.source !== source) return;
      this.errors += 1;
      if (source.readyState === CLOSED || this.errors >= ERRORS_BEFORE_POLLING) {
        this.closeStream();
        this.startPolling();
      }
    };
  }

  private closeStream(): void {
    if (!this.source) return;
    this.source.onerror = null;
    this.source.close();
    this.source = null;
  }

  private startPolling(): void {
    this.pollsLeft = Math.round(STREAM_RETRY_MS / POLL_MS);
    // The first read waits too if the last one was less than 10 s ago (a stream that failed
    // again right after the last poll).
    this.schedule(Math.max(0, this.lastPoll + POLL_MS - this.deps.now()));
  }

  private schedule(ms: number): void {
    this.clearTimer();
    this.timer = this.deps.setTimeout(() => {
      this.timer = null;
      if (this.stopped) return;
      if (this.pollsLeft <= 0) return this.openStream();
      this.pollsLeft -= 1;
      void this.poll();
      this.schedule(POLL_MS);
    }, ms);
  }

  private async poll(): Promise<void> {
    if (!this.deps.visible()) return;
    this.lastPoll = this.deps.now();
    try {
      const games = await this.deps.fetchList();
      if (this.stopped) return;
      this.hooks.onGames(games);
      this.hooks.onError(null);
    } catch (e) {
      if (!this.stopped) this.hooks.onError(errorText(e));
    }
  }

  private clearTimer(): void {
    if (this.timer !== null) this.deps.clearTimeout(this.timer);
    this.timer = null;
  }
}

export interface OpenGamesState {
  /** Null until the list is first read. */
  games: OpenGame[] | null;
  error: string | null;
}

/** The open games, kept current while the component is shown. */
export function useOpenGames(gameType?: string | null, deps?: FeedDeps): OpenGamesState {
  const [state, setState] = useState<OpenGamesState>({ games: null, error: null });
  useEffect(() => {
    const feed = new OpenGamesFeed(
      openGamesEventsUrl(gameType),
      {
        onGames: (games) => setState({ games, error: null }),
        onError: (error) => setState((s) => (s.error === error ? s : { ...s, error })),
      },
      deps ?? browserFeedDeps(gameType),
    );
    feed.start();
    return () => feed.stop();
  }, [gameType, deps]);
  return state;
}
