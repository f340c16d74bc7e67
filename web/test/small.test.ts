// The small pure pieces: card names, routes, the deep link kept over login, the options form,
// what the table says, and how views are folded.
import { describe, expect, it } from "vitest";
import { isAppPath, rememberDeepLink, takeDeepLink } from "../src/afterlogin";
import { cardName, DECK } from "../src/deck";
import { lastPlayText, seatsAround, turnText } from "../src/describe";
import { initialGameState, reduce } from "../src/gamestate";
import { matchRoute } from "../src/router";
import { defaultsOf, fieldsOf, parseNumber } from "../src/schemaform";
import type { GameView, LobbyView } from "../src/types";

describe("card names", () => {
  it("reads rank, suit and figure", () => {
    expect(cardName("07D")).toBe("7 of denari (settebello)");
    expect(cardName("01C")).toBe("1 of coppe");
    expect(cardName("08S")).toBe("8 of spade (fante)");
    expect(cardName("09B")).toBe("9 of bastoni (cavallo)");
    expect(cardName("10D")).toBe("10 of denari (re)");
    expect(cardName("07C")).toBe("7 of coppe");
    expect(() => cardName("11D")).toThrow();
  });

  it("orders the canonical deck by suit, then rank", () => {
    expect(DECK).toHaveLength(40);
    expect(DECK.slice(0, 3)).toEqual(["01D", "02D", "03D"]);
    expect(DECK[10]).toBe("01C");
    expect(DECK[39]).toBe("10B");
  });
});

describe("routes", () => {
  it("matches the app's pages", () => {
    expect(matchRoute("/")).toEqual({ name: "home" });
    expect(matchRoute("/join/k7qx2m")).toEqual({ name: "join", code: "K7QX2M" });
    expect(matchRoute("/games/6f1c-2a9e/")).toEqual({ name: "game", id: "6f1c-2a9e" });
    expect(matchRoute("/nowhere").name).toBe("not-found");
    expect(matchRoute("/games/a/b").name).toBe("not-found");
  });
});

describe("the deep link kept over login", () => {
  function store() {
    const data = new Map<string, string>();
    return {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
      removeItem: (k: string) => void data.delete(k),
    };
  }

  it("gives back the remembered path once", () => {
    const s = store();
    rememberDeepLink("/join/K7QX2M", s);
    expect(takeDeepLink(s)).toBe("/join/K7QX2M");
    expect(takeDeepLink(s)).toBeNull();
  });

  it("keeps only the app's own paths", () => {
    const s = store();
    rememberDeepLink("/", s);
    expect(takeDeepLink(s)).toBeNull();
    expect(isAppPath("//evil.example/x")).toBe(false);
    expect(isAppPath("/auth/logout")).toBe(false);
    expect(isAppPath("/games/6f1c-2a9e")).toBe(true);
  });
});

describe("the options form", () => {
  const schema = {
    type: "object",
    properties: {
      target_score: { type: "integer", minimum: 1, maximum: 121, default: 11, title: "Target score", description: "The match ends..." },
      napola: { type: "boolean", default: true, title: "Napola" },
      asso_pigliatutto: { type: "boolean", default: false, title: "Asso pigliatutto" },
    },
  };

  it("makes one field per property, in order, with bounds and titles", () => {
    const fields = fieldsOf(schema);
    expect(fields.map((f) => [f.key, f.kind, f.title])).toEqual([
      ["target_score", "integer", "Target score"],
      ["napola", "boolean", "Napola"],
      ["asso_pigliatutto", "boolean", "Asso pigliatutto"],
    ]);
    expect(fields[0]).toMatchObject({ min: 1, max: 121, description: "The match ends..." });
  });

  it("starts from the defaults", () => {
    expect(defaultsOf(schema)).toEqual({ target_score: 11, napola: true, asso_pigliatutto: false });
  });

  it("keeps integers whole", () => {
    expect(parseNumber(fieldsOf(schema)[0], "21.7")).toBe(21);
    expect(parseNumber(fieldsOf(schema)[0], "")).toBe("");
  });
});

function gameView(extra: Partial<GameView> = {}): GameView {
  return {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "playing", options: {},
    players: [0, 1, 2, 3].map((seat) => ({
      seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
      card_count: 10, captured_count: 0, scope: 0, is_you: seat === 2, connected: true,
    })),
    you: 2, hand: [], table: [], turn: 1, hand_number: 1, scores: { A: 0, B: 0 }, last_play: null,
    seed_commitment: "c1", revision: 5, ...extra,
  };
}

