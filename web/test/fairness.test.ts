import { describe, expect, it } from "vitest";
import { DECK } from "../src/deck";
import { readFileSync } from "node:fs";
import { bytesToHex, commitmentOf, contributionsOf, deal, dealKey, firstDealer, hasEntropy, hexToBytes, playsByHand, Stream, uniform, verifyLog } from "../src/fairness";
import type { GameLog, LogMove } from "../src/types";

// CONTRACT.md, Fairness: the test vector.
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const SEED_HEX = Array.from(SEED, (b) => b.toString(16).padStart(2, "0")).join("");
const COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
const HAND_1 = [
  "01D 02C 03D 03S 04B 05S 06D 07D 09S 10S",
  "02D 02S 03C 04D 06C 07C 07S 08D 09D 10C",
  "01B 01S 02B 04C 05C 06B 06S 08B 08C 09B",
  "01C 03B 04S 05B 05D 07B 08S 09C 10B 10D",
].map((s) => s.split(" "));

describe("the contract's test vector", () => {
  it("hashes the seed to the commitment", async () => {
    expect(SEED_HEX).toBe("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    expect(await commitmentOf(SEED)).toBe(COMMITMENT);
  });

  it("draws the first three words of stream(deal:1)", async () => {
    const s = await Stream.open(SEED, "deal:1");
    expect([await s.next(), await s.next(), await s.next()]).toEqual([783130636, 967123399, 3201263102]);
  });

  it("deals hand 1 to each seat as listed", async () => {
    expect(await deal(SEED, 1)).toEqual(HAND_1);
  });

  it("deals a different hand 2 that is still the whole deck", async () => {
    const two = await deal(SEED, 2);
    expect(two).not.toEqual(HAND_1);
    expect(two.flat().sort()).toEqual([...DECK].sort());
  });
});

// docs/fairness.md: the player-entropy vector. r_0, r_1, r_2 revealed, seat 3 withheld.
const CONTRIBUTIONS = [1, 2, 3].map((b) => new Uint8Array(32).fill(b));
const DEAL_KEY = "2edb59735f8407f01c6aaec14f0b3318ada33b977ee4f42be863ac9951eb2495";
const KEYED_HAND_1 = [
  "01B 02B 03D 04C 04S 05B 05C 06C 07D 08C",
  "01C 01D 01S 02C 03C 05D 05S 06S 07C 09C",
  "02D 02S 03B 03S 06D 07S 08S 09B 09D 09S",
  "04B 04D 06B 07B 08B 08D 10B 10C 10D 10S",
].map((s) => s.split(" "));

describe("the deal key with player entropy", () => {
  it("is SHA-256 of the seed and each seat's value, a withheld seat as zeros", async () => {
    expect(bytesToHex(await dealKey(SEED, [...CONTRIBUTIONS, null]))).toBe(DEAL_KEY);
    expect(bytesToHex(await dealKey(SEED, [...CONTRIBUTIONS, new Uint8Array(32)]))).toBe(DEAL_KEY);
  });

  it("deals hand 1 from the key as listed", async () => {
    expect(await deal(await dealKey(SEED, [...CONTRIBUTIONS, null]), 1)).toEqual(KEYED_HAND_1);
  });

  it("depends on which seat gave which value", async () => {
    const swapped = [CONTRIBUTIONS[1], CONTRIBUTIONS[0], CONTRIBUTIONS[2], null];
    expect(bytesToHex(await dealKey(SEED, swapped))).not.toBe(DEAL_KEY);
  });

  it("refuses a value that is not 32 bytes", async () => {
    await expect(dealKey(SEED, [new Uint8Array(31), null, null, null])).rejects.toThrow(/exactly 32 bytes/);
  });
});

describe("uniform", () => {
  it("rejects words at or above the largest multiple of n", async () => {
    // n = 3: 2^32 mod 3 = 1, so the limit is 2^32 - 1 and 2^32 - 1 itself is redrawn.
    const words = [2 ** 32 - 1, 7];
    expect(await uniform(async () => words.shift()!, 3)).toBe(1);
    expect(words).toEqual([]);
  });

  it("takes x mod n for an accepted word", async () => {
    expect(await uniform(async () => 41, 40)).toBe(1);
  });
});

function move(number: number, type: string, seat: number | null, payload: Record<string, unknown> = {}): LogMove {
  return { number, type, seat: seat === null ? null : `seat:${seat}`, payload, auto: type !== "play" && type !== "ack" };
}

/**
 * A log whose hands play out the real deals: seats in turn from the seat after the dealer, each its
 * own cards, one hand-end between. `firstDealer` is the seat that dealt hand 1: 3 by the rule before
 * the draw (options without first_dealer), or as drawn (options with it).
 */
async function fakeLog(hands: number, { firstDealer = 3, drawn = false } = {}): Promise<GameLog> {
  const moves: LogMove[] = [];
  let n = 0;
  for (let h = 1; h <= hands; h++) {
    const dealt = await deal(SEED, h);
    const leader = (firstDealer + h) % 4;
    for (let i = 0; i < 10; i++) {
      for (let k = 0; k < 4; k++) {
        const s = (leader + k) % 4;
        const type = (i + s) % 7 === 0 ? "auto_play" : "play";
        moves.push(move(++n, type, s, { card: dealt[s][i], capture: [] }));
      }
    }
    if (h < hands) {
      for (let s = 0; s < 3; s++) moves.push(move(++n, "ack", s));
      moves.push(move(++n, "continue", null));
    }
  }
  return {
    id: "g", game_type: "scopone_scientifico", options: drawn ? { first_dealer: "drawn" } : {},
    seats: ["seat:0", "seat:1", "seat:2", "seat:3"],
    seed_commitment: COMMITMENT, seed: SEED_HEX, moves, revision: n, status: "finished",
  };
}

describe("verifyLog", () => {
  it("accepts a log whose plays are the deals", async () => {
    const result = await verifyLog(await fakeLog(2), COMMITMENT);
    expect(result.ok).toBe(true);
    expect(result.ok && result.hands).toBe(2);
    expect(result.ok && result.plays).toBe(80);
  });

  it("cuts hands at 40 plays, whatever comes between them", async () => {
    const log = await fakeLog(3);
    expect(playsByHand(log).map((h) => h.length)).toEqual([40, 40, 40]);
  });

  it("names the first card played by a seat it was not dealt to", async () => {
    const log = await fakeLog(1);
    // Seat 0 and seat 1 swap their first plays.
    const [a, b] = [log.moves[0], log.moves[1]];
    [a.payload, b.payload] = [b.payload, a.payload];
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/hand 1: move 1, seat 1 played 02D/);
  });

  it("refuses a seed that is not the commitment seen during the game", async () => {
    const result = await verifyLog(await fakeLog(1), "00".repeat(32));
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/the game showed 0000/);
  });

  it("refuses a log whose own commitment differs", async () => {
    const log = await fakeLog(1);
    log.seed_commitment = "ff".repeat(32);
    expect((await verifyLog(log, null)).ok).toBe(false);
  });

  it("refuses a hand in which a dealt card was never played", async () => {
    const log = await fakeLog(1);
    log.moves.pop();
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/never played/);
  });

  it("says the seed is missing before the end", async () => {
    const log = await fakeLog(1);
    delete log.seed;
    expect((await verifyLog(log, COMMITMENT)).ok).toBe(false);
  });

  it("reads hex seeds and refuses others", () => {
    expect(Array.from(hexToBytes("00ff10"))).toEqual([0, 255, 16]);
    expect(() => hexToBytes("zz")).toThrow();
  });
});

