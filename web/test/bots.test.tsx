// Bots: who may seat them, how a seat shows who plays it, when a practice player may take a card
// back, the one-click game against the computer (its requests, in order), leaving and coming back,
// and how the history marks practice matches, bots and abandonments.
import { afterEach, describe, expect, it, vi } from "vitest";
import { api } from "../src/api";
import {
  aloneWithBots,
  botSeatsFor,
  canTakeBack,
  creatorSeat,
  defaultBotLevel,
  displayName,
  isPracticeView,
  levelName,
  playAgainstComputer,
  playAgainWithBots,
  seatState,
  youAreCreator,
  yourSeatTakenOver,
} from "../src/bots";
import { SeatMarks } from "../src/botmarks";
import { turnText } from "../src/describe";
import { initialGameState, reduce } from "../src/gamestate";
import { eloChange, isPractice, myRow, unratedKind } from "../src/history";
import { setLang } from "../src/i18n";
import { leaveWarning, TakeBack } from "../src/seatcontrols";
import { SeatInfo } from "../src/screens/Table";
import type { BotLevel, GamePlayer, GameView, LobbyPlayer, LobbyView, MatchItem, MatchPlayer } from "../src/types";
import type { GameConnection } from "../src/usegame";
import { buttons, byTestId, nameOf, shown, spoken } from "./render";

afterEach(() => {
  setLang("en", null);
  vi.unstubAllGlobals();
});

const LEVELS: BotLevel[] = [
  { id: "principiante", name: "Beginner" },
  { id: "esperto", name: "Expert" },
  { id: "maestro", name: "Master" },
];

function lobby(players: LobbyPlayer[]): LobbyView {
  return {
    id: "g1", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "lobby", options: {},
    players, seats_open: 4 - players.length, created_at: "2026-12-02T10:00:00.000Z",
  };
}

const person = (seat: number, name: string, is_you = false): LobbyPlayer =>
  ({ seat, name, team: seat % 2 ? "B" : "A", is_you });
const bot = (seat: number, level = "esperto"): LobbyPlayer =>
  ({ seat, name: `Bot ${seat + 1}`, team: seat % 2 ? "B" : "A", is_you: false, bot: level });

/** A table where you sit at seat 0; `others` says who plays seats 1..3. */
function table(others: Partial<GamePlayer>[], extra: Partial<GameView> = {}): GameView {
  const players: GamePlayer[] = [0, 1, 2, 3].map((seat) => ({
    seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
    card_count: 9, captured_count: 0, scope: 0, is_you: seat === 0, connected: true,
    ...(seat === 0 ? {} : others[seat - 1]),
  }));
  return {
    id: "g1", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "playing", options: {},
    players, you: 0, hand: ["01C"], table: [], turn: 1, hand_number: 1, scores: { A: 0, B: 0 },
    last_play: { seat: 0, card: "07D", capture: [], scopa: false, auto: false },
    seed_commitment: "c1", revision: 8, ...extra,
  };
}
const threeBots = [{ bot: "esperto" }, { bot: "esperto" }, { bot: "maestro" }];

describe("who is the creator", () => {
  it("is the lowest-seated person; bots never are", () => {
    expect(creatorSeat([person(0, "alice"), bot(1), person(2, "carol")])).toBe(0);
    expect(creatorSeat([bot(0), person(2, "carol"), person(3, "dave")])).toBe(2);
    expect(creatorSeat([bot(1), bot(2)])).toBeNull();
    expect(creatorSeat([])).toBeNull();
  });

  it("lets only the creator seat bots, and passes on when the creator leaves", () => {
    expect(youAreCreator(lobby([person(0, "alice", true), person(1, "bob")]))).toBe(true);
    expect(youAreCreator(lobby([person(0, "alice"), person(1, "bob", true)]))).toBe(false);
    // alice left the lobby: bob, now the lowest-seated person, seats the bots.
    expect(youAreCreator(lobby([bot(0), person(1, "bob", true), person(3, "dave")]))).toBe(true);
    expect(youAreCreator(lobby([person(1, "bob"), person(3, "dave")]))).toBe(false);
  });
});

describe("the bot levels", () => {
  it("offer esperto first, else the middle level", () => {
    expect(defaultBotLevel(LEVELS)).toBe("esperto");
    expect(defaultBotLevel([{ id: "a", name: "A" }, { id: "b", name: "B" }, { id: "c", name: "C" }])).toBe("b");
    expect(defaultBotLevel([])).toBe("esperto");
  });

  it("are named in the current language", () => {
    expect(LEVELS.map((l) => levelName(l.id, LEVELS))).toEqual(["Beginner", "Expert", "Master"]);
    expect(levelName("esperto")).toBe("Expert"); // before the game types are read
    expect(levelName("campione", [{ id: "campione", name: "Champion" }])).toBe("Champion");
    setLang("it", null);
    expect(LEVELS.map((l) => levelName(l.id, LEVELS))).toEqual(["Principiante", "Esperto", "Maestro"]);
    expect(levelName("campione", [{ id: "campione", name: "Champion" }])).toBe("Champion");
  });
});

