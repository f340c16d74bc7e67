// @vitest-environment jsdom
// The rules page: who deals first is drawn by lot (CONTRACT, Turns and deadlines), in both languages.
import { cleanup, render } from "@testing-library/preact";
import { afterEach, describe, expect, it } from "vitest";
import { setLang } from "../../src/i18n";
import { RulesScreen } from "../../src/screens/Rules";

afterEach(() => {
  cleanup();
  setLang("en", null);
});

describe("the rules", () => {
  it("say the first dealer is drawn and the player after the dealer leads", () => {
    render(<RulesScreen />);
    expect(document.body.textContent).toMatch(/The first dealer is drawn by lot, from the game's seed; the player after the dealer leads/);
    expect(document.body.textContent).not.toMatch(/led by seat 1/);
  });

  it("say it in Italian too", () => {
    setLang("it", null);
    render(<RulesScreen />);
    expect(document.body.textContent).toMatch(/Il primo mazziere è estratto a sorte dal seed della partita; è di mano chi siede dopo di lui/);
  });
});
