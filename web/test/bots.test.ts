// Bots: who may seat them, how they are named, when a practice player may take a card back, the
// one-click game against the computer (its requests, in order), playing again with the same bots,
// and the deleted player's name.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  aloneInLobby,
  aloneWithBots,
  botSeatsFor,
  canTakeBack,
  creatorSeat,
  defaultBotLevel,
  displayName,
  fillWithBots,
  isFirstMatch,
  isPracticeView,
  levelName,
  personName,
  playAgainstComputer,
  playAgainWithBots,
  seatState,
  youAreCreator,
  yourSeatTakenOver,
} from "../src/bots";
import { setLang } from "../src/i18n";
import type { GamePlayer } from "../src/types";
import { bot, fakeFetch, LEVELS, lobby, person, table, threeBots } from "./fixtures";

afterEach(() => {
  setLang("en", null);
  vi.unstubAllGlobals();
});

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

  it("offer principiante for a member's first match (no finished match yet), else the weakest", async () => {
    expect(defaultBotLevel(LEVELS, true)).toBe("principiante");
    expect(defaultBotLevel([{ id: "a", name: "A" }, { id: "b", name: "B" }, { id: "c", name: "C" }], true)).toBe("a");
    expect(defaultBotLevel([], true)).toBe("principiante");
    const asked: unknown[] = [];
    const history = (items: unknown[]) => ({
      matches: async (query: unknown) => (asked.push(query), { items, next_cursor: null }) as never,
    });
    expect(await isFirstMatch(history([]))).toBe(true);
    expect(await isFirstMatch(history([{ id: "m1" }]))).toBe(false); // a practice match counts too
    expect(asked).toEqual([{ limit: 1 }, { limit: 1 }]);
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

  it("names a bot by the name the server gave it; a stand-in keeps the person's name", () => {
    expect(displayName({ name: "Bruno", bot: "esperto" }, LEVELS)).toBe("Bruno");
    expect(displayName({ name: "Paola", bot: "maestro" })).toBe("Paola");
    expect(displayName({ name: "carol", bot: "esperto", took_over: true }, LEVELS)).toBe("carol");
    expect(displayName({ name: "Campione", bot: "campione" })).toBe("Campione"); // a level the app does not know yet
    expect(displayName({ name: "bob" })).toBe("bob");
    setLang("it", null);
    expect(displayName({ name: "Bruno", bot: "esperto" }, LEVELS)).toBe("Bruno");
  });

  it("reads a bot of an older game, named by its level's id, as its level in the current language", () => {
    expect(displayName({ name: "Esperto", bot: "esperto" }, LEVELS)).toBe("Expert");
    expect(displayName({ name: "Maestro", bot: "maestro" })).toBe("Master");
    setLang("it", null);
    expect(displayName({ name: "Esperto", bot: "esperto" }, LEVELS)).toBe("Esperto");
    expect(displayName({ name: "Principiante", bot: "principiante" }, LEVELS)).toBe("Principiante");
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
});

describe("leaving and coming back", () => {
  it("knows when a bot took your own seat", () => {
    expect(yourSeatTakenOver(table(threeBots))).toBe(false);
    const view = table(threeBots);
    view.players[0] = { ...view.players[0], bot: "esperto", took_over: true };
    expect(yourSeatTakenOver(view)).toBe(true);
    expect(canTakeBack(view, 7)).toBe(false);
  });
});

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
});

describe("fill with bots in the waiting room", () => {
  it("seats a bot at each empty seat, skips one a person took meanwhile, and hands on each answer", async () => {
    const start = lobby([person(0, "alice", true)]);
    // erin sat at seat 2 while the first bot was seated.
    const after1 = lobby([person(0, "alice", true), bot(1), person(2, "erin")]);
    const started = { ...table(threeBots), revision: 1 };
    const addBot = vi.fn(async (_id: string, seat: number) => (seat === 1 ? after1 : started));
    const views: unknown[] = [];
    expect(await fillWithBots(start, "maestro", (v) => views.push(v), { addBot })).toBeNull();
    expect(addBot.mock.calls).toEqual([["g1", 1, "maestro"], ["g1", 3, "maestro"]]);
    expect(views).toEqual([after1, started]);
  });

  it("knows when nobody has joined you: bots are no company", () => {
    expect(aloneInLobby(lobby([person(0, "alice", true)]))).toBe(true);
    expect(aloneInLobby(lobby([person(0, "alice", true), bot(1), bot(3)]))).toBe(true);
    expect(aloneInLobby(lobby([person(0, "alice", true), person(2, "carol")]))).toBe(false);
    expect(aloneInLobby(lobby([person(0, "alice")]))).toBe(false); // not seated: not your wait
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

describe("Italian as a player writes it", () => {
  it("says deleted player in the language of the page", () => {
    expect(personName("deleted player")).toBe("deleted player");
    setLang("it", null);
    expect(personName("deleted player")).toBe("giocatore eliminato");
    expect(displayName({ name: "deleted player" })).toBe("giocatore eliminato");
    expect(displayName({ name: "alice" })).toBe("alice");
  });
});