// Player entropy in the log: the contract's vector. Seats 0..2 commit and reveal 32×0x01, 0x02,
// 0x03; seat 3 commits and never reveals (the reveal phase ends at its deadline): it withholds.
async function entropyLog(options: { revealSeat3?: string; tamper?: boolean } = {}): Promise<GameLog> {
  const moves: LogMove[] = [];
  let n = 0;
  const values = CONTRIBUTIONS.map((c) => bytesToHex(c));
  for (let s = 0; s < 3; s++) moves.push(move(++n, "commit", s, { hash: await commitmentOf(CONTRIBUTIONS[s]) }));
  moves.push(move(++n, "commit", 3, { hash: await commitmentOf(new Uint8Array(32).fill(9)) }));
  for (let s = 0; s < 3; s++) {
    const value = options.tamper && s === 1 ? "ff".repeat(32) : values[s];
    moves.push(move(++n, "reveal", s, { value }));
  }
  moves.push(move(++n, "entropy_deadline", null));
  const dealt = await deal(await dealKey(SEED, [...CONTRIBUTIONS, null]), 1);
  for (let i = 0; i < 10; i++) for (let s = 0; s < 4; s++) moves.push(move(++n, "play", s, { card: dealt[s][i], capture: [] }));
  return {
    id: "g", game_type: "scopone_scientifico", options: { player_entropy: true }, seats: ["seat:0", "seat:1", "seat:2", "seat:3"],
    seed_commitment: COMMITMENT, seed: SEED_HEX, moves, revision: n, status: "finished",
  };
}

