// Italian and English: the language chosen from the browser or remembered, texts in both, the
// game's own words Italian in both, and Italian's articles and prepositions.
import { afterEach, describe, expect, it } from "vitest";
import { andList, cardName } from "../src/deck";
import { inviteText, lastPlayText, matchGoesOnText, turnText } from "../src/describe";
import { errorText } from "../src/gamestate";
import { aItalian, detectLang, formatDelta, lang, pointsItalian, setLang, tx } from "../src/i18n";
import { fieldsOf } from "../src/schemaform";
import type { GameView } from "../src/types";

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
    you: 0, hand: [], table: [], turn: 1, hand_number: 1, dealer: null, scores: { A: 0, B: 0 }, last_play: null,
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

describe("Italian as a player writes it", () => {
  it("writes ad and ed before a vowel, and the article of a target", () => {
    expect(aItalian("alice")).toBe("ad alice");
    expect(aItalian("bob")).toBe("a bob");
    setLang("it", null);
    expect(andList(["alice", "carol"])).toBe("alice e carol");
    expect(andList(["Esperto", "Esperto"])).toBe("Esperto ed Esperto");
    expect(pointsItalian(11)).toBe("agli 11 punti");
    expect(pointsItalian(21)).toBe("ai 21 punti");
    expect(pointsItalian(8)).toBe("agli 8 punti");
    expect(pointsItalian(81)).toBe("agli 81 punti");
    expect(pointsItalian(1)).toBe("a 1 punto");
    expect(matchGoesOnText(view({ status: "hand_end", scores: { A: 10, B: 4 } }))).toBe(
      "La partita continua fino agli 11 punti: alla tua squadra manca 1 punto, alla squadra B mancano 7 punti.",
    );
  });
});
