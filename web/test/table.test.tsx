// The table's pace and words: the hand's plays kept from successive states, what a capture took,
// where the last cards of a hand went; the replay and the tally from the move log; the Italian
// of cards, names and targets; the turn alerts' title and remembered sound.
import { afterEach, describe, expect, it } from "vitest";
import { setSound, soundEnabled, turnTitle } from "../src/alerts";
import { displayName, personName } from "../src/bots";
import { andList, cardPhrase, cardsPhrase, cardName } from "../src/deck";
import { lastPlayText, matchGoesOnText, playLine } from "../src/describe";
import { aItalian, pointsItalian, setLang } from "../src/i18n";
import { extendTrail, finalSweep, playsDown, takenBy } from "../src/plays";
import {
  countBySuit,
  handsAfter,
  handsOfLog,
  lastHandPiles,
  playHand,
  primieraBySuit,
  primieraTotal,
  teamPiles,
  type HandPlay,
} from "../src/replay";
import { matchRoute } from "../src/router";
import { closingView } from "../src/screens/Game";
import { initialGameState, reduce } from "../src/gamestate";
import { pilesMatch } from "../src/tally";
import type { GameLog, GameView, LastHand, LastPlay } from "../src/types";

afterEach(() => setLang("en", null));

function view(extra: Partial<GameView> = {}, counts = [10, 10, 10, 10]): GameView {
  return {
    id: "g", game_type: "scopone_scientifico", join_code: "K7QX2M", status: "playing",
    options: { target_score: 11, napola: true, asso_pigliatutto: false },
    players: [0, 1, 2, 3].map((seat) => ({
      seat, name: ["alice", "bob", "carol", "dave"][seat], team: seat % 2 ? "B" : "A",
      card_count: counts[seat], captured_count: 0, scope: 0, is_you: seat === 0, connected: true,
    })),
    you: 0, hand: [], table: [], turn: 0, hand_number: 1, scores: { A: 0, B: 0 }, last_play: null,
    seed_commitment: "c1", revision: 1, ...extra,
  };
}

const play = (seat: number, card: string, capture: string[] = [], scopa = false): LastPlay =>
  ({ seat, card, capture, scopa, auto: false });

