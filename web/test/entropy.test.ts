// Player entropy, the seat's side: the browser draws its 32 bytes, keeps them in sessionStorage,
// commits their SHA-256 and reveals them, each once per phase, and forgets them after the deal.
// Crypto, storage and the socket are injected: no wall clock, no real randomness.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EntropyClient, entropyKey, type EntropyAction, type EntropyDeps, type EntropyState } from "../src/entropy";
import type { GameView } from "../src/types";
import { view } from "./fixtures";

class MemoryStorage {
  items = new Map<string, string>();
  getItem(k: string) {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.items.set(k, v);
  }
  removeItem(k: string) {
    this.items.delete(k);
  }
}

function deps(storage: MemoryStorage | null, fill = 0xab): EntropyDeps & { draws: number } {
  const d = {
    draws: 0,
    random(bytes: Uint8Array) {
      d.draws++;
      bytes.fill(fill);
    },
    sha256: async (bytes: Uint8Array) => {
      const h = createHash("sha256").update(bytes).digest();
      return h.buffer.slice(h.byteOffset, h.byteOffset + h.byteLength) as ArrayBuffer;
    },
    storage,
  };
  return d;
}

const seeding = (entropy: Partial<EntropyState>): GameView =>
  ({
    ...view({ status: "seeding" as GameView["status"], hand: [], turn: null }),
    entropy: { phase: "commit", committed: [], revealed: [], deadline: "2026-12-05T10:00:10.000Z", ...entropy },
  }) as GameView;

const VALUE = "ab".repeat(32);
const HASH = createHash("sha256").update(Buffer.from(VALUE, "hex")).digest("hex");

function recorder(open = true) {
  const sent: EntropyAction[] = [];
  return { sent, send: (a: EntropyAction) => (open ? (sent.push(a), true) : false) };
}

describe("the commit and the reveal", () => {
  it("commits the SHA-256 of a fresh value, then reveals the value, once each", async () => {
    const storage = new MemoryStorage();
    const d = deps(storage);
    const client = new EntropyClient(d);
    const { sent, send } = recorder();

    const commitView = seeding({ phase: "commit", committed: [2] });
    // Two renders of the same view at once: one commit.
    const [a, b] = await Promise.all([client.step(commitView, send), client.step(commitView, send)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(sent).toEqual([{ action: "commit", hash: HASH }]);
    expect(storage.getItem(entropyKey("g", 0))).toBe(VALUE);
    expect(client.own(commitView)).toBe("working");

    // The server's next view: seat 0 committed, still in phase commit. Nothing more to send.
    const committed = seeding({ phase: "commit", committed: [0, 2] });
    await client.step(committed, send);
    expect(client.own(committed)).toBe("done");

    const reveal = seeding({ phase: "reveal", committed: [0, 2], revealed: [2] });
    await client.step(reveal, send);
    await client.step(reveal, send);
    await client.step({ ...reveal, revision: 9 } as GameView, send);
    expect(sent).toEqual([
      { action: "commit", hash: HASH },
      { action: "reveal", value: VALUE },
    ]);
    expect(d.draws).toBe(1);

    // Dealt: the value is forgotten.
    await client.step(view({ status: "playing" }), send);
    expect(storage.getItem(entropyKey("g", 0))).toBeNull();
    expect(sent).toHaveLength(2);
  });

  it("tries again with the next view when the socket was not open", async () => {
    const client = new EntropyClient(deps(new MemoryStorage()));
    const closed = recorder(false);
    expect(await client.step(seeding({}), closed.send)).toBeNull();
    const open = recorder();
    await client.step(seeding({}), open.send);
    expect(open.sent).toEqual([{ action: "commit", hash: HASH }]);
  });

  it("reveals nothing for a seat that did not commit", async () => {
    const client = new EntropyClient(deps(new MemoryStorage()));
    const { sent, send } = recorder();
    const late = seeding({ phase: "reveal", committed: [1, 2, 3] });
    await client.step(late, send);
    expect(sent).toEqual([]);
    expect(client.own(late)).toBe("lost");
  });
});

describe("a reload", () => {
  it("keeps the value until the deal and reveals it from the new page", async () => {
    const storage = new MemoryStorage();
    const first = new EntropyClient(deps(storage, 0xab));
    await first.step(seeding({}), recorder().send);

    // The page reloads: a new client, the same sessionStorage, another draw would differ.
    const d = deps(storage, 0xcd);
    const second = new EntropyClient(d);
    const { sent, send } = recorder();
    const reveal = seeding({ phase: "reveal", committed: [0, 1] });
    expect(second.own(reveal)).toBe("working");
    await second.step(reveal, send);
    expect(sent).toEqual([{ action: "reveal", value: VALUE }]);
    expect(d.draws).toBe(0);
  });

  it("commits the kept value again when the commit had not reached the server", async () => {
    const storage = new MemoryStorage();
    storage.setItem(entropyKey("g", 0), VALUE);
    const d = deps(storage, 0xcd);
    const { sent, send } = recorder();
    await new EntropyClient(d).step(seeding({}), send);
    expect(sent).toEqual([{ action: "commit", hash: HASH }]);
    expect(d.draws).toBe(0);
  });

  it("says the value is lost when this browser does not have it: the seat withholds", async () => {
    const client = new EntropyClient(deps(new MemoryStorage()));
    const { sent, send } = recorder();
    const reveal = seeding({ phase: "reveal", committed: [0, 1] });
    await client.step(reveal, send);
    expect(sent).toEqual([]);
    expect(client.own(reveal)).toBe("lost");
    expect(client.own(seeding({ phase: "commit", committed: [0] }))).toBe("lost");
  });

  it("works within the page when storage is off", async () => {
    const client = new EntropyClient(deps(null));
    const { sent, send } = recorder();
    await client.step(seeding({}), send);
    await client.step(seeding({ phase: "reveal", committed: [0] }), send);
    expect(sent.map((a) => a.action)).toEqual(["commit", "reveal"]);
  });
});
