import { describe, expect, it } from "vitest";
import { markSeen, missedMoves, movesIn, movesNow, newest, seenMoves, type SeenStore } from "../src/sinceleft";
import type { LogMove } from "../src/types";

class MemoryStore implements SeenStore {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
  get length() {
    return this.items.size;
  }
  key(i: number) {
    return [...this.items.keys()][i] ?? null;
  }
}

const move = (number: number, type: string, seat: string | null, payload: Record<string, unknown> = {}, auto = false): LogMove =>
  ({ number, type, seat, payload, auto });

const LOG: LogMove[] = [
  move(1, "commit", "seat:0", { commitment: "ab" }),
  move(2, "play", "seat:1", { card: "05S", capture: [] }),
  move(3, "play", "seat:2", { card: "07D", capture: ["03S", "04B"] }),
  move(4, "auto_play", "seat:3", { card: "01C", capture: [] }, true),
  move(5, "ack", "seat:0"),
  move(6, "continue", null, {}, true),
  move(7, "play", "seat:0", { card: "10C", capture: [] }),
];

describe("missedMoves", () => {
  it("lists the plays and new hands after the moves seen, oldest first, and nothing else", () => {
    expect(missedMoves(LOG, 2)).toEqual([
      { kind: "play", seat: 2, card: "07D", capture: ["03S", "04B"], auto: false },
      { kind: "play", seat: 3, card: "01C", capture: [], auto: true },
      { kind: "hand" },
      { kind: "play", seat: 0, card: "10C", capture: [], auto: false },
    ]);
  });

  it("is empty when everything was seen, and skips a move it cannot read", () => {
    expect(missedMoves(LOG, 7)).toEqual([]);
    expect(missedMoves([move(1, "play", "seat:9", { card: "05S" }), move(2, "play", "seat:1", {})], 0)).toEqual([]);
  });
});

describe("seen marks", () => {
  it("remember per game how many moves were seen, never going back", () => {
    const store = new MemoryStore();
    expect(seenMoves(store, "g1")).toBeNull();
    markSeen(store, "g1", 4, 1000);
    markSeen(store, "g1", 2, 2000);
    expect(seenMoves(store, "g1")).toBe(4);
    markSeen(store, "g1", 7, 3000);
    expect(seenMoves(store, "g1")).toBe(7);
    expect(seenMoves(store, "g2")).toBeNull();
  });

  it("read a broken mark as none", () => {
    const store = new MemoryStore();
    store.setItem("tavolo.seen.g1", "{not json");
    expect(seenMoves(store, "g1")).toBeNull();
  });

  it("keep the 60 most recent games only", () => {
    const store = new MemoryStore();
    store.setItem("tavolo.lang", "it");
    for (let i = 0; i < 61; i++) markSeen(store, `g${i}`, 1, 1000 + i);
    expect(seenMoves(store, "g0")).toBeNull();
    expect(seenMoves(store, "g1")).toBe(1);
    expect(seenMoves(store, "g60")).toBe(1);
    expect(store.getItem("tavolo.lang")).toBe("it");
  });
});

describe("counting moves", () => {
  it("reads a log's count from its last move, and follows the revisions while the table is open", () => {
    expect(movesIn(LOG)).toBe(7);
    expect(movesIn([])).toBe(0);
    expect(movesNow({ moves: 7, revision: 9 }, 12)).toBe(10);
    expect(movesNow({ moves: 7, revision: 9 }, 8)).toBe(7);
  });

  it("shows the newest plays and counts the earlier ones", () => {
    const missed = missedMoves(LOG, 0);
    expect(newest(missed, 2)).toEqual({ shown: missed.slice(3), earlier: 3 });
    expect(newest(missed, 10)).toEqual({ shown: missed, earlier: 0 });
  });
});