describe("what the table says", () => {
  it("seats the next player on your right and your partner across", () => {
    expect(seatsAround(2)).toEqual({ bottom: 2, right: 3, top: 0, left: 1 });
    expect(seatsAround(0)).toEqual({ bottom: 0, right: 1, top: 2, left: 3 });
  });

  it("tells whose turn it is", () => {
    expect(turnText(gameView())).toBe("bob's turn");
    expect(turnText(gameView({ turn: 2, your_turn: true }))).toBe("Your turn");
    expect(turnText(gameView({ status: "hand_end", turn: null }))).toBe("");
  });

  it("describes the last play, its scopa and an auto-play", () => {
    const v = gameView();
    expect(lastPlayText(v, { seat: 1, card: "05S", capture: [], scopa: false, auto: false })).toBe(
      "bob played 5 of spade on the table.",
    );
    expect(lastPlayText(v, { seat: 2, card: "07D", capture: ["03S", "04B"], scopa: true, auto: false })).toBe(
      "You played 7 of denari (settebello) and took 3 of spade, 4 of bastoni. Scopa!",
    );
    expect(lastPlayText(v, { seat: 3, card: "01C", capture: [], scopa: false, auto: true })).toMatch(/dave's time ran out: 1 of coppe was auto-played/);
  });
});

describe("folding views", () => {
  const lobby: LobbyView = {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "lobby", options: {},
    players: [], seats_open: 3, created_at: "2026-12-02T10:00:00.000Z",
  };

  it("never rolls a started game back to an older revision or to the lobby", () => {
    let s = reduce(initialGameState, { type: "view", view: gameView({ revision: 9 }) });
    s = reduce(s, { type: "view", view: gameView({ revision: 8 }) });
    expect((s.view as GameView).revision).toBe(9);
    s = reduce(s, { type: "message", message: { type: "lobby", game: lobby } });
    expect(s.view?.status).toBe("playing");
  });

  it("opens the table when the first state follows the lobby", () => {
    let s = reduce(initialGameState, { type: "message", message: { type: "lobby", game: lobby } });
    s = reduce(s, { type: "message", message: { type: "state", game: gameView({ revision: 1 }) } });
    expect(s.view?.status).toBe("playing");
  });

  it("keeps the first commitment it saw", () => {
    let s = reduce(initialGameState, { type: "view", view: gameView({ revision: 1, seed_commitment: "first" }) });
    s = reduce(s, { type: "view", view: gameView({ revision: 2, seed_commitment: "second" }) });
    expect(s.commitment).toBe("first");
  });

  const state = (v: GameView) => ({ type: "message" as const, message: { type: "state" as const, game: v } });

  it("unlocks the hand on a newer state or on an error, not on the same state again", () => {
    let s = reduce(initialGameState, state(gameView({ revision: 3 })));
    s = reduce(s, { type: "sent", revision: 3 });
    expect(s.pendingRevision).toBe(3);
    s = reduce(s, state(gameView({ revision: 3 })));
    expect(s.pendingRevision).toBe(3);
    s = reduce(s, state(gameView({ revision: 4 })));
    expect(s.pendingRevision).toBeNull();
    s = reduce(s, { type: "sent", revision: 4 });
    s = reduce(s, { type: "message", message: { type: "error", code: "concurrent_move", message: "Moved on" } });
    expect(s.pendingRevision).toBeNull();
    expect(s.error?.code).toBe("concurrent_move");
  });

  it("unlocks a hand whose move may be lost: after a reconnect or a REST read", () => {
    let s = reduce(initialGameState, state(gameView({ revision: 3 })));
    s = reduce(s, { type: "sent", revision: 3 });
    expect(reduce(s, { type: "connected" }).pendingRevision).toBeNull();
    expect(reduce(s, { type: "view", view: gameView({ revision: 3 }) }).pendingRevision).toBeNull();
  });

  it("records the winner of game_over", () => {
    const s = reduce(initialGameState, { type: "message", message: { type: "game_over", scores: { A: 11, B: 7 }, winner: "A" } });
    expect(s.gameOver).toEqual({ scores: { A: 11, B: 7 }, winner: "A" });
  });
});
