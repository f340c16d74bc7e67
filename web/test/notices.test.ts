// Where the notice of a new invitation shows, and how it says who sits at the game.
import { afterEach, describe, expect, it } from "vitest";
import { setLang } from "../src/i18n";
import { seatsText, showsNotices } from "../src/notices";
import { matchRoute } from "../src/router";

afterEach(() => setLang("en", null));

describe("the notice of an invitation", () => {
  it("shows away from the start page (which lists them) and the tables (it would cover the cards)", () => {
    expect(showsNotices(matchRoute("/friends"))).toBe(true);
    expect(showsNotices(matchRoute("/history"))).toBe(true);
    expect(showsNotices(matchRoute("/players/q3Zr8YkV0bT1mWc9LxPa2g"))).toBe(true);
    expect(showsNotices(matchRoute("/"))).toBe(false);
    expect(showsNotices(matchRoute("/games/6f1c"))).toBe(false);
    expect(showsNotices(matchRoute("/watch/6f1c"))).toBe(false);
  });

  it("names who sits at the game, in seat order, and the seats open", () => {
    const game = {
      players: [
        { seat: 2, name: "Bruno", team: "A" as const, is_you: false, bot: "esperto" },
        { seat: 0, name: "carol", team: "A" as const, is_you: false, player: "carol-id-0123456789" },
      ],
      seats_open: 2,
    };
    expect(seatsText(game)).toBe("carol, Bruno, 2 open seats");
    setLang("it", null);
    expect(seatsText({ ...game, seats_open: 1 })).toBe("carol, Bruno, 1 posto libero");
  });
});