describe("the hand's plays", () => {
  it("numbers each play by the cards down and keeps them in order", () => {
    let trail = extendTrail(null, view());
    expect(trail.plays).toEqual([]);
    trail = extendTrail(trail, view({ last_play: play(0, "05S"), revision: 2 }, [9, 10, 10, 10]));
    trail = extendTrail(trail, view({ last_play: play(1, "05C", ["05S"]), revision: 3 }, [9, 9, 10, 10]));
    trail = extendTrail(trail, view({ last_play: play(2, "07D"), revision: 4 }, [9, 9, 9, 10]));
    expect(trail.plays.map((p) => [p.n, p.card])).toEqual([[1, "05S"], [2, "05C"], [3, "07D"]]);
    expect(playsDown(view({ last_play: play(2, "07D") }, [9, 9, 9, 10]))).toBe(3);
  });

  it("goes back on a take-back and starts afresh with a new hand", () => {
    let trail = extendTrail(null, view({ last_play: play(0, "05S") }, [9, 10, 10, 10]));
    trail = extendTrail(trail, view({ last_play: play(1, "06C") }, [9, 9, 10, 10]));
    trail = extendTrail(trail, view({ last_play: play(0, "05S") }, [9, 10, 10, 10])); // bob took his card back
    expect(trail.plays.map((p) => p.card)).toEqual(["05S"]);
    trail = extendTrail(trail, view({ hand_number: 2, last_play: null }));
    expect(trail).toEqual({ hand: 2, plays: [] });
  });

  it("keeps the same trail when a view repeats the same play", () => {
    const trail = extendTrail(null, view({ last_play: play(0, "05S") }, [9, 10, 10, 10]));
    expect(extendTrail(trail, view({ last_play: play(0, "05S"), revision: 9 }, [9, 10, 10, 10]))).toBe(trail);
  });

  it("knows what a play took, an ace sweeping an empty table included", () => {
    expect(takenBy(play(1, "05C", ["02S", "03D"]), ["07B"])).toEqual(["02S", "03D", "05C"]);
    expect(takenBy(play(1, "05C"), ["05C", "07B"])).toEqual([]);
    expect(takenBy(play(1, "01C"), [])).toEqual(["01C"]);
    expect(takenBy(null, [])).toEqual([]);
  });

  it("sends the last cards of a hand to the last capture", () => {
    const before = view({ table: ["02C", "04S", "06B"], turn: 3 }, [0, 0, 0, 1]);
    before.players[1].captured_count = 10;
    const after = view({ status: "hand_end", turn: null, table: [], last_play: play(3, "04B", ["04S"]) }, [0, 0, 0, 0]);
    after.players[1].captured_count = 12; // bob took 02C and 06B
    after.players[3].captured_count = 2; // dave's own capture
    expect(finalSweep(before, after)).toEqual({ cards: ["02C", "06B"], seat: 1 });
    const laid = view({ status: "hand_end", turn: null, table: [], last_play: play(3, "09D") }, [0, 0, 0, 0]);
    laid.players[1].captured_count = 14;
    expect(finalSweep(before, laid)).toEqual({ cards: ["02C", "04S", "06B", "09D"], seat: 1 });
    expect(finalSweep(view({}, [0, 0, 1, 1]), after)).toBeNull(); // a state was missed
  });

  it("are folded from every state, so a hand's end is caught even when renders are batched", () => {
    const states = [
      view({ revision: 37, last_play: play(0, "05S"), table: ["02C", "05S"], turn: 1 }, [0, 1, 1, 1]),
      view({ revision: 38, last_play: play(1, "06B"), table: ["02C", "05S", "06B"], turn: 2 }, [0, 0, 1, 1]),
      view({ revision: 39, last_play: play(2, "07C", ["02C", "05S"]), table: ["06B"], turn: 3 }, [0, 0, 0, 1]),
      view({ revision: 40, status: "hand_end", turn: null, table: [], last_play: play(3, "09D") }, [0, 0, 0, 0]),
    ];
    states[3].players[2].captured_count = 5; // carol's capture, and the last two cards
    let s = initialGameState;
    for (const game of states) s = reduce(s, { type: "message", message: { type: "state", game } });
    expect(s.trail?.plays.map((p) => p.n)).toEqual([37, 38, 39, 40]);
    expect(s.ending?.sweep).toEqual({ cards: ["06B", "09D"], seat: 2 });
    expect(s.ending?.before.revision).toBe(39);
    expect(s.lastPlaying).toBeNull();
    // An acknowledgement's state later in the hand end keeps the same ending.
    const ending = s.ending;
    s = reduce(s, { type: "message", message: { type: "state", game: { ...states[3], revision: 41, acknowledged: [0] } } });
    expect(s.ending).toBe(ending);
  });

  it("holds the table as it was right after the last play", () => {
    const before = view({ hand: [], table: ["02C", "04S"], turn: 3, turn_deadline: "x", your_turn: undefined }, [0, 0, 0, 1]);
    const after = view({ status: "hand_end", turn: null, revision: 40, last_play: play(3, "04B", ["04S"]) }, [0, 0, 0, 0]);
    const held = closingView({ before, after, sweep: { cards: ["02C"], seat: 3 } });
    expect(held).toMatchObject({ status: "playing", table: ["02C"], turn: null, revision: 40, last_play: after.last_play });
    expect(held.turn_deadline).toBeUndefined();
    expect(playsDown(held)).toBe(40);
  });
});

function log(plays: HandPlay[], options = { asso_pigliatutto: false }): GameLog {
  return {
    id: "g", game_type: "scopone_scientifico", options, seats: [], seed_commitment: null, revision: 0,
    moves: plays.map((p) => ({ number: p.number, type: p.auto ? "auto_play" : "play", seat: `seat:${p.seat}`,
      payload: { card: p.card, capture: p.capture }, auto: p.auto })),
  };
}