describe("verifyLog with player entropy", () => {
  it("recomputes K from the seed and the revealed values, a withheld seat as zeros", async () => {
    const log = await entropyLog();
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(true);
    expect(result.contributions).toEqual([
      { seat: 0, value: "01".repeat(32) },
      { seat: 1, value: "02".repeat(32) },
      { seat: 2, value: "03".repeat(32) },
      { seat: 3, value: null, reason: "no_reveal" },
    ]);
    // The same plays do not match the deal of the bare seed.
    expect(hasEntropy(log)).toBe(true);
  });

  it("fails when the plays are the seed's deal instead of K's", async () => {
    const log = await fakeLog(1);
    log.moves.unshift(move(0, "entropy_deadline", null));
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(false);
    expect(result.contributions?.every((c) => c.value === null)).toBe(true);
  });

  it("fails a reveal whose SHA-256 is not its commitment", async () => {
    const result = await verifyLog(await entropyLog({ tamper: true }), COMMITMENT);
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/seat 2 revealed at move 6 does not hash to its commitment/);
  });

  it("counts a seat that never committed as withheld", async () => {
    const log = await entropyLog();
    log.moves = log.moves.filter((m) => !(m.type === "commit" && m.seat === "seat:3"));
    const { contributions } = await contributionsOf(log);
    expect(contributions[3]).toEqual({ seat: 3, value: null, reason: "no_commit" });
  });

  it("leaves a game without entropy to the seed", async () => {
    const log = await fakeLog(1);
    expect(hasEntropy(log)).toBe(false);
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(true);
    expect(result.contributions).toBeUndefined();
  });
});

// CONTRACT.md, Turns and deadlines: the first dealer is seat uniform(4) of stream("dealer"), keyed
// like the deals; the seat after it leads hand 1, and the deal passes on each hand.
describe("who deals first", () => {
  it("is seat 1 (shown as seat 2) with the contract's seed, so seat 2 (shown 3) leads", async () => {
    const stream = await Stream.open(SEED, "dealer");
    expect(await stream.next()).toBe(1063104329);
    const log = await fakeLog(3, { firstDealer: 1, drawn: true });
    expect(log.moves[0].seat).toBe("seat:2");
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(true);
    expect(result.ok && result.firstDealer).toEqual({ seat: 1, drawn: true });
  });

  it("is seat 0 with K of the entropy vector, so seat 1 leads", async () => {
    const key = await dealKey(SEED, [...CONTRIBUTIONS, null]);
    const log = { ...(await fakeLog(1)), options: { player_entropy: true, first_dealer: "drawn" } };
    expect(await firstDealer(log, key)).toEqual({ seat: 0, drawn: true });
  });

  it("refuses a drawn game whose hand 1 another seat led, naming seats from 1", async () => {
    const log = await fakeLog(1, { firstDealer: 3, drawn: true }); // seat 0 led: the rule before the draw
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(false);
    expect(result.message).toBe("Mismatch in hand 1: move 1 is seat 1's play, but it was seat 3's turn (seat 2 dealt)");
  });

  it("refuses a hand played out of turn", async () => {
    const log = await fakeLog(2, { firstDealer: 1, drawn: true });
    const [a, b] = [log.moves[45], log.moves[46]]; // hand 2, led by seat 3
    [a.seat, b.seat] = [b.seat, a.seat];
    [a.payload, b.payload] = [b.payload, a.payload];
    const result = await verifyLog(log, COMMITMENT);
    expect(result.message).toMatch(/^Mismatch in hand 2: move 46 is seat 2's play, but it was seat 1's turn \(seat 3 dealt\)$/);
  });

  it("refuses a rule other than drawn", async () => {
    const log = { ...(await fakeLog(1)), options: { first_dealer: "seat_0" } };
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(false);
    expect(result.message).toBe('The log\'s rule for the first dealer, "seat_0", is not "drawn"');
  });

  // tests/fixtures/log_before_the_draw.json: a match the game service played at commit d70e6b1,
  // when seat 0 led hand 1 (its options lack first_dealer).
  const OLD_LOG = new URL("../../tests/fixtures/log_before_the_draw.json", import.meta.url);

  it("checks a log from before the draw by the old rule: seat 0 (shown 1) led hand 1", async () => {
    const log = JSON.parse(readFileSync(OLD_LOG, "utf8")) as GameLog;
    expect(log.options).not.toHaveProperty("first_dealer");
    const result = await verifyLog(log, COMMITMENT);
    expect(result.ok).toBe(true);
    expect(result.ok && [result.hands, result.plays, result.firstDealer]).toEqual([2, 80, { seat: 3, drawn: false }]);
    const claimed = { ...log, options: { ...log.options, first_dealer: "drawn" } };
    expect((await verifyLog(claimed, COMMITMENT)).message).toMatch(/move 1 is seat 1's play, but it was seat 3's turn/);
  });
});
