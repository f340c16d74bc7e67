// Deal verification in the browser (CONTRACT.md, Fairness): once a game is over its seed is
// revealed, and anyone can check that it matches the commitment shown during play and that every
// card each seat played was dealt to that seat. WebCrypto does the hashing, so no crypto code
// of our own can be wrong in a way the server's could not.

import { DECK } from "./deck";
import type { GameLog } from "./types";
import { tx } from "./i18n";

const WORD_SPACE = 2 ** 32;
const CARDS_PER_HAND = 40;

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  // crypto.subtle exists only in secure contexts (https or localhost).
  if (!s) throw new Error(tx("This browser offers no WebCrypto here (it needs https or localhost)", "Questo browser non offre WebCrypto (serve https o localhost)"));
  return s;
}

export function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  if (!/^([0-9a-f]{2})*$/i.test(hex)) throw new Error(tx("The seed is not hexadecimal", "Il seed non è esadecimale"));
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return Array.from(view, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The commitment of a seed: lowercase hex SHA-256 of its bytes. */
export async function commitmentOf(seed: Uint8Array<ArrayBuffer>): Promise<string> {
  return bytesToHex(await subtle().digest("SHA-256", seed));
}

export const ENTROPY_BYTES = 32;

/**
 * The deal key of a game whose seats added entropy (docs/fairness.md):
 * K = SHA-256(seed || r_0 || r_1 || ...), one r_s per seat in seat order, null (a seat that did
 * not commit or did not reveal) counting as 32 zero bytes. Every stream is keyed with K instead
 * of the seed.
 */
export async function dealKey(
  seed: Uint8Array<ArrayBuffer>,
  contributions: readonly (Uint8Array | null)[],
): Promise<Uint8Array<ArrayBuffer>> {
  const joined = new Uint8Array(seed.length + ENTROPY_BYTES * contributions.length);
  joined.set(seed, 0);
  contributions.forEach((value, s) => {
    if (value !== null && value.length !== ENTROPY_BYTES) {
      throw new Error(`A seat's entropy is exactly ${ENTROPY_BYTES} bytes`);
    }
    // A withheld seat's bytes stay the zeros the array starts with.
    if (value !== null) joined.set(value, seed.length + ENTROPY_BYTES * s);
  });
  return new Uint8Array(await subtle().digest("SHA-256", joined));
}

/** stream(label): word i = first 4 bytes, big-endian, of HMAC-SHA256(seed, label + ":" + i). */
export class Stream {
  private i = 0;
  private constructor(
    private readonly key: CryptoKey,
    private readonly label: string,
  ) {}

  static async open(seed: Uint8Array<ArrayBuffer>, label: string): Promise<Stream> {
    const key = await subtle().importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    return new Stream(key, label);
  }

  async next(): Promise<number> {
    const message = new TextEncoder().encode(`${this.label}:${this.i++}`);
    const mac = await subtle().sign("HMAC", this.key, message);
    return new DataView(mac).getUint32(0, false);
  }
}

/** uniform(n): draw until x < 2^32 - (2^32 mod n), then x mod n (no modulo bias). */
export async function uniform(next: () => Promise<number>, n: number): Promise<number> {
  if (n < 1) throw new Error("uniform() needs n >= 1");
  const limit = WORD_SPACE - (WORD_SPACE % n);
  for (;;) {
    const x = await next();
    if (x < limit) return x % n;
  }
}

/** The deck of hand h: Fisher-Yates from the top with label deal:<h>. */
export async function shuffledDeck(seed: Uint8Array<ArrayBuffer>, hand: number): Promise<string[]> {
  const deck = [...DECK];
  const stream = await Stream.open(seed, `deal:${hand}`);
  const next = () => stream.next();
  for (let i = deck.length - 1; i >= 1; i--) {
    const j = await uniform(next, i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** Seat s gets cards 10s..10s+9 of the shuffled deck; each seat's cards sorted as strings. */
export async function deal(seed: Uint8Array<ArrayBuffer>, hand: number, seats = 4): Promise<string[][]> {
  const deck = await shuffledDeck(seed, hand);
  const size = deck.length / seats;
  return Array.from({ length: seats }, (_, s) => deck.slice(size * s, size * (s + 1)).sort());
}

export interface PlayRecord {
  number: number;
  seat: number;
  card: string;
}

/** The plays of the log, cut into hands of 40 (a hand ends exactly when its 40 cards are down). */
export function playsByHand(log: GameLog): PlayRecord[][] {
  const hands: PlayRecord[][] = [];
  for (const move of log.moves) {
    if (move.type !== "play" && move.type !== "auto_play") continue;
    const seat = Number(String(move.seat ?? "").replace(/^seat:/, ""));
    const card = String(move.payload?.card ?? "");
    if (hands.length === 0 || hands[hands.length - 1].length === CARDS_PER_HAND) hands.push([]);
    hands[hands.length - 1].push({ number: move.number, seat, card });
  }
  return hands;
}

/** One seat's part of the deal key: its revealed value (hex), or null when it withheld. */
export interface Contribution {
  seat: number;
  value: string | null;
  /** Why a seat withheld: it never committed, or committed and never revealed. */
  reason?: "no_commit" | "no_reveal";
}

/** Who dealt hand 1 (a seat 0..3) and how: drawn from the seed, or the rule before the draw. */
export interface FirstDealer {
  seat: number;
  drawn: boolean;
}

export type Verification =
  | { ok: true; hands: number; plays: number; message: string; contributions?: Contribution[]; firstDealer: FirstDealer }
  | { ok: false; message: string; contributions?: Contribution[] };

/** People count seats from 1, as every other screen shows them; the log's seats are 0..3. */
const seatNumber = (seat: number) => seat + 1;

/**
 * The first dealer (CONTRACT.md, Turns and deadlines): seat uniform(4) of stream("dealer"), keyed
 * like the deals, when the options carry first_dealer "drawn"; a log whose options lack it is from
 * before the draw, when seat 0 led hand 1 (as if seat 3 had dealt). Null for any other value.
 */
export async function firstDealer(log: GameLog, key: Uint8Array<ArrayBuffer>, seats = 4): Promise<FirstDealer | null> {
  const rule = log.options?.first_dealer;
  if (rule === undefined) return { seat: seats - 1, drawn: false };
  if (rule !== "drawn") return null;
  const stream = await Stream.open(key, "dealer");
  return { seat: await uniform(() => stream.next(), seats), drawn: true };
}

const ENTROPY_MOVES = new Set(["commit", "reveal", "entropy_deadline"]);

/** Whether the seats added entropy to this log's deals (player_entropy). */
export function hasEntropy(log: GameLog): boolean {
  return log.options?.player_entropy === true || log.moves.some((m) => ENTROPY_MOVES.has(m.type));
}

const seatOf = (seat: string | null | undefined) => Number(String(seat ?? "").replace(/^seat:/, ""));

/**
 * Each seat's contribution from the log's commit and reveal moves: a reveal counts only when its
 * SHA-256 is the seat's commitment (the server refuses any other, so one that does not match is a
 * failed check); a seat without both withheld (32 zero bytes).
 */
export async function contributionsOf(
  log: GameLog,
  seats = 4,
): Promise<{ ok: true; contributions: Contribution[] } | { ok: false; message: string; contributions: Contribution[] }> {
  const commits = new Map<number, string>();
  const reveals = new Map<number, { value: string; number: number }>();
  for (const move of log.moves) {
    const seat = seatOf(move.seat);
    if (move.type === "commit" && !commits.has(seat)) commits.set(seat, String(move.payload?.hash ?? "").toLowerCase());
    if (move.type === "reveal" && !reveals.has(seat)) reveals.set(seat, { value: String(move.payload?.value ?? "").toLowerCase(), number: move.number });
  }
  const contributions: Contribution[] = [];
  for (let s = 0; s < seats; s++) {
    const commit = commits.get(s);
    const reveal = reveals.get(s);
    if (!commit) {
      contributions.push({ seat: s, value: null, reason: "no_commit" });
      continue;
    }
    if (!reveal) {
      contributions.push({ seat: s, value: null, reason: "no_reveal" });
      continue;
    }
    const ok = /^[0-9a-f]{64}$/.test(reveal.value) && (await commitmentOf(hexToBytes(reveal.value))) === commit;
    contributions.push({ seat: s, value: reveal.value });
    if (!ok) {
      return {
        ok: false,
        contributions,
        message: tx(
          `Mismatch: the value seat ${seatNumber(s)} revealed at move ${reveal.number} does not hash to its commitment ${commit}`,
          `Non corrisponde: il valore rivelato dal posto ${seatNumber(s)} alla mossa ${reveal.number} non ha come SHA-256 la sua impronta ${commit}`,
        ),
      };
    }
  }
  return { ok: true, contributions };
}

/**
 * Check a finished game's log: SHA-256(seed) is the commitment seen during play (and the log's),
 * every hand's plays are exactly its 40 dealt cards, each played by the seat it was dealt to, and
 * each hand is played in turn from the seat after its dealer (the first drawn from the seed).
 */
export async function verifyLog(log: GameLog, commitmentSeen: string | null): Promise<Verification> {
  if (!log.seed) return { ok: false, message: tx("The seed is not revealed yet: the game is not over", "Il seed non è ancora rivelato: la partita non è finita") };
  const seed = hexToBytes(log.seed);
  const commitment = await commitmentOf(seed);
  if (commitmentSeen && commitment !== commitmentSeen.toLowerCase()) {
    return {
      ok: false,
      message: tx(`Mismatch: SHA-256 of the seed is ${commitment}, but the game showed ${commitmentSeen}`, `Non corrisponde: lo SHA-256 del seed è ${commitment}, ma la partita mostrava ${commitmentSeen}`),
    };
  }
  if (log.seed_commitment && commitment !== log.seed_commitment.toLowerCase()) {
    return {
      ok: false,
      message: tx(`Mismatch: SHA-256 of the seed is ${commitment}, but the log's commitment is ${log.seed_commitment}`, `Non corrisponde: lo SHA-256 del seed è ${commitment}, ma l'impronta del registro è ${log.seed_commitment}`),
    };
  }
  // With player entropy every deal is keyed with K = SHA-256(seed || r_0 || .. || r_3).
  let key = seed;
  let contributions: Contribution[] | undefined;
  if (hasEntropy(log)) {
    const found = await contributionsOf(log, log.seats?.length || 4);
    contributions = found.contributions;
    if (!found.ok) return { ok: false, message: found.message, contributions };
    key = await dealKey(seed, contributions.map((c) => (c.value ? hexToBytes(c.value) : null)));
  }
  const fail = (message: string): Verification => ({ ok: false, message, contributions });
  const hands = playsByHand(log);
  if (hands.length === 0) return fail(tx("The log has no plays to check", "Il registro non ha giocate da verificare"));
  const first = await firstDealer(log, key);
  if (!first) {
    const rule = JSON.stringify(log.options?.first_dealer);
    return fail(tx(`The log's rule for the first dealer, ${rule}, is not "drawn"`, `La regola del primo mazziere nel registro, ${rule}, non è "drawn"`));
  }
  let plays = 0;
  for (let h = 0; h < hands.length; h++) {
    const number = h + 1;
    const dealt = await deal(key, number);
    const left = new Set(dealt.flat());
    const dealer = (first.seat + h) % dealt.length;
    for (const [i, play] of hands[h].entries()) {
      if (!(play.seat >= 0 && play.seat < dealt.length)) {
        return fail(tx(`Mismatch in hand ${number}: move ${play.number} names no seat`, `Non corrisponde nella mano ${number}: la mossa ${play.number} non indica un posto`));
      }
      // Play goes round from the seat after the dealer.
      const turn = (dealer + 1 + i) % dealt.length;
      if (play.seat !== turn) {
        return fail(tx(`Mismatch in hand ${number}: move ${play.number} is seat ${seatNumber(play.seat)}'s play, but it was seat ${seatNumber(turn)}'s turn (seat ${seatNumber(dealer)} dealt)`, `Non corrisponde nella mano ${number}: la mossa ${play.number} è del posto ${seatNumber(play.seat)}, ma toccava al posto ${seatNumber(turn)} (mazziere il posto ${seatNumber(dealer)})`));
      }
      if (!dealt[play.seat].includes(play.card)) {
        return fail(tx(`Mismatch in hand ${number}: move ${play.number}, seat ${seatNumber(play.seat)} played ${play.card}, which was not dealt to that seat`, `Non corrisponde nella mano ${number}: alla mossa ${play.number} il posto ${seatNumber(play.seat)} ha giocato ${play.card}, che non gli era stata distribuita`));
      }
      if (!left.delete(play.card)) {
        return fail(tx(`Mismatch in hand ${number}: move ${play.number} plays ${play.card} a second time`, `Non corrisponde nella mano ${number}: la mossa ${play.number} gioca ${play.card} una seconda volta`));
      }
      plays++;
    }
    // The seed is revealed only once the game is over, so every hand was played out.
    if (left.size > 0) {
      return fail(tx(`Mismatch in hand ${number}: ${left.size} dealt cards were never played (${[...left].sort().join(" ")})`, `Non corrisponde nella mano ${number}: ${left.size} carte distribuite non sono mai state giocate (${[...left].sort().join(" ")})`));
    }
  }
  const n = hands.length;
  return {
    ok: true,
    hands: n,
    plays,
    contributions,
    firstDealer: first,
    message: tx(`${n} hand${n === 1 ? "" : "s"}, ${plays} plays, each card played in turn by the seat it was dealt to; commitment ok${contributions ? "; deals keyed with the seed and the players' values" : ""}`, `${n} man${n === 1 ? "o" : "i"}, ${plays} giocate, ogni carta giocata a turno dal posto a cui era stata distribuita; impronta verificata${contributions ? "; smazzate generate dal seed e dai valori dei giocatori" : ""}`),
  };
}
