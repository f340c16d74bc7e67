// @vitest-environment jsdom
// The hand end as a person meets it: the hand's scoring comes first (on a phone it is what the
// screen shows, before OK), in Italian as an Italian says it, and a newcomer's first hand end
// offers a one-line tip.
import { cleanup, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { initialGameState } from "../../src/gamestate";
import { setLang } from "../../src/i18n";
import { HandEndScreen } from "../../src/screens/HandEnd";
import type { GameView, LastHand } from "../../src/types";
import type { GameConnection } from "../../src/usegame";
import { view } from "../fixtures";

/** The server: no bot levels, the member's history (``finished`` matches; several numbers: one
 * per read, in turn), no log. */
function server(...finished: number[]) {
  vi.stubGlobal("fetch", vi.fn(async (url: string) => {
    const matches = url.startsWith("/api/me/matches");
    const n = matches && finished.length > 1 ? (finished.shift() ?? 0) : finished[0];
    const body = matches
      ? { items: Array.from({ length: n }, (_, i) => ({ id: `m${i}` })), next_cursor: null }
      : url === "/api/game-types" ? [] : { detail: "Not Found" };
    return new Response(JSON.stringify(body), { status: url.includes("/log") ? 404 : 200, headers: { "Content-Type": "application/json" } });
  }));
}

function lastHand(hand: number): LastHand {
  const a = { cards: 22, denari: 5, settebello: true, primiera: 78, scope: 1, napola: 0, points: 3 };
  const b = { cards: 18, denari: 5, settebello: false, primiera: 70, scope: 0, napola: 0, points: 0 };
  return { hand, teams: { A: a, B: b }, award: { carte: "A", denara: null, settebello: "A", primiera: "A", napola: null }, scores: { A: 3, B: 0 } };
}

function show(hand: number) {
  const v: GameView = view({
    status: "hand_end", hand_number: hand, turn: null, last_hand: lastHand(hand), acknowledged: [],
    options: { target_score: 11, napola: false },
  }, [0, 0, 0, 0]);
  const game: GameConnection = {
    state: { ...initialGameState, view: v }, connection: "open", fatal: null,
    send: () => true, adopt: () => undefined, dismissError: () => undefined,
  };
  render(<HandEndScreen view={v} game={game} alert={null} />);
}

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
});

describe("the hand end", () => {
  it("shows the hand's scoring first, before OK and the rest", () => {
    server(1);
    show(1);
    const scoring = screen.getByRole("table", { name: "Scoring of hand 1" });
    const ok = screen.getByRole("button", { name: "OK" });
    const score = screen.getAllByRole("group", { name: "Match score" })[0];
    const ready = screen.getByRole("heading", { name: "Ready for the next hand" });
    const before = (a: Element, b: Element) => Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    expect(before(screen.getByRole("heading", { level: 1 }), scoring)).toBe(true);
    expect(before(scoring, ok)).toBe(true);
    expect(before(ok, score)).toBe(true);
    expect(before(ok, ready)).toBe(true);
  });

  it("says the team and a tie as an Italian says them", () => {
    server(1);
    setLang("it", null);
    show(1);
    const scoring = screen.getByRole("table", { name: "Punteggio della mano 1" });
    expect(scoring.querySelector("thead")?.textContent).toContain("Squadra A (la tua)");
    expect(scoring.textContent).toContain("nessuno (patta)");
    expect(scoring.textContent).not.toContain("(tu)");
  });

  it("offers a newcomer a one-line tip at their first hand end", async () => {
    server(0);
    show(1);
    expect((await screen.findByTestId("first-hand-hint")).textContent).toMatch(/^Tip: before you lay a card, add up the table\./);
  });

  it("offers no tip after the first hand, nor to a member who has finished a match", async () => {
    // Three pages, read in turn: a newcomer at hand 2, a member with a match at hand 1, and a
    // newcomer at hand 1 (the last read: once its tip shows, the others have their answers).
    server(0, 1, 0);
    show(2);
    show(1);
    show(1);
    expect(await screen.findAllByTestId("first-hand-hint")).toHaveLength(1);
    expect(screen.getAllByRole("table", { name: /^Scoring of hand/ })).toHaveLength(3);
  });
});