describe("who plays a seat, as the table shows it", () => {
  const seat = (extra: Partial<GamePlayer>): GamePlayer => ({
    seat: 1, name: "bob", team: "B", card_count: 9, captured_count: 0, scope: 0, is_you: false, connected: true, ...extra,
  });

  it("reads the player item", () => {
    expect(seatState(seat({}))).toEqual({ kind: "person", offline: false });
    expect(seatState(seat({ connected: false }))).toEqual({ kind: "person", offline: true });
    expect(seatState(seat({ bot: "maestro" }))).toEqual({ kind: "bot", level: "maestro" });
    expect(seatState(seat({ bot: "esperto", took_over: true }))).toEqual({ kind: "took_over", level: "esperto", name: "bob" });
    expect(seatState(bot(2))).toEqual({ kind: "bot", level: "esperto" }); // a lobby item
    expect(seatState(person(2, "carol"))).toEqual({ kind: "person", offline: false }); // no `connected` in a lobby
  });

  it("names a bot by its level, in the current language; a stand-in keeps the person's name", () => {
    // The server names a bot by its level's id ("Esperto").
    expect(displayName({ name: "Esperto", bot: "esperto" }, LEVELS)).toBe("Expert");
    expect(displayName({ name: "Maestro", bot: "maestro" })).toBe("Master");
    expect(displayName({ name: "carol", bot: "esperto", took_over: true }, LEVELS)).toBe("carol");
    expect(displayName({ name: "Campione", bot: "campione" })).toBe("Campione"); // a level the app does not know yet
    expect(displayName({ name: "bob" })).toBe("bob");
    setLang("it", null);
    expect(displayName({ name: "Esperto", bot: "esperto" }, LEVELS)).toBe("Esperto");
    expect(displayName({ name: "Principiante", bot: "principiante" }, LEVELS)).toBe("Principiante");
  });

  it("marks a bot with a robot and the word bot, its level in the title", () => {
    const marks = <SeatMarks player={seat({ bot: "esperto" })} levels={LEVELS} />;
    expect(shown(marks)).toBe("bot");
    expect(spoken(marks)).toBe("bot"); // the robot is drawn, not read
    const [mark] = byTestId(marks, "bot-mark");
    expect(mark.props.title).toBe("Bot, level Expert");
    expect(mark.props["data-level"]).toBe("esperto");
  });

  it("marks a bot standing in for a person who left, and a person who is offline", () => {
    expect(shown(<SeatMarks player={seat({ bot: "esperto", took_over: true })} />)).toBe("(bot for bob)");
    expect(shown(<SeatMarks player={seat({ bot: "esperto", took_over: true })} yours />)).toBe("(bot for you)");
    expect(shown(<SeatMarks player={seat({ connected: false })} />)).toBe("offline");
    expect(byTestId(<SeatMarks player={seat({ connected: false })} />, "offline-mark")).toHaveLength(1);
    expect(shown(<SeatMarks player={seat({})} />)).toBe("");
    expect(shown(<SeatMarks player={seat({ connected: false })} yours />)).toBe(""); // this page is here
  });

  it("says it in Italian too", () => {
    setLang("it", null);
    expect(byTestId(<SeatMarks player={seat({ bot: "esperto" })} levels={LEVELS} />, "bot-mark")[0].props.title).toBe("Bot, livello Esperto");
    expect(shown(<SeatMarks player={seat({ bot: "esperto", took_over: true })} />)).toBe("(bot al posto di bob)");
    expect(shown(<SeatMarks player={seat({ connected: false })} />)).toBe("non connesso");
  });

  it("shows every seat's state at the table: bots, a stand-in, offline", () => {
    const view = table([{ name: "Maestro", bot: "maestro" }, { bot: "esperto", took_over: true }, { connected: false }]);
    const info = (seatNo: number) => <SeatInfo view={view} player={view.players[seatNo]} levels={LEVELS} />;
    expect(shown(info(1))).toBe("Master opponent, team B bot taken 0");
    expect(turnText(view)).toBe("Master's turn");
    expect(shown(info(2))).toContain("carol partner, team A (bot for carol)");
    expect(shown(info(3))).toContain("dave opponent, team B offline");
    expect(shown(info(0))).toBe("You team A taken 0");
    expect(byTestId(info(1), "seat-info")[0].props["data-seat"]).toBe(1);
  });
});

