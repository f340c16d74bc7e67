// @vitest-environment jsdom
// The spectator's table: the public view read first, then the watch socket (asking for the
// spectators' talk, the count and presence); every seat's back with its count, the table cards, the
// plays as they come, the hand's scoring, the game over; a game that forbids watching says so.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { liveProgress, teamNames, watchLinkLabel } from "../../src/live";
import { asWatched, SpectateScreen, watchedResult } from "../../src/screens/Spectate";
import { WatchScreen } from "../../src/screens/Watch";
import type { LastHand, LiveGame, PublicGameView } from "../../src/types";
import { FakeBrowserSocket, play, view } from "../fixtures";

function publicView(extra: Partial<PublicGameView> = {}, counts = [9, 9, 10, 10]): PublicGameView {
  const { you: _you, hand: _hand, join_code: _code, ...rest } = view({ turn: 2 }, counts);
  return {
    ...rest,
    players: rest.players.map((p) => ({ ...p, is_you: false })),
    table: ["04B", "06C"],
    last_play: play(1, "05S"),
    spectators: 4,
    ...extra,
  } as PublicGameView;
}

let watchAnswer: [number, unknown] = [200, publicView()];

const LIVE: LiveGame = {
  id: "g", game_type: "scopone_scientifico", status: "playing", rating: 1587, spectators: 3, hand_number: 2,
  scores: { A: 4, B: 1 }, updated_at: "2026-12-07T16:00:00.000Z",
  players: [
    { seat: 0, name: "alice", team: "A", player: "p-a" }, { seat: 1, name: "Bruno", team: "B", bot: "esperto" },
    { seat: 2, name: "carol", team: "A", player: "p-c" }, { seat: 3, name: "dave", team: "B", player: "p-d" },
  ],
};

