// Italian and English: the language chosen from the browser or remembered, texts in both, the
// game's own words Italian in both; and the pure pieces of the history, leaderboard and rematch.
import { afterEach, describe, expect, it } from "vitest";
import { isAppPath } from "../src/afterlogin";
import { queryString } from "../src/api";
import { cardName } from "../src/deck";
import { inviteText, lastPlayText, turnText } from "../src/describe";
import { errorText, initialGameState, reduce } from "../src/gamestate";
import { finalScores, myRow, teamPlayers, winnerOf } from "../src/history";
import { detectLang, formatDelta, lang, setLang, tx } from "../src/i18n";
import { matchRoute } from "../src/router";
import { fieldsOf } from "../src/schemaform";
import type { GameView, MatchItem } from "../src/types";

function memory() {
  const data = new Map<string, string>();
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
}

afterEach(() => setLang("en", null));

describe("the language", () => {
  it("follows the browser until one is chosen, then the choice", () => {
    expect(detectLang(null, ["it-IT", "en"])).toBe("it");
    expect(detectLang(null, ["de-DE", "en-US"])).toBe("en");
    expect(detectLang(null, ["fr"])).toBe("en");
    expect(detectLang(null, [])).toBe("en");
    expect(detectLang("en", ["it-IT"])).toBe("en");
    expect(detectLang("it", ["en-GB"])).toBe("it");
    expect(detectLang("xx", ["it"])).toBe("it");
  });

  it("is remembered when switched", () => {
    const store = memory();
    setLang("it", store);
    expect(lang()).toBe("it");
    expect(detectLang(store.getItem("tavolo:lang"), ["en"])).toBe("it");
    expect(tx("Your turn", "Tocca a te")).toBe("Tocca a te");
    setLang("en", store);
    expect(tx("Your turn", "Tocca a te")).toBe("Your turn");
  });
});

function view(extra: Partial<GameView> = {}): GameView {
  return {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "playing",
    options: { target_score: 11, napola: true, asso_pigliatutto: false },
    players: [0, 1, 2, 3].map((seat) => ({
      seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
      card_count: 9, captured_count: 0, scope: 0, is_you: seat === 0, connected: true,
    })),
    you: 0, hand: [], table: [], turn: 1, hand_number: 1, scores: { A: 0, B: 0 }, last_play: null,
    seed_commitment: "c1", revision: 3, ...extra,
  };
}

describe("Italian texts", () => {
  it("say the table in Italian and keep the game's words", () => {
    setLang("it", null);
    expect(turnText(view())).toBe("Tocca a bob");
    expect(turnText(view({ turn: 0, your_turn: true }))).toBe("Tocca a te");
    expect(cardName("07D")).toBe("7 di denari (settebello)");
    expect(cardName("09S")).toBe("cavallo di spade");
    const play = { seat: 1, card: "07D", capture: ["03C", "04S"], scopa: true, auto: false };
    expect(lastPlayText(view(), play)).toBe("bob ha giocato il 7 di denari (settebello) e ha preso il 3 di coppe e il 4 di spade. Scopa!");
    expect(inviteText(3)).toMatch(/^Manda il codice o il link a tre amici\./);
    expect(errorText({ code: "concurrent_move", message: "", serial: 1 })).toMatch(/^Troppo tardi/);
    expect(fieldsOf({ properties: { target_score: { type: "integer", title: "Target score" } } })[0].title).toBe("Punteggio obiettivo");
  });

  it("stay English in English", () => {
    expect(turnText(view())).toBe("bob's turn");
    expect(cardName("07D")).toBe("7 of denari (settebello)");
    expect(fieldsOf({ properties: { target_score: { type: "integer", title: "Target score" } } })[0].title).toBe("Target score");
  });

  it("write Elo changes with their sign", () => {
    expect([formatDelta(16), formatDelta(-16), formatDelta(0)]).toEqual(["+16", "−16", "0"]);
  });
});

describe("the new pages", () => {
  it("have routes that survive a reload and a login", () => {
    expect(matchRoute("/history")).toEqual({ name: "history" });
    expect(matchRoute("/history/6f1c-2a9e")).toEqual({ name: "match", id: "6f1c-2a9e" });
    expect(matchRoute("/leaderboard/")).toEqual({ name: "leaderboard" });
    expect(matchRoute("/me")).toEqual({ name: "account" });
    expect(matchRoute("/history/a/b").name).toBe("not-found");
    for (const path of ["/history", "/history/6f1c", "/leaderboard", "/me"]) expect(isAppPath(path)).toBe(true);
    expect(isAppPath("//evil.example")).toBe(false);
  });

  it("build query strings without the empty parts", () => {
    expect(queryString({ limit: 10, cursor: null, game_type: "" })).toBe("?limit=10");
    expect(queryString({ cursor: "a b&c" })).toBe("?cursor=a%20b%26c");
    expect(queryString({})).toBe("");
  });

  it("read a match item: the caller's row, the teams, the score and the winner", () => {
    const match: MatchItem = {
      id: "m", game_type: "scopone_scientifico", started_at: "", finished_at: "", rated: true,
      result: { scores: { A: 11, B: 7 }, winner: "A", audit: [] },
      players: [
        { seat: 1, name: "bob", team: "B", won: false, points: 7, elo_delta: -16 },
        { seat: 0, name: "alice", team: "A", won: true, points: 11, elo_delta: 16 },
        { seat: 3, name: "dave", team: "B", won: false, points: 7, elo_delta: -16 },
        { seat: 2, name: "carol", team: "A", won: true, points: 11, elo_delta: 16 },
      ],
    };
    expect(myRow(match, "dave")?.elo_delta).toBe(-16);
    expect(teamPlayers(match, "A").map((p) => p.name)).toEqual(["alice", "carol"]);
    expect(finalScores(match)).toEqual({ A: 11, B: 7 });
    expect(winnerOf(match)).toBe("A");
    expect(finalScores({ ...match, result: {} })).toEqual({ A: 11, B: 7 });
    expect(winnerOf({ ...match, result: {} })).toBe("A");
  });

  it("keep a rematch invitation from the socket", () => {
    const state = reduce(initialGameState, {
      type: "message",
      message: { type: "rematch", game_id: "n", join_code: "Q4WZ7N", by: "alice" },
    });
    expect(state.rematch).toEqual({ game_id: "n", join_code: "Q4WZ7N", by: "alice" });
  });
});