describe("practice and take-back", () => {
  it("knows a practice table and when you are alone with bots", () => {
    expect(isPracticeView(table(threeBots))).toBe(true);
    expect(aloneWithBots(table(threeBots))).toBe(true);
    expect(isPracticeView(table([{ bot: "esperto" }, {}, { bot: "esperto" }]))).toBe(true);
    expect(aloneWithBots(table([{ bot: "esperto" }, {}, { bot: "esperto" }]))).toBe(false);
    // A bot standing in for a person who left: not practice, and that person may come back.
    const stoodIn = table([{ bot: "esperto" }, { bot: "esperto", took_over: true }, { bot: "esperto" }]);
    expect(aloneWithBots(stoodIn)).toBe(false);
    expect(isPracticeView(table([{}, { bot: "esperto", took_over: true }, {}]))).toBe(false);
  });

  it("offers Take back after your own play while it is a bot's turn", () => {
    expect(canTakeBack(table(threeBots), null)).toBe(true);
  });

  it("offers it right after your play too, when your card ended the hand", () => {
    const handEnd = table(threeBots, { status: "hand_end", turn: null, revision: 9 });
    expect(canTakeBack(handEnd, 8)).toBe(true);
    expect(canTakeBack(handEnd, null)).toBe(false);
    expect(canTakeBack({ ...handEnd, revision: 10 }, 8)).toBe(false); // a bot acknowledged meanwhile
  });

  it("does not offer it once someone played after you, nor for others' plays or automatic ones", () => {
    const botPlayed = table(threeBots, { turn: 2, last_play: { seat: 1, card: "05S", capture: [], scopa: false, auto: false } });
    expect(canTakeBack(botPlayed, 7)).toBe(false);
    expect(canTakeBack(table(threeBots, { last_play: null, turn: 0 }), null)).toBe(false);
    expect(canTakeBack(table(threeBots, { last_play: { seat: 0, card: "07D", capture: [], scopa: false, auto: true } }), 7)).toBe(false);
    expect(canTakeBack(table(threeBots, { turn: 0, your_turn: true }), 3)).toBe(false);
  });

  it("does not offer it with another person at the table, or at a finished game", () => {
    expect(canTakeBack(table([{ bot: "esperto" }, {}, { bot: "esperto" }]), 7)).toBe(false);
    expect(canTakeBack(table(threeBots, { status: "finished", turn: null, revision: 9 }), 8)).toBe(false);
  });

  it("remembers the revision a play was sent at, not an acknowledgement's", () => {
    let s = reduce(initialGameState, { type: "sent", revision: 8, play: true });
    expect(s.playedAt).toBe(8);
    s = reduce(s, { type: "sent", revision: 12 });
    expect(s.playedAt).toBe(8);
  });

  it("sends a takeback with the revision it saw", () => {
    const sent: [object, number | undefined][] = [];
    const game = {
      state: { ...initialGameState, playedAt: 7 }, connection: "open", fatal: null,
      send: (action: object, revision?: number) => (sent.push([action, revision]), true),
      adopt: () => undefined, dismissError: () => undefined,
    } as GameConnection;
    const shownNow = <TakeBack view={table(threeBots)} game={game} />;
    const [button] = buttons(shownNow);
    expect(nameOf(button)).toBe("Take back");
    (button.props.onClick as () => void)();
    expect(sent).toEqual([[{ action: "takeback", revision: 8 }, 8]]);
    expect(buttons(<TakeBack view={table(threeBots, { turn: 0, last_play: null })} game={game} />)).toHaveLength(0);
    expect(buttons(<TakeBack view={table(threeBots)} game={{ ...game, connection: "reconnecting" }} />)).toHaveLength(0);
  });

  it("shows a refused takeback like any refused move", () => {
    const s = reduce(initialGameState, {
      type: "message", message: { type: "error", code: "illegal_move", message: "Nothing to take back" },
    });
    expect(s.error?.message).toBe("Nothing to take back");
  });
});

describe("leaving and coming back", () => {
  it("warns what leaving costs", () => {
    expect(leaveWarning(false)).toBe("A bot will play your seat for the rest of the match; leaving costs you the match's rating.");
    expect(leaveWarning(true)).toBe("A bot will play your seat for the rest of the match.");
    setLang("it", null);
    expect(leaveWarning(false)).toMatch(/^Un bot giocherà al tuo posto per il resto della partita; se te ne vai, perdi i punti Elo/);
  });

  it("knows when a bot took your own seat", () => {
    expect(yourSeatTakenOver(table(threeBots))).toBe(false);
    const view = table(threeBots);
    view.players[0] = { ...view.players[0], bot: "esperto", took_over: true };
    expect(yourSeatTakenOver(view)).toBe(true);
    expect(canTakeBack(view, 7)).toBe(false);
  });
});

