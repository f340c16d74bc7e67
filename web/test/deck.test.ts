// Card names: rank, suit and figure in English, and in Italian as a player says them, with articles.
import { afterEach, describe, expect, it } from "vitest";
import { cardName, cardPhrase, cardsPhrase, DECK } from "../src/deck";
import { lastPlayText, playLine } from "../src/describe";
import { setLang } from "../src/i18n";
import { play, view } from "./fixtures";

afterEach(() => setLang("en", null));

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

describe("Italian as a player writes it", () => {
  it("names cards as players do, with their articles in sentences", () => {
    setLang("it", null);
    expect(cardPhrase("07D")).toBe("il 7 di denari (settebello)");
    expect(cardPhrase("01C")).toBe("l'asso di coppe");
    expect(cardPhrase("08S")).toBe("il fante di spade");
    expect(cardPhrase("09B")).toBe("il cavallo di bastoni");
    expect(cardPhrase("10D")).toBe("il re di denari");
    expect(cardName("01B")).toBe("asso di bastoni");
    expect(cardsPhrase(["01C", "03S", "04B"])).toBe("l'asso di coppe, il 3 di spade e il 4 di bastoni");
    expect(cardName("08S")).toBe("fante di spade");
    expect(cardName("07D")).toBe("7 di denari (settebello)");
    expect(lastPlayText({ ...view(), you: 0 }, play(0, "01C", ["01S"]))).toBe("Hai giocato l'asso di coppe e hai preso l'asso di spade.");
    expect(playLine(view(), play(1, "05S", ["02C", "03D"], true))).toBe("bob gioca il 5 di spade e prende il 2 di coppe e il 3 di denari · Scopa!");
    expect(playLine(view(), play(0, "08B"))).toBe("Giochi il fante di bastoni sul tavolo");
    setLang("en", null);
    expect(cardPhrase("01C")).toBe("1 of coppe");
    expect(cardsPhrase(["01C", "03S"])).toBe("1 of coppe, 3 of spade");
    expect(playLine(view(), play(1, "05S", ["02C"]))).toBe("bob: 5 of spade, took 2 of coppe");
    expect(playLine(view(), play(0, "08B"))).toBe("You: 8 of bastoni (fante) on the table");
  });
});
