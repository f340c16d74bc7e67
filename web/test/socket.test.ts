import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  BACKOFF_CAP_MS,
  GameSocket,
  gameSocketUrl,
  RESTART_MIN_MS,
  RESTART_SPREAD_MS,
  restartDelay,
  type ConnectionStatus,
  type SocketDeps,
  watchSocketUrl,
} from "../src/socket";
import type { ServerMessage } from "../src/types";

describe("backoffDelay", () => {
  it("starts at half a second", () => {
    expect(backoffDelay(0, () => 0)).toBe(500);
    expect(backoffDelay(0, () => 1)).toBe(500);
  });

  it("doubles its ceiling and jitters within its upper half", () => {
    expect(backoffDelay(2, () => 0)).toBe(1000);
    expect(backoffDelay(2, () => 1)).toBe(2000);
    expect(backoffDelay(3, () => 0.5)).toBe(3000);
  });

  it("never waits more than 10 s, however many attempts failed", () => {
    for (const attempt of [5, 6, 10, 50, 1000]) {
      expect(backoffDelay(attempt, () => 1)).toBe(BACKOFF_CAP_MS);
      expect(backoffDelay(attempt, () => 0)).toBe(BACKOFF_CAP_MS / 2);
    }
  });

  it("spreads clients that dropped together", () => {
    const waits = new Set([0.1, 0.3, 0.6, 0.9].map((r) => backoffDelay(4, () => r)));
    expect(waits.size).toBe(4);
  });
});

class FakeSocket {
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  readyState = 0;
  sent: string[] = [];
  closedByClient = false;
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.closedByClient = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({} as Event);
  }
  receive(message: object) {
    this.onmessage?.({ data: JSON.stringify(message) } as MessageEvent);
  }
  drop(code = 1006, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason } as CloseEvent);
  }
}

describe("restartDelay", () => {
  it("comes back within a couple of seconds, spread evenly", () => {
    expect(restartDelay(() => 0)).toBe(RESTART_MIN_MS);
    expect(restartDelay(() => 1)).toBe(RESTART_MIN_MS + RESTART_SPREAD_MS);
    expect(restartDelay(() => 0.5)).toBe(RESTART_MIN_MS + RESTART_SPREAD_MS / 2);
    expect(RESTART_MIN_MS + RESTART_SPREAD_MS).toBeLessThanOrEqual(2_500);
  });
});

function harness(decide: (code: number) => boolean, random: () => number = () => 1) {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const statuses: ConnectionStatus[] = [];
  const messages: ServerMessage[] = [];
  const closes: number[] = [];
  const deps: SocketDeps = {
    createSocket: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
    setTimeout: (fn, ms) => timers.push({ fn, ms }),
    clearTimeout: () => undefined,
    random,
  };
  const socket = new GameSocket("ws://x/ws/games/g", {
    onMessage: (m) => messages.push(m),
    onStatus: (s) => statuses.push(s),
    onClose: (code) => {
      closes.push(code);
      return decide(code);
    },
  }, deps);
  const flush = () => new Promise((r) => setTimeout(r, 0));
  return { socket, sockets, timers, statuses, messages, closes, flush };
}

describe("GameSocket", () => {
  it("reconnects after a drop, waiting longer after each failed attempt", async () => {
    const h = harness(() => true);
    h.socket.start();
    h.sockets[0].open();
    h.sockets[0].drop();
    await h.flush();
    expect(h.statuses).toContain("reconnecting");
    expect(h.timers.map((t) => t.ms)).toEqual([500]);
    h.timers[0].fn();
    h.sockets[1].drop(); // refused again (the server is still down)
    await h.flush();
    h.timers[1].fn();
    h.sockets[2].drop();
    await h.flush();
    expect(h.timers.map((t) => t.ms)).toEqual([500, 1000, 2000]);
  });

  it("starts the backoff afresh once the server answered", async () => {
    const h = harness(() => true);
    h.socket.start();
    h.sockets[0].drop();
    await h.flush();
    h.timers[0].fn();
    h.sockets[1].open();
    h.sockets[1].receive({ type: "error", code: "x", message: "y" });
    expect(h.messages).toHaveLength(1);
    expect(h.statuses.at(-1)).toBe("open");
    h.sockets[1].drop();
    await h.flush();
    expect(h.timers.map((t) => t.ms)).toEqual([500, 500]);
  });

  it("comes back soon after its gateway stops (1012), each client at its own moment", async () => {
    const waits: number[] = [];
    for (const r of [0, 0.25, 0.5, 0.75, 1]) {
      const h = harness(() => true, () => r);
      h.socket.start();
      h.sockets[0].open();
      h.sockets[0].receive({ type: "error", code: "x", message: "y" });
      h.sockets[0].drop(1012, "Service Restart");
      await h.flush();
      expect(h.closes).toEqual([1012]);
      expect(h.statuses.at(-1)).toBe("reconnecting"); // a notice, not the end
      expect(h.timers).toHaveLength(1);
      waits.push(h.timers[0].ms);
      h.timers[0].fn();
      expect(h.sockets).toHaveLength(2); // a new socket at the end of the wait
      // Refused by an overloaded replica: the usual backoff goes on from there.
      h.sockets[1].drop();
      await h.flush();
      expect(h.timers[1].ms).toBe(backoffDelay(1, () => r));
    }
    expect(new Set(waits).size).toBe(5);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(RESTART_MIN_MS);
      expect(wait).toBeLessThanOrEqual(RESTART_MIN_MS + RESTART_SPREAD_MS);
    }
  });

  it("gives up when the caller learns the drop is final (session ended, not seated)", async () => {
    const h = harness((code) => code !== 1008);
    h.socket.start();
    h.sockets[0].open();
    h.sockets[0].drop(1008, "Session ended");
    await h.flush();
    expect(h.closes).toEqual([1008]);
    expect(h.timers).toHaveLength(0);
    expect(h.statuses).not.toContain("reconnecting");
    expect(h.statuses.at(-1)).toBe("closed");
  });

  it("sends only while open, and stop() closes without reconnecting", async () => {
    const h = harness(() => true);
    h.socket.start();
    expect(h.socket.send({ action: "state" })).toBe(false);
    h.sockets[0].open();
    expect(h.socket.send({ action: "state" })).toBe(true);
    expect(h.sockets[0].sent).toEqual(['{"action":"state"}']);
    h.socket.stop();
    expect(h.sockets[0].closedByClient).toBe(true);
    expect(h.timers).toHaveLength(0);
  });

  it("builds ws and wss URLs from the page's own origin, asking for the features the app uses", () => {
    expect(gameSocketUrl("abc", { protocol: "http:", host: "localhost:5173" })).toBe(
      "ws://localhost:5173/ws/games/abc?features=presence,rematch,chat,spectators",
    );
    expect(gameSocketUrl("abc", { protocol: "https:", host: "tavolo.example" })).toBe(
      "wss://tavolo.example/ws/games/abc?features=presence,rematch,chat,spectators",
    );
  });

  it("opens a spectator's socket on /watch, asking for the spectators' talk, the count and presence", () => {
    expect(watchSocketUrl("a b", { protocol: "https:", host: "tavolo.example" })).toBe(
      "wss://tavolo.example/ws/games/a%20b/watch?features=chat,spectators,presence",
    );
  });
});