describe("a hand played again from the log", () => {
  const p = (number: number, seat: number, card: string, capture: string[] = []): HandPlay =>
    ({ number, seat, card, capture, auto: false });

  it("lays, takes, counts a scopa, and an ace sweeps under asso pigliatutto (no scopa)", () => {
    const plays = [p(1, 0, "03C"), p(2, 1, "03S", ["03C"]), p(3, 2, "05D"), p(4, 3, "01B")];
    expect(playHand(plays, 2, false)).toMatchObject({ table: [], piles: [[], ["03S", "03C"], [], []], scope: [0, 1, 0, 0], lastCapturer: 1 });
    expect(playHand(plays, 4, false).table).toEqual(["01B", "05D"]);
    const swept = playHand(plays, 4, true);
    expect(swept).toMatchObject({ table: [], piles: [[], ["03S", "03C"], [], ["01B", "05D"]], scope: [0, 1, 0, 0] });
  });

  it("cuts the log into hands of 40 and gives the last cards to the last capture", () => {
    const deck = ["D", "C", "S", "B"].flatMap((s) => Array.from({ length: 10 }, (_, i) => `${String(i + 1).padStart(2, "0")}${s}`));
    // 39 cards laid (no rank repeats within the first ten... so lay them as they come), then one capture.
    const plays: HandPlay[] = deck.slice(0, 39).map((card, i) => p(i + 1, i % 4, card));
    const table = playHand(plays, 39, false).table;
    expect(table).toHaveLength(39);
    plays.push(p(40, 3, "10B", ["10D"]));
    const hands = handsOfLog(log([...plays, p(41, 0, "01C")]));
    expect(hands.map((h) => h.length)).toEqual([40, 1]);
    const end = playHand(hands[0], 40, false);
    expect(end.table).toEqual([]);
    expect(end.sweep).toHaveLength(38);
    expect(teamPiles(end).B).toHaveLength(40);
    expect(lastHandPiles(log(plays))?.B).toHaveLength(40);
    expect(lastHandPiles(log(plays.slice(0, 10)))).toBeNull();
  });

  it("tells what each seat still holds", () => {
    const hand = { number: 1, dealt: [["01D", "02D"], ["03D"], [], []], plays: [p(1, 0, "02D")] };
    expect(handsAfter(hand, 0)).toEqual([["01D", "02D"], ["03D"], [], []]);
    expect(handsAfter(hand, 1)).toEqual([["01D"], ["03D"], [], []]);
  });
});

describe("the tally of a hand", () => {
  it("counts suits and the primiera card by card", () => {
    const pile = ["07D", "06D", "01C", "05S", "08B", "02B"];
    expect(countBySuit(pile)).toEqual({ D: 2, C: 1, S: 1, B: 2 });
    expect(primieraBySuit(pile)).toEqual({
      D: { card: "07D", value: 21 }, C: { card: "01C", value: 16 }, S: { card: "05S", value: 15 }, B: { card: "02B", value: 12 },
    });
    expect(primieraTotal(pile)).toBe(64);
    expect(primieraTotal(["07D", "07C", "07S"])).toBe(0); // no bastoni
  });

  it("is shown only when it agrees with the server's scoring", () => {
    const piles = { A: ["07D", "01C", "05S", "02B"], B: ["03D"] };
    const team = { settebello: false, scope: 0, napola: 0, points: 0 };
    const hand: LastHand = {
      hand: 1, award: {}, scores: { A: 0, B: 0 },
      teams: { A: { ...team, cards: 4, denari: 1, primiera: 64 }, B: { ...team, cards: 1, denari: 1, primiera: 0 } },
    };
    expect(pilesMatch(piles, hand)).toBe(true);
    expect(pilesMatch({ A: piles.A, B: [] }, hand)).toBe(false);
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

  it("says deleted player in the language of the page", () => {
    expect(personName("deleted player")).toBe("deleted player");
    setLang("it", null);
    expect(personName("deleted player")).toBe("giocatore eliminato");
    expect(displayName({ name: "deleted player" })).toBe("giocatore eliminato");
    expect(displayName({ name: "alice" })).toBe("alice");
  });
});

describe("turn alerts", () => {
  it("put the turn in the tab's title", () => {
    expect(turnTitle(true)).toBe("● Your turn · tavolo");
    expect(turnTitle(false)).toBe("tavolo · scopone scientifico");
    setLang("it", null);
    expect(turnTitle(true)).toBe("● Tocca a te · tavolo");
  });

  it("keep the sound off until turned on, and remember it", () => {
    const data = new Map<string, string>();
    const store = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
    expect(soundEnabled()).toBe(false);
    setSound(true, store);
    expect(soundEnabled()).toBe(true);
    expect(data.get("tavolo:sound")).toBe("on");
    setSound(false, store);
    expect(data.get("tavolo:sound")).toBe("off");
  });
});

describe("the rules page", () => {
  it("has a route", () => {
    expect(matchRoute("/rules")).toEqual({ name: "rules" });
  });
});
