// The views, players and fakes several test files share. Each file keeps the helpers only it uses.
import { vi } from "vitest";
import type { BotLevel, GamePlayer, GameView, LastPlay, LobbyPlayer, LobbyView, OpenGame } from "../src/types";

/** A table where you sit at seat 0, on turn; `counts` are the cards each seat holds. */
export function view(extra: Partial<GameView> = {}, counts = [10, 10, 10, 10]): GameView {
  return {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "playing",
    options: { target_score: 11, napola: true, asso_pigliatutto: false },
    players: [0, 1, 2, 3].map((seat) => ({
      seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
      card_count: counts[seat], captured_count: 0, scope: 0, is_you: seat === 0, connected: true,
    })),
    you: 0, hand: [], table: [], turn: 0, hand_number: 1, dealer: null, scores: { A: 0, B: 0 }, last_play: null,
    seed_commitment: "c1", revision: 1, ...extra,
  };
}

export const play = (seat: number, card: string, capture: string[] = [], scopa = false): LastPlay =>
  ({ seat, card, capture, scopa, auto: false });

/** A table where you sit at seat 2 and it is bob's (seat 1) turn. */
export function gameView(extra: Partial<GameView> = {}): GameView {
  return {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "playing", options: {},
    players: [0, 1, 2, 3].map((seat) => ({
      seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
      card_count: 10, captured_count: 0, scope: 0, is_you: seat === 2, connected: true,
    })),
    you: 2, hand: [], table: [], turn: 1, hand_number: 1, dealer: null, scores: { A: 0, B: 0 }, last_play: null,
    seed_commitment: "c1", revision: 5, ...extra,
  };
}

/** The bot levels a game type offers. */
export const LEVELS: BotLevel[] = [
  { id: "principiante", name: "Beginner" },
  { id: "esperto", name: "Expert" },
  { id: "maestro", name: "Master" },
];

/** A waiting room with these players. */
export function lobby(players: LobbyPlayer[]): LobbyView {
  return {
    id: "g1", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "lobby", options: {},
    players, seats_open: 4 - players.length, created_at: "2026-12-02T10:00:00.000Z",
  };
}

/** An open table: carol waits with a bot, two seats open. */
export function openGame(extra: Partial<OpenGame> = {}): OpenGame {
  return {
    id: "g7", game_type: "scopone_scientifico", join_code: "R4TW9P", status: "lobby",
    players: [
      { seat: 0, name: "carol", team: "A", is_you: false },
      { seat: 1, name: "Expert bot", team: "B", is_you: false, bot: "esperto" },
    ],
    seats_open: 2, your_turn: false, updated_at: "2026-12-02T09:58:41.007Z", pace: "live",
    options: { target_score: 11, napola: true, asso_pigliatutto: false }, rating: 1512, ...extra,
  };
}

export const person = (seat: number, name: string, is_you = false): LobbyPlayer =>
  ({ seat, name, team: seat % 2 ? "B" : "A", is_you });
export const bot = (seat: number, level = "esperto"): LobbyPlayer =>
  ({ seat, name: `Bot ${seat + 1}`, team: seat % 2 ? "B" : "A", is_you: false, bot: level });

/** A table where you sit at seat 0; `others` says who plays seats 1..3. */
export function table(others: Partial<GamePlayer>[], extra: Partial<GameView> = {}): GameView {
  const players: GamePlayer[] = [0, 1, 2, 3].map((seat) => ({
    seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
    card_count: 9, captured_count: 0, scope: 0, is_you: seat === 0, connected: true,
    ...(seat === 0 ? {} : others[seat - 1]),
  }));
  return {
    id: "g1", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "playing", options: {},
    players, you: 0, hand: ["01C"], table: [], turn: 1, hand_number: 1, dealer: null, scores: { A: 0, B: 0 },
    last_play: { seat: 0, card: "07D", capture: [], scopa: false, auto: false },
    seed_commitment: "c1", revision: 8, ...extra,
  };
}

export const threeBots = [{ bot: "esperto" }, { bot: "esperto" }, { bot: "maestro" }];

/** A fetch that records every request and answers from a list, in order. */
export function fakeFetch(answers: [number, unknown, Record<string, string>?][]) {
  const requests: { method: string; url: string; body: unknown }[] = [];
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    requests.push({ method: init.method ?? "GET", url, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const [status, body, headers = {}] = answers.shift() ?? [500, { detail: "no answer left" }];
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
  });
  vi.stubGlobal("fetch", fetch);
  return requests;
}

/** A browser WebSocket the game page opens (stub it as the global `WebSocket`): every socket
 *  made is in `all`, the newest is `last`; the test opens it, feeds it messages and closes it. */
export class FakeBrowserSocket {
  static all: FakeBrowserSocket[] = [];
  static get last(): FakeBrowserSocket | null {
    return FakeBrowserSocket.all.at(-1) ?? null;
  }
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  constructor(public url: string) {
    FakeBrowserSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {}
  open() {
    this.readyState = 1;
    this.onopen?.(new Event("open"));
  }
  receive(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) } as MessageEvent);
  }
  closedByServer(code: number, reason: string) {
    this.readyState = 3;
    this.onclose?.({ code, reason } as CloseEvent);
  }
}