/** A fetch that records every request and answers from a list, in order. */
function fakeFetch(answers: [number, unknown][]) {
  const requests: { method: string; url: string; body: unknown }[] = [];
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    requests.push({ method: init.method ?? "GET", url, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const [status, body] = answers.shift() ?? [500, { detail: "no answer left" }];
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  });
  vi.stubGlobal("fetch", fetch);
  return requests;
}

describe("play against the computer", () => {
  const created = lobby([person(0, "alice", true)]);
  const withBots = (...seats: number[]) => lobby([person(0, "alice", true), ...seats.map((s) => bot(s))]);
  const started = { ...table(threeBots), revision: 1 };

  it("puts the bots at every open seat, or at the other team's with a friend", () => {
    expect(botSeatsFor("alone", created)).toEqual([1, 2, 3]);
    expect(botSeatsFor("with-friend", created)).toEqual([1, 3]);
    expect(botSeatsFor("with-friend", lobby([person(1, "bob", true)]))).toEqual([0, 2]);
  });

  it("creates the game, then seats three bots one after the other; the last starts the game", async () => {
    const requests = fakeFetch([[201, created], [200, withBots(1)], [200, withBots(1, 2)], [200, started]]);
    const result = await playAgainstComputer("scopone_scientifico", { target_score: 1 }, "alone", "esperto");
    expect(requests).toEqual([
      { method: "POST", url: "/api/games", body: { game_type: "scopone_scientifico", options: { target_score: 1 } } },
      { method: "POST", url: "/api/games/g1/bots", body: { seat: 1, level: "esperto" } },
      { method: "POST", url: "/api/games/g1/bots", body: { seat: 2, level: "esperto" } },
      { method: "POST", url: "/api/games/g1/bots", body: { seat: 3, level: "esperto" } },
    ]);
    expect(result).toEqual({ id: "g1", view: started, error: null });
  });

  it("with a friend: bots at seats 1 and 3, the friend's seat across stays open", async () => {
    const requests = fakeFetch([[201, created], [200, withBots(1)], [200, withBots(1, 3)]]);
    const result = await playAgainstComputer("scopone_scientifico", {}, "with-friend", "maestro");
    expect(requests.slice(1).map((r) => r.body)).toEqual([{ seat: 1, level: "maestro" }, { seat: 3, level: "maestro" }]);
    expect(result.view.status).toBe("lobby");
    expect(result.error).toBeNull();
  });

  it("stops at a refused bot and says why, the game already made", async () => {
    const requests = fakeFetch([[201, created], [200, withBots(1)], [422, { detail: "Unknown bot level: campione" }]]);
    const result = await playAgainstComputer("scopone_scientifico", {}, "alone", "campione");
    expect(requests).toHaveLength(3);
    expect(result).toMatchObject({ id: "g1", error: "Unknown bot level: campione" });
  });

  it("throws when the game cannot be created", async () => {
    fakeFetch([[422, { detail: "Invalid options: target_score" }]]);
    await expect(playAgainstComputer("scopone_scientifico", { target_score: 0 }, "alone", "esperto"))
      .rejects.toThrow("Invalid options: target_score");
  });

  it("removes a bot and leaves with the contract's calls", async () => {
    const requests = fakeFetch([[200, created], [200, { left: true }], [200, started]]);
    await api.removeBot("g1", 2);
    expect(await api.leave("g1")).toEqual({ left: true });
    expect(await api.returnToSeat("g1")).toEqual(started);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "DELETE /api/games/g1/bots/2", "POST /api/games/g1/leave", "POST /api/games/g1/return",
    ]);
  });
});

