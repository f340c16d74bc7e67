// @vitest-environment jsdom
// The table as a person meets it: the real TableScreen rendered into a DOM and read through its
// roles and accessible names (the cards "7 of denari (settebello)", the hand and the table as
// regions, the turn), clicked like a player would; and each seat's state beside its name.
import { cleanup, fireEvent, render, screen, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { turnText } from "../../src/describe";
import { initialGameState } from "../../src/gamestate";
import { setLang } from "../../src/i18n";
import { SeatInfo, TableScreen, type ClosingShow } from "../../src/screens/Table";
import type { Trail } from "../../src/plays";
import type { GameView, LegalPlay } from "../../src/types";
import type { GameConnection } from "../../src/usegame";
import { LEVELS, play, table, view } from "../fixtures";
import { byTestId, shown, spoken } from "../render";

beforeEach(() => {
  // The table asks the server for the game type's bot levels: it offers none here.
  vi.stubGlobal("fetch", vi.fn(async () => new Response("[]", { status: 200, headers: { "Content-Type": "application/json" } })));
});

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
});

/** Your turn (seat 0) with four cards, four on the table, and the server's legal plays: the ace
 * only lays, the 5 takes the 5, the settebello takes either 2+5 or 3+4, the cavallo 2+3+4 or 4+5. */
const LEGAL: LegalPlay[] = [
  { card: "01C", captures: [[]] },
  { card: "05C", captures: [["05D"]] },
  { card: "07D", captures: [["02B", "05D"], ["03S", "04B"]] },
  { card: "09B", captures: [["02B", "03S", "04B"], ["04B", "05D"]] },
];

function yourTurn(extra: Partial<GameView> = {}): GameView {
  return view(
    {
      hand: ["01C", "05C", "07D", "09B"], table: ["02B", "03S", "04B", "05D"], turn: 0, your_turn: true,
      legal: LEGAL, revision: 12, last_play: play(3, "05D"), ...extra,
    },
    [4, 3, 3, 3],
  );
}

/** The screen with a connection that records what it sends. */
function show(v: GameView, options: { connection?: GameConnection["connection"]; pending?: number; closing?: ClosingShow; trail?: Trail } = {}) {
  const sent: [object, number | undefined][] = [];
  const game: GameConnection = {
    state: { ...initialGameState, view: v, pendingRevision: options.pending ?? null },
    connection: options.connection ?? "open",
    fatal: null,
    send: (action, revision) => (sent.push([action, revision]), true),
    adopt: () => undefined,
    dismissError: () => undefined,
  };
  render(<TableScreen view={v} game={game} alert={null} closing={options.closing ?? null} trail={options.trail ?? null} />);
  return sent;
}

const hand = (name = "Your hand") => within(screen.getByRole("region", { name }));
const onTable = (name = "Table") => within(screen.getByRole("region", { name }));
const enabled = (button: HTMLElement) => button.getAttribute("aria-disabled") !== "true";

