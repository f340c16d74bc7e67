// Player entropy (CONTRACT.md, Fairness; docs/fairness.md): before hand 1 each seat adds 32 random
// bytes of its own, so nobody, the server included, chooses the deals. The browser does it all by
// itself: it draws the bytes, keeps them in sessionStorage (a reload keeps them until the deal),
// sends their SHA-256 in phase `commit` and the bytes themselves in phase `reveal`, each once.

import { useEffect, useMemo, useState } from "preact/hooks";
import { bytesToHex, ENTROPY_BYTES } from "./fairness";
import type { AnyView, GameView } from "./types";

export type EntropyPhase = "commit" | "reveal";

/** The game view's `entropy` while its status is `seeding`. */
export interface EntropyState {
  phase: EntropyPhase;
  committed: number[];
  revealed: number[];
  deadline?: string;
}

/** The game view while seeding (it carries `entropy`). */
export type SeedingView = GameView;

export function isSeeding(view: AnyView | null | undefined): boolean {
  return Boolean(view) && (view!.status as string) === "seeding";
}

export function entropyOf(view: AnyView | null | undefined): EntropyState | null {
  if (!isSeeding(view)) return null;
  const e = (view as SeedingView).entropy;
  if (!e || (e.phase !== "commit" && e.phase !== "reveal")) return null;
  return { phase: e.phase, committed: e.committed ?? [], revealed: e.revealed ?? [], deadline: e.deadline };
}

export type SeatEntropy = "waiting" | "committed" | "revealed";

export function seatState(entropy: EntropyState, seat: number): SeatEntropy {
  if (entropy.revealed.includes(seat)) return "revealed";
  if (entropy.committed.includes(seat)) return "committed";
  return "waiting";
}

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export interface EntropyDeps {
  /** Fills the array with random bytes (crypto.getRandomValues). */
  random(bytes: Uint8Array<ArrayBuffer>): void;
  /** SHA-256 (crypto.subtle.digest). */
  sha256(bytes: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer>;
  /** Where the value waits for the reveal (sessionStorage); null when storage is off. */
  storage: Store | null;
}

function sessionStore(): Store | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

export function browserEntropyDeps(): EntropyDeps {
  return {
    random: (bytes) => void globalThis.crypto.getRandomValues(bytes),
    sha256: (bytes) => globalThis.crypto.subtle.digest("SHA-256", bytes),
    storage: sessionStore(),
  };
}

export const entropyKey = (id: string, seat: number) => `tavolo:entropy:${id}:${seat}`;

/** What this browser knows about its own seat's part. */
export type OwnEntropy =
  | "none" // not seeding, or no seat
  | "working" // about to send, or sent and waiting for the next view
  | "done" // committed (waiting for the reveal phase) or revealed
  | "lost"; // committed, but the value is not in this browser: the seat withholds

export type EntropyAction = { action: "commit"; hash: string } | { action: "reveal"; value: string };

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The seat's side of the seeding. `step(view, send)` is called with every view: it sends what the
 * phase asks for, at most once per game, seat and phase (re-renders and repeated views send
 * nothing), and forgets the stored value once the game is past seeding.
 */
export class EntropyClient {
  private readonly sent = new Set<string>();
  /** The values drawn in this page, in case storage is off. */
  private readonly memory = new Map<string, string>();

  constructor(private readonly deps: EntropyDeps) {}

  private load(key: string): string | null {
    let value: string | null = null;
    try {
      value = this.deps.storage?.getItem(key) ?? null;
    } catch {
      value = null;
    }
    value = value ?? this.memory.get(key) ?? null;
    return value && HEX64.test(value) ? value : null;
  }

  private save(key: string, value: string): void {
    this.memory.set(key, value);
    try {
      this.deps.storage?.setItem(key, value);
    } catch {
      /* storage full or off: the value lives as long as the page */
    }
  }

  forget(id: string, seat: number): void {
    const key = entropyKey(id, seat);
    this.memory.delete(key);
    try {
      this.deps.storage?.removeItem(key);
    } catch {
      /* nothing kept */
    }
  }

  /** The value this browser holds for the seat, drawing one when asked to and none is kept. */
  value(id: string, seat: number, draw: boolean): string | null {
    const key = entropyKey(id, seat);
    const kept = this.load(key);
    if (kept || !draw) return kept;
    const bytes = new Uint8Array(ENTROPY_BYTES);
    this.deps.random(bytes);
    const value = bytesToHex(bytes);
    this.save(key, value);
    return value;
  }

  /** What the seat's state is, as the screen says it (no side effects). */
  own(view: AnyView | null | undefined): OwnEntropy {
    const entropy = entropyOf(view);
    if (!entropy || !view || view.status === "lobby") return "none";
    const seat = (view as GameView).you;
    if (typeof seat !== "number") return "none";
    const { id } = view;
    if (entropy.revealed.includes(seat)) return "done";
    if (entropy.phase === "commit") return entropy.committed.includes(seat) ? (this.load(entropyKey(id, seat)) ? "done" : "lost") : "working";
    if (!entropy.committed.includes(seat)) return "lost"; // missed the commit: withholds
    return this.load(entropyKey(id, seat)) ? "working" : "lost";
  }

  /**
   * Act on a view: the action sent (or null). `send` answers false when the socket is not open;
   * the action is then tried again with the next view.
   */
  async step(view: AnyView | null | undefined, send: (action: EntropyAction) => boolean): Promise<EntropyAction | null> {
    if (!view || view.status === "lobby") return null;
    const game = view as GameView;
    const seat = game.you;
    if (typeof seat !== "number") return null;
    if (!isSeeding(view)) {
      // Past seeding (dealt, or finished): the value has done its job.
      this.forget(game.id, seat);
      return null;
    }
    const entropy = entropyOf(view);
    if (!entropy) return null;
    const mark = `${game.id}:${seat}:${entropy.phase}`;
    if (this.sent.has(mark)) return null;
    let action: EntropyAction;
    if (entropy.phase === "commit") {
      if (entropy.committed.includes(seat)) return null;
      this.sent.add(mark); // before any await: a second call meanwhile sends nothing
      const value = this.value(game.id, seat, true)!;
      const hash = bytesToHex(await this.deps.sha256(hexBytes(value)));
      action = { action: "commit", hash };
    } else {
      if (!entropy.committed.includes(seat) || entropy.revealed.includes(seat)) return null;
      const value = this.value(game.id, seat, false);
      if (!value) return null; // lost: the seat withholds
      this.sent.add(mark);
      action = { action: "reveal", value };
    }
    if (!send(action)) {
      this.sent.delete(mark);
      return null;
    }
    return action;
  }
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** "0101…0101": a 64-hex value, shortened for a phone. */
export function shortHex(hex: string): string {
  return hex.length <= 12 ? hex : `${hex.slice(0, 6)}…${hex.slice(-6)}`;
}

/**
 * The seat's entropy, driven by the views: acts on every new view (one client per page, so the
 * once-per-phase guard holds across re-renders) and answers the seat's state for the screen.
 */
export function useEntropy(
  view: AnyView | null,
  send: (action: EntropyAction) => boolean,
  deps: () => EntropyDeps = browserEntropyDeps,
): OwnEntropy {
  const client = useMemo(() => new EntropyClient(deps()), []);
  const [, bump] = useState(0);
  useEffect(() => {
    if (!view) return;
    let live = true;
    client.step(view, send).then(
      (sent) => {
        if (sent && live) bump((n) => n + 1);
      },
      () => {
        /* no WebCrypto here: the seat withholds */
      },
    );
    return () => {
      live = false;
    };
  }, [view, client, send]);
  return client.own(view);
}