describe("play again after a practice match", () => {
  const finished = table([{ bot: "maestro" }, { bot: "esperto" }, { bot: "principiante" }], { status: "finished", turn: null });
  const rematch = { ...lobby([person(0, "alice", true)]), id: "g2" };

  it("creates the rematch, then seats the same bots at the same seats", async () => {
    const requests = fakeFetch([[201, rematch], [200, rematch], [200, rematch], [200, { ...table(threeBots), id: "g2" }]]);
    const view = await playAgainWithBots(finished);
    expect(requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ["POST", "/api/games/g1/rematch", {}],
      ["POST", "/api/games/g2/bots", { seat: 1, level: "maestro" }],
      ["POST", "/api/games/g2/bots", { seat: 2, level: "esperto" }],
      ["POST", "/api/games/g2/bots", { seat: 3, level: "principiante" }],
    ]);
    expect(view.status).toBe("playing");
  });

  it("seats no bot when you are not the rematch's creator, or a person took the seat", async () => {
    const friendsRematch = { ...lobby([person(0, "bob"), person(2, "alice", true)]), id: "g2" };
    let requests = fakeFetch([[200, friendsRematch]]);
    await playAgainWithBots(table([{ bot: "esperto" }, {}, { bot: "esperto" }], { status: "finished" }));
    expect(requests).toHaveLength(1);

    const taken = { ...lobby([person(0, "alice", true), person(2, "carol")]), id: "g2" };
    requests = fakeFetch([[201, taken], [200, taken], [200, taken]]);
    await playAgainWithBots(table([{ bot: "esperto" }, { bot: "esperto" }, { bot: "esperto" }], { status: "finished" }));
    expect(requests.slice(1).map((r) => r.body)).toEqual([{ seat: 1, level: "esperto" }, { seat: 3, level: "esperto" }]);
  });

  it("stops at a refused bot and opens the rematch's waiting room", async () => {
    const requests = fakeFetch([[201, rematch], [409, { detail: "Seat taken" }]]);
    const view = await playAgainWithBots(finished);
    expect(requests).toHaveLength(2);
    expect(view).toEqual(rematch);
  });
});

describe("the history of matches with bots", () => {
  const row = (seat: number, extra: Partial<MatchPlayer> = {}): MatchPlayer => ({
    seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
    won: seat % 2 === 0, points: seat % 2 === 0 ? 11 : 7, elo_delta: seat % 2 === 0 ? 16 : -16, ...extra,
  });
  const match = (rated: boolean, players: MatchPlayer[]): MatchItem => ({
    id: "m", game_type: "scopone_scientifico", started_at: "", finished_at: "", rated,
    result: { scores: { A: 11, B: 7 }, winner: "A" }, players,
  });
  const practice = match(false, [
    row(0, { elo_delta: 0 }),
    row(1, { name: "Bot 2", bot: "esperto", elo_delta: undefined }),
    row(2, { name: "Bot 3", bot: "maestro", elo_delta: null }),
    row(3, { name: "Bot 4", bot: "principiante", elo_delta: undefined }),
  ]);

  it("marks a practice match, and shows no Elo change in it", () => {
    expect(isPractice(practice)).toBe(true);
    expect(unratedKind(practice)).toBe("practice");
    expect(practice.players.map((p) => eloChange(practice, p))).toEqual([null, null, null, null]);
  });

  it("marks a match someone abandoned as unrated; only the one who left loses", () => {
    const left = match(false, [row(0, { elo_delta: 0 }), row(1, { abandoned: true, elo_delta: -16 }), row(2, { elo_delta: 0 }), row(3, { elo_delta: 0 })]);
    expect(isPractice(left)).toBe(false);
    expect(unratedKind(left)).toBe("unrated");
    expect(left.players.map((p) => eloChange(left, p))).toEqual([null, -16, null, null]);
  });

  it("shows every change of a rated match", () => {
    const rated = match(true, [row(0), row(1), row(2), row(3)]);
    expect(unratedKind(rated)).toBe("");
    expect(rated.players.map((p) => eloChange(rated, p))).toEqual([16, -16, 16, -16]);
  });

  it("never takes a bot's row for yours", () => {
    const named = match(false, [row(0, { name: "esperto" }), row(1, { name: "esperto", bot: "esperto" }), row(2), row(3)]);
    expect(myRow(named, "esperto")?.seat).toBe(0);
    expect(myRow(practice, "Bot 2")).toBeUndefined();
  });
});

describe("presence", () => {
  it("follows a presence message without changing the game", () => {
    const view = table([{ connected: true }, { connected: true }, { connected: true }]);
    const before = reduce(initialGameState, { type: "message", message: { type: "state", game: view } });
    const after = reduce(before, { type: "message", message: { type: "presence", connected: [0, 2, 3] } });
    const game = after.view as GameView;
    expect(game.players.map((p) => p.connected)).toEqual([true, false, true, true]);
    expect(game.revision).toBe(view.revision);
    expect(game.hand).toEqual(view.hand);
  });

  it("leaves a waiting room alone", () => {
    const waiting = lobby([person(0, "alice", true)]);
    const before = reduce(initialGameState, { type: "view", view: waiting });
    expect(reduce(before, { type: "message", message: { type: "presence", connected: [] } })).toBe(before);
  });
});
