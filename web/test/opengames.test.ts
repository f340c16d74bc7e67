// The open tables, live: the event stream while it works, GET /api/games/open every 10 s (never
// faster) once it keeps failing, and the stream again after a minute of that. A clock and timers
// of the test's own, a fake EventSource: nothing here waits for the wall clock.
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../src/api";
import {
  ERRORS_BEFORE_POLLING,
  gamesOf,
  OpenGamesFeed,
  POLL_MS,
  STREAM_RETRY_MS,
  type FeedDeps,
  type SourceLike,
} from "../src/opengames";
import type { OpenGame } from "../src/types";
import { openGame } from "./fixtures";

class FakeSource implements SourceLike {
  readyState = 0;
  onerror: ((ev: Event) => void) | null = null;
  closed = false;
  private listeners: ((ev: MessageEvent<string>) => void)[] = [];
  constructor(readonly url: string) {}
  addEventListener(_type: "open_games", listener: (ev: MessageEvent<string>) => void) {
    this.listeners.push(listener);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  /** The server sends the list. */
  send(games: OpenGame[]) {
    this.readyState = 1;
    this.listeners.forEach((l) => l({ data: JSON.stringify({ games }) } as MessageEvent<string>));
  }
  /** The stream fails: the browser will try again (CONNECTING), or gives up (CLOSED). */
  fail(givesUp = false) {
    this.readyState = givesUp ? 2 : 0;
    this.onerror?.(new Event("error"));
  }
}

/** A clock and timers that move only when the test says, the sources made and the polls sent. */
function harness({ eventSource = true, list = [openGame()] as OpenGame[] } = {}) {
  let now = 0;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  const sources: FakeSource[] = [];
  const polls: number[] = [];
  let failPolls: Error | null = null;
  let visible = true;
  const deps: FeedDeps = {
    createSource: (url) => {
      if (!eventSource) return null;
      const s = new FakeSource(url);
      sources.push(s);
      return s;
    },
    fetchList: async () => {
      polls.push(now);
      if (failPolls) throw failPolls;
      return list;
    },
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (id) => {
      timers = timers.filter((t) => t.id !== id);
    },
    visible: () => visible,
  };
  const received: (OpenGame[] | string | null)[] = [];
  const feed = new OpenGamesFeed("/api/games/open/events", {
    onGames: (games) => received.push(games),
    onError: (text) => received.push(text),
  }, deps);
  /** Moves the clock by ``ms``, running each timer that falls due, in order. */
  const advance = async (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      now = due.at;
      due.fn();
      await Promise.resolve();
      await Promise.resolve();
    }
    now = end;
  };
  return {
    feed, sources, polls, received, advance,
    latest: () => sources[sources.length - 1],
    failPollsWith: (e: Error | null) => void (failPolls = e),
    hide: (hidden: boolean) => void (visible = !hidden),
    pending: () => timers.length,
  };
}

let stopAll: (() => void)[] = [];
afterEach(() => {
  stopAll.forEach((stop) => stop());
  stopAll = [];
});

function started(options?: Parameters<typeof harness>[0]) {
  const h = harness(options);
  h.feed.start();
  stopAll.push(() => h.feed.stop());
  return h;
}

describe("the open tables' stream", () => {
  it("reads each open_games event and never polls while it works", async () => {
    const h = started();
    expect(h.sources.map((s) => s.url)).toEqual(["/api/games/open/events"]);
    const carol = openGame({ id: "a" });
    h.latest().send([carol]);
    h.latest().send([]);
    // EventSource reconnects by itself after a dropped stream: one or two errors are not a failure.
    h.latest().fail();
    h.latest().fail();
    h.latest().send([carol]);
    h.latest().fail();
    await h.advance(10 * 60_000);
    expect(h.polls).toEqual([]);
    expect(h.received.filter((r) => Array.isArray(r))).toEqual([[carol], [], [carol]]);
    expect(h.feed.mode).toBe("stream");
  });

  it("ignores data that is not the list", () => {
    expect(gamesOf("not json")).toBeNull();
    expect(gamesOf('{"detail": "x"}')).toBeNull();
    expect(gamesOf('{"games": []}')).toEqual([]);
  });
});

describe("the fallback when the stream keeps failing", () => {
  it(`polls at once after ${ERRORS_BEFORE_POLLING} errors in a row, then every 10 s, then tries the stream again`, async () => {
    const h = started();
    const stream = h.latest();
    for (let i = 0; i < ERRORS_BEFORE_POLLING; i++) stream.fail();
    expect(stream.closed).toBe(true);
    expect(h.feed.mode).toBe("polling");
    await h.advance(0);
    expect(h.polls).toEqual([0]);
    expect(h.received).toContainEqual([openGame()]);
    await h.advance(STREAM_RETRY_MS - 1);
    expect(h.polls).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    // A minute of polling: the stream is tried again, and it works.
    await h.advance(1);
    expect(h.sources).toHaveLength(2);
    h.latest().send([]);
    await h.advance(5 * 60_000);
    expect(h.polls).toHaveLength(6);
    expect(h.feed.mode).toBe("stream");
  });

  it("falls back at once when the browser gives the stream up, and never reads twice within 10 s", async () => {
    const h = started();
    h.latest().fail(true); // an error answer (a 503, say): EventSource will not reconnect
    await h.advance(0);
    expect(h.polls).toEqual([0]);
    await h.advance(STREAM_RETRY_MS);
    expect(h.sources).toHaveLength(2);
    h.latest().fail(true); // it fails again: back to polling, 10 s after the last read
    await h.advance(5 * 60_000);
    expect(h.polls.slice(0, 8)).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000]);
    const gaps = h.polls.slice(1).map((t, i) => t - h.polls[i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(POLL_MS);
  });

  it("polls where the browser has no EventSource", async () => {
    const h = started({ eventSource: false });
    await h.advance(30_000);
    expect(h.polls).toEqual([0, 10_000, 20_000, 30_000]);
  });

  it("says why a poll failed, and clears it when one works", async () => {
    const h = started({ eventSource: false });
    h.failPollsWith(new ApiError(503, "Service unavailable"));
    await h.advance(0);
    expect(h.received).toEqual(["Service unavailable"]);
    h.failPollsWith(null);
    await h.advance(POLL_MS);
    expect(h.received.slice(1)).toEqual([[openGame()], null]);
  });

  it("skips the polls of a hidden page", async () => {
    const h = started({ eventSource: false });
    h.hide(true);
    await h.advance(30_000);
    expect(h.polls).toEqual([]);
    h.hide(false);
    await h.advance(POLL_MS);
    expect(h.polls).toEqual([40_000]);
  });

  it("stops everything when the page goes", async () => {
    const h = started();
    h.latest().fail(true);
    h.feed.stop();
    await h.advance(5 * 60_000);
    expect(h.polls).toEqual([]);
    expect(h.pending()).toBe(0);
    expect(h.latest().closed).toBe(true);
  });
});