beforeEach(() => {
  setLang("en");
  watchAnswer = [200, publicView()];
  FakeBrowserSocket.all = [];
  vi.stubGlobal("WebSocket", FakeBrowserSocket);
  vi.stubGlobal("fetch", vi.fn(async (url: string) => {
    const json = (body: unknown, status = 200) =>
      new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
    if (url === "/api/games/g/watch") return json(watchAnswer[1], watchAnswer[0]);
    if (url === "/api/phrases") return json({ phrases: [{ id: "hello", text: { en: "Hello!", it: "Ciao!" } }] });
    if (url === "/api/games/g/chat") return json({ messages: [] });
    if (url === "/api/me/muted") return json({ players: [] });
    if (url === "/api/game-types") return json([]);
    if (url.startsWith("/api/games/live")) return json({ games: [LIVE] });
    return json({ detail: "Not Found" }, 404);
  }));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function watch() {
  render(<SpectateScreen id="g" onUnauthenticated={() => {}} />);
  await waitFor(() => expect(FakeBrowserSocket.last).not.toBeNull());
  const socket = FakeBrowserSocket.last!;
  await act(async () => socket.open());
  return socket;
}

describe("the spectator's table", () => {
  it("shows every seat's back with its count, the table, the last play and the watchers", async () => {
    const socket = await watch();
    expect(socket.url).toMatch(/\/ws\/games\/g\/watch\?features=chat,spectators,presence$/);
    await screen.findByTestId("screen-watch-table");
    expect(screen.queryByRole("region", { name: "Your hand" })).toBeNull();
    for (const [name, n] of [["alice", 9], ["bob", 9], ["carol", 10], ["dave", 10]] as const) {
      expect(screen.getByRole("img", { name: `${name} holds ${n} cards` })).toBeTruthy();
    }
    const table = screen.getByRole("region", { name: "Table" });
    expect([...table.querySelectorAll("[data-card]")].map((c) => c.getAttribute("aria-label"))).toEqual(["4 of bastoni", "6 of coppe"]);
    expect(screen.getByTestId("last-play").textContent).toMatch(/^bob played 5 of spade/);
    expect(screen.getByTestId("turn-indicator").textContent).toBe("carol's turn");
    expect(screen.getByRole("img", { name: "4 watching" })).toBeTruthy();
  });

  it("follows the plays as they come, and never asks the socket for anything but talk", async () => {
    const socket = await watch();
    await screen.findByTestId("screen-watch-table");
    await act(async () => socket.receive({ type: "state", game: publicView({ revision: 8, turn: 3, table: ["04B"], last_play: play(2, "06S", ["06C"]) }, [9, 9, 9, 10]) }));
    expect(screen.getByTestId("last-play").textContent).toMatch(/^carol played 6 of spade/);
    expect(screen.getByRole("img", { name: "carol holds 9 cards" })).toBeTruthy();
    expect(screen.getByRole("list", { name: "Last plays" }).textContent).toMatch(/carol/);
    await act(async () => socket.receive({ type: "error", code: "unknown_action", message: "Spectators only talk" }));
    expect(socket.sent).toEqual([]);
  });

  it("has the table's menu, where a spectator switches the language while watching", async () => {
    await watch();
    await screen.findByTestId("screen-watch-table");
    fireEvent.click(screen.getByLabelText("Menu"));
    await act(async () => void fireEvent.click(within(screen.getByRole("group", { name: "Language" })).getByRole("button", { name: "Italiano" })));
    // (the app re-renders every screen on a language change; here the menu shows it)
    expect(screen.getByRole("button", { name: "Italiano" }).getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByRole("link", { name: "Regole dello scopone" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: /^(Leave|Esci)/ })).toBeNull();
  });

  it("talks in the spectators' channel", async () => {
    const socket = await watch();
    await screen.findByTestId("screen-watch-table");
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Spectators' talk" })));
    await act(async () => void fireEvent.click(await screen.findByRole("button", { name: "Hello!" })));
    expect(socket.sent).toMatchObject([{ action: "say", phrase: "hello" }]);
  });

  it("says in the drawer who reads the spectators' talk, before and after the game over", async () => {
    const socket = await watch();
    await screen.findByTestId("screen-watch-table");
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Spectators' talk" })));
    expect(screen.getByTestId("chat-channel").textContent).toBe("Spectators only: the players do not read this until the match is over.");
    await act(async () => socket.receive({ type: "state", game: publicView({ revision: 42, status: "finished", turn: null, winner: "A", scores: { A: 11, B: 7 } }, [0, 0, 0, 0]) }));
    expect(screen.getByTestId("chat-channel").textContent).toBe("The match is over: the players read this talk too.");
  });

  it("shows the hand's scoring between hands, and the result at the end", async () => {
    const socket = await watch();
    const lastHand = {
      hand: 1,
      teams: { A: { cards: 22, denari: 6, settebello: true, primiera: 78, scope: 1, napola: 0, points: 4 },
        B: { cards: 18, denari: 4, settebello: false, primiera: 70, scope: 0, napola: 0, points: 0 } },
      award: { carte: "A", denara: "A", settebello: "A", primiera: "A", napola: null }, scores: { A: 11, B: 7 },
    } as LastHand;
    await act(async () => socket.receive({ type: "state", game: publicView({ revision: 41, status: "hand_end", turn: null, last_hand: lastHand, acknowledged: [0], scores: { A: 11, B: 7 } }, [0, 0, 0, 0]) }));
    expect(screen.getByTestId("screen-watch-hand-end").textContent).toMatch(/Hand 1 is over/);
    expect(screen.getByRole("table", { name: "Scoring of hand 1" })).toBeTruthy();
    await act(async () => socket.receive({ type: "state", game: publicView({ revision: 42, status: "finished", turn: null, last_hand: lastHand, winner: "A", scores: { A: 11, B: 7 } }, [0, 0, 0, 0]) }));
    expect(screen.getByTestId("watch-result").textContent).toBe("Team A wins 11–7: alice & carol.");
  });

  it("says so when the game does not allow spectators", async () => {
    watchAnswer = [403, { detail: "This game does not allow spectators" }];
    render(<SpectateScreen id="g" onUnauthenticated={() => {}} />);
    expect((await screen.findByTestId("screen-game-error")).textContent).toMatch(/does not allow spectators/);
    expect(FakeBrowserSocket.all).toEqual([]);
  });
});

describe("the Watch page", () => {
  it("lists a live table with its score, its people's average rating (as the open tables say it) and a Watch link", async () => {
    render(<WatchScreen />);
    const item = await screen.findByTestId("live-game");
    expect(item.textContent).toMatch(/4–1 · hand 2/);
    expect(item.textContent).toMatch(/average rating 1587/);
    expect(screen.getByRole("link", { name: "Watch alice & carol against Bruno & dave" }).getAttribute("href")).toBe("/watch/g");
    cleanup();
    setLang("it");
    render(<WatchScreen />);
    expect((await screen.findByTestId("live-game")).textContent).toMatch(/Elo medio 1587/);
  });
});

describe("the live tables", () => {
  const live: LiveGame = {
    id: "g", game_type: "scopone_scientifico", status: "playing", rating: 1587, spectators: 3, hand_number: 2,
    scores: { A: 4, B: 1 }, updated_at: "2026-12-07T16:00:00.000Z",
    players: [
      { seat: 0, name: "alice", team: "A", player: "p-a" }, { seat: 1, name: "Bruno", team: "B", bot: "esperto" },
      { seat: 2, name: "carol", team: "A", player: "p-c" }, { seat: 3, name: "dave", team: "B", player: "p-d" },
    ],
  };

  it("name the teams, the score and the hand, and each Watch link by who plays", () => {
    expect(teamNames(live, "A")).toBe("alice & carol");
    expect(teamNames(live, "B")).toBe("Bruno & dave");
    expect(liveProgress(live)).toBe("4–1 · hand 2");
    expect(liveProgress({ ...live, status: "hand_end" })).toBe("4–1 · end of hand 2");
    expect(liveProgress({ ...live, status: "seeding", hand_number: null })).toBe("Shuffling together");
    expect(watchLinkLabel(live)).toBe("Watch alice & carol against Bruno & dave");
  });

  it("read a public view as a view of nobody's seat", () => {
    const seen = asWatched(publicView());
    expect(seen.you).toBe(-1);
    expect(seen.hand).toEqual([]);
    expect(watchedResult({ winner: "B", scores: { A: 3, B: 11 } })).toBe("Team B wins 11–3.");
    expect(watchedResult({ winner: "B", scores: { A: 3, B: 11 }, players: seen.players })).toBe("Team B wins 11–3: bob & dave.");
    setLang("it");
    expect(watchedResult({ winner: "B", scores: { A: 3, B: 11 }, players: seen.players })).toBe("Vince la squadra B, 11 a 3: bob & dave.");
  });
});