describe("the table screen", () => {
  it("names every card in the hand and on the table, and says whose turn it is", () => {
    show(yourTurn());
    expect(hand().getAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual([
      "1 of coppe", "5 of coppe", "7 of denari (settebello)", "9 of bastoni (cavallo)",
    ]);
    expect(hand().getByRole("button", { name: "7 of denari (settebello)" })).toBeTruthy();
    expect(onTable().getAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual([
      "2 of bastoni", "3 of spade", "4 of bastoni", "5 of denari",
    ]);
    expect(screen.getByTestId("turn-indicator").textContent).toBe("Your turn");
    expect(screen.getByTestId("last-play").textContent).toBe("dave played 5 of denari on the table.");
    expect(screen.getByRole("img", { name: "bob holds 3 cards" })).toBeTruthy();
  });

  it("lights only the cards the server lists as legal, and a card left out does nothing", () => {
    const sent = show(yourTurn({ legal: LEGAL.filter((p) => p.card !== "09B") }));
    const buttons = hand().getAllByRole("button");
    expect(buttons.map((b) => [b.getAttribute("aria-label"), enabled(b)])).toEqual([
      ["1 of coppe", true], ["5 of coppe", true], ["7 of denari (settebello)", true], ["9 of bastoni (cavallo)", false],
    ]);
    // The table's cards wait for a capture to be chosen.
    expect(onTable().getAllByRole("button").some(enabled)).toBe(false);
    fireEvent.click(hand().getByRole("button", { name: "9 of bastoni (cavallo)" }));
    expect(sent).toEqual([]);
  });

  it("plays a card with a single capture at once, with the revision it saw", () => {
    const sent = show(yourTurn());
    fireEvent.click(hand().getByRole("button", { name: "5 of coppe" }));
    expect(sent).toEqual([[{ action: "play", card: "05C", capture: ["05D"], revision: 12 }, 12]]);
    expect(screen.queryByRole("group", { name: "Choose a capture" })).toBeNull();
  });

  it("lays a card that takes nothing without a capture", () => {
    const sent = show(yourTurn());
    fireEvent.click(hand().getByRole("button", { name: "1 of coppe" }));
    expect(sent).toEqual([[{ action: "play", card: "01C", revision: 12 }, 12]]);
  });

  it("opens the chooser for a card with several captures, and plays the one chosen", () => {
    const sent = show(yourTurn());
    fireEvent.click(hand().getByRole("button", { name: "7 of denari (settebello)" }));
    expect(sent).toEqual([]);
    const chooser = within(screen.getByRole("group", { name: "Choose a capture" }));
    expect(chooser.getAllByRole("button").map((b) => b.textContent)).toEqual([
      "Take 2 of bastoni, 5 of denari", "Take 3 of spade, 4 of bastoni", "Cancel",
    ]);
    // Every table card some capture takes can be picked too.
    expect(onTable().getAllByRole("button").map(enabled)).toEqual([true, true, true, true]);
    fireEvent.click(chooser.getByRole("button", { name: "Take 3 of spade, 4 of bastoni" }));
    expect(sent).toEqual([[{ action: "play", card: "07D", capture: ["03S", "04B"], revision: 12 }, 12]]);
    expect(screen.queryByRole("group", { name: "Choose a capture" })).toBeNull();
  });

  it("chooses the capture from the table cards picked, and cancels without playing", () => {
    const sent = show(yourTurn());
    fireEvent.click(hand().getByRole("button", { name: "7 of denari (settebello)" }));
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("group", { name: "Choose a capture" })).toBeNull();
    expect(sent).toEqual([]);

    fireEvent.click(hand().getByRole("button", { name: "9 of bastoni (cavallo)" }));
    fireEvent.click(onTable().getByRole("button", { name: "4 of bastoni" })); // in both captures: wait
    expect(sent).toEqual([]);
    expect(onTable().getByRole("button", { name: "4 of bastoni" }).getAttribute("aria-pressed")).toBe("true");
    expect(onTable().getByRole("button", { name: "5 of denari" }).getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(onTable().getByRole("button", { name: "5 of denari" }));
    expect(sent).toEqual([[{ action: "play", card: "09B", capture: ["04B", "05D"], revision: 12 }, 12]]);
  });

  it("keeps every card dark on another's turn, while disconnected and while a card is on its way", () => {
    const others = show(yourTurn({ turn: 1, your_turn: undefined, legal: undefined }));
    expect(screen.getByTestId("turn-indicator").textContent).toBe("bob's turn");
    expect(hand().getAllByRole("button").some(enabled)).toBe(false);
    fireEvent.click(hand().getByRole("button", { name: "5 of coppe" }));
    expect(others).toEqual([]);
    cleanup();

    show(yourTurn(), { connection: "reconnecting" });
    expect(hand().getAllByRole("button").some(enabled)).toBe(false);
    expect(screen.getByText(/^Not connected: your cards wake up again/)).toBeTruthy();
    cleanup();

    const pending = show(yourTurn(), { pending: 12 });
    expect(hand().getAllByRole("button").some(enabled)).toBe(false);
    expect(screen.getByText("Sending your card…")).toBeTruthy();
    fireEvent.click(hand().getByRole("button", { name: "5 of coppe" }));
    expect(pending).toEqual([]);
  });

  it("says when the table and the hand are empty", () => {
    show(yourTurn({ hand: [], table: [], legal: [], your_turn: undefined, turn: 2 }));
    expect(onTable().getByText("The table is empty")).toBeTruthy();
    expect(hand().getByText("No cards left in your hand")).toBeTruthy();
    expect(hand().queryAllByRole("button")).toHaveLength(0);
  });

  it("holds the end of a hand on the table: who gets the last cards, and a way on to the scoring", () => {
    const skip = vi.fn();
    const closing = view(
      { hand: [], table: ["02C", "06B"], turn: null, revision: 40, last_play: play(3, "09D", ["09S"]) },
      [0, 0, 0, 0],
    );
    const sent = show(closing, { closing: { sweep: { cards: ["02C", "06B"], seat: 1 }, skip } });
    expect(screen.getByTestId("turn-indicator").textContent).toBe("Hand over");
    const note = screen.getByRole("status");
    expect(note.textContent).toContain(
      "Hand over: the last 2 cards (2 of coppe, 6 of bastoni) go to bob, who made the last capture.",
    );
    expect(onTable().getAllByRole("button").some(enabled)).toBe(false);
    fireEvent.click(within(note).getByRole("button", { name: "See the hand's scoring" }));
    expect(skip).toHaveBeenCalled();
    expect(sent).toEqual([]);
  });

  it("says it all in Italian when the language is Italian", () => {
    setLang("it", null);
    const sent = show(yourTurn());
    expect(screen.getByTestId("turn-indicator").textContent).toBe("Tocca a te");
    expect(hand("La tua mano").getAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual([
      "asso di coppe", "5 di coppe", "7 di denari (settebello)", "cavallo di bastoni",
    ]);
    expect(onTable("Tavolo").getByRole("button", { name: "2 di bastoni" })).toBeTruthy();
    fireEvent.click(hand("La tua mano").getByRole("button", { name: "7 di denari (settebello)" }));
    const chooser = within(screen.getByRole("group", { name: "Scegli una presa" }));
    fireEvent.click(chooser.getByRole("button", { name: "Prendi il 3 di spade e il 4 di bastoni" }));
    expect(sent).toEqual([[{ action: "play", card: "07D", capture: ["03S", "04B"], revision: 12 }, 12]]);
  });
});

describe("who plays a seat, as the table shows it", () => {
  it("shows every seat's state at the table: bots, a stand-in, offline", () => {
    // (No dealer known: the view has none, and its options say the first dealer was drawn.)
    const view = table([{ name: "Bruno", bot: "maestro" }, { bot: "esperto", took_over: true }, { connected: false }],
      { options: { first_dealer: "drawn" } });
    const info = (seatNo: number) => <SeatInfo view={view} player={view.players[seatNo]} levels={LEVELS} />;
    // A bot by its name, its level beside it (and "bot" to a screen reader).
    expect(shown(info(1))).toBe("Bruno opponent, team B Master taken 0");
    expect(spoken(info(1))).toContain("Bruno opponent, team B bot, Master");
    expect(turnText(view)).toBe("Bruno's turn");
    expect(shown(info(2))).toContain("carol partner, team A (bot for carol)");
    expect(shown(info(3))).toContain("dave opponent, team B offline");
    expect(shown(info(0))).toBe("You team A taken 0");
    expect(byTestId(info(1), "seat-info")[0].props["data-seat"]).toBe(1);
  });
});

describe("the recent plays", () => {
  it("marks a timed-out turn's card auto in the recent plays, and no other", () => {
    const trail: Trail = {
      hand: 1,
      plays: [
        { ...play(1, "02C"), n: 1 },
        { ...play(2, "03S"), auto: true, n: 2 },
        { ...play(3, "05D"), n: 3 },
      ],
    };
    show(yourTurn(), { trail });
    const items = within(screen.getByRole("list", { name: "Last plays" })).getAllByRole("listitem");
    expect(items).toHaveLength(3);
    const marks = items.map((item) => item.querySelector(".trail-auto")?.textContent ?? null);
    expect(marks).toEqual([null, "auto", null]);
    expect(items[1].textContent).toContain("carol: 3 of spade on the table (auto)");
  });
});

describe("the keyboard and the heading", () => {
  it("has a heading for the page (visually hidden)", () => {
    show(yourTurn());
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("The table, hand 1");
  });

  it("closes the menu on Escape, and puts the keyboard back on its button", () => {
    show(yourTurn());
    const summary = screen.getByLabelText("Menu");
    const menu = summary.closest("details") as HTMLDetailsElement;
    menu.open = true;
    screen.getByRole("link", { name: "Rules of scopone" }).focus();
    fireEvent.keyDown(document, { key: "Escape" });
    expect(menu.open).toBe(false);
    expect(document.activeElement).toBe(summary);
  });

  it("moves between the cards with the arrow keys, in the hand and on the table", () => {
    show(yourTurn());
    const cards = hand().getAllByRole("button");
    cards[0].focus();
    fireEvent.keyDown(cards[0], { key: "ArrowRight" });
    expect(document.activeElement).toBe(cards[1]);
    fireEvent.keyDown(cards[1], { key: "ArrowLeft" });
    fireEvent.keyDown(cards[0], { key: "ArrowLeft" }); // round to the last
    expect(document.activeElement).toBe(cards[3]);
    fireEvent.keyDown(cards[3], { key: "Home" });
    expect(document.activeElement).toBe(cards[0]);
    const tableCards = onTable().getAllByRole("button");
    tableCards[1].focus();
    fireEvent.keyDown(tableCards[1], { key: "ArrowDown" });
    expect(document.activeElement).toBe(tableCards[2]);
  });
});

describe("who deals and who leads", () => {
  it("shows who dealt the hand and who leads it", () => {
    show(yourTurn({ dealer: 2, options: { first_dealer: "drawn" } }));
    const role = (seat: number) => document.querySelector(`[data-seat="${seat}"] [data-testid="seat-role"]`)?.textContent ?? null;
    expect([0, 1, 2, 3].map(role)).toEqual([null, null, "dealer", "leads"]);
    cleanup();
    setLang("it", null);
    show(yourTurn({ dealer: 3, options: { first_dealer: "drawn" } }));
    expect([0, 1, 2, 3].map(role)).toEqual(["di mano", null, null, "mazziere"]);
  });
});

describe("the table in Italian", () => {
  it("counts a seat's cards taken as Italian says it", () => {
    setLang("it", null);
    const v = table([{}, {}, {}], { options: { first_dealer: "drawn" } });
    v.players[1].captured_count = 6;
    expect(shown(<SeatInfo view={v} player={v.players[1]} />)).toContain("6 carte prese");
  });
});
