// Table talk as the drawer folds it: what counts as unread, when free text may be sent, a muted
// player's messages hidden at once, the checks before a text is sent, the phrases in the page's
// language and the words for a refused message.
import { beforeEach, describe, expect, it } from "vitest";
import {
  chatErrorText,
  initialChat,
  isOwn,
  isSayAnswer,
  KEEP_MESSAGES,
  mergeMessages,
  messageText,
  nextSayId,
  phraseText,
  playerIdOf,
  reduceChat,
  textAllowed,
  textClosedReason,
  textProblem,
  visibleMessages,
  type ChatState,
  type Reader,
} from "../src/chat";
import { setLang } from "../src/i18n";
import type { ChatMessage, Phrase } from "../src/types";

const PHRASES: Phrase[] = [
  { id: "good_luck", text: { it: "Buona fortuna!", en: "Good luck!" } },
  { id: "well_played", text: { it: "Ben giocato!", en: "Well played!" } },
];

let clock = 0;
function said(seat: number, extra: Partial<ChatMessage> = {}): ChatMessage {
  clock += 1;
  return {
    id: `m${clock}`,
    from: { seat, name: ["alice", "bob", "carol", "dave"][seat], player: `player-of-seat-${seat}` },
    phrase: "good_luck",
    at: `2026-12-07T16:00:${String(clock).padStart(2, "0")}.000Z`,
    ...extra,
  };
}
function bySpectator(name: string, player: string, extra: Partial<ChatMessage> = {}): ChatMessage {
  clock += 1;
  return { id: `s${clock}`, from: { spectator: true, name, player }, text: "ciao", at: `2026-12-07T16:01:${String(clock).padStart(2, "0")}.000Z`, ...extra };
}

const ALICE: Reader = { seat: 0, player: "player-of-seat-0" };
const fold = (events: Parameters<typeof reduceChat>[1][], from: ChatState = initialChat) => events.reduce(reduceChat, from);

beforeEach(() => {
  setLang("en");
  clock = 0;
});

describe("the unread count", () => {
  it("counts others' messages while the drawer is closed, and opening it reads them", () => {
    const state = fold([
      { type: "said", message: said(1), reader: ALICE },
      { type: "said", message: said(2), reader: ALICE },
    ]);
    expect(state.unread).toBe(2);
    const opened = reduceChat(state, { type: "open" });
    expect(opened.unread).toBe(0);
    expect(reduceChat(opened, { type: "said", message: said(3), reader: ALICE }).unread).toBe(0);
  });

  it("never counts the reader's own messages, a message met twice, or one of a muted player", () => {
    const bob = said(1);
    const state = fold([
      { type: "muted", players: ["player-of-seat-3"] },
      { type: "said", message: said(0), reader: ALICE },
      { type: "said", message: bob, reader: ALICE },
      { type: "said", message: bob, reader: ALICE },
      { type: "said", message: said(3), reader: ALICE },
    ]);
    expect(state.unread).toBe(1);
    expect(state.messages.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
  });

  it("does not count the history the page found when it opened, nor announce it", () => {
    const state = fold([{ type: "history", messages: [said(1), said(2)] }]);
    expect(state.unread).toBe(0);
    expect(state.latest).toBeNull();
    expect(state.messages).toHaveLength(2);
  });

  it("announces the newest live message of someone else, never the reader's own", () => {
    const bob = said(1);
    const state = fold([{ type: "said", message: bob, reader: ALICE }, { type: "said", message: said(0), reader: ALICE }]);
    expect(state.latest).toBe(bob);
  });

  it("knows a spectator's own message by the player id, never by a seat", () => {
    const dave: Reader = { seat: null, player: "p-dave" };
    expect(isOwn(bySpectator("dave", "p-dave"), dave)).toBe(true);
    expect(isOwn(bySpectator("erin", "p-erin"), dave)).toBe(false);
    // A spectator's message never reads as a seated player's own, whatever the seat.
    expect(isOwn(bySpectator("erin", "p-erin"), { seat: 0, player: null })).toBe(false);
    expect(isOwn(said(0), { seat: 0, player: null })).toBe(true);
  });
});

describe("free text", () => {
  it("is allowed in the lobby, at a hand's end and once finished, never while cards are in play", () => {
    expect(["lobby", "hand_end", "finished"].filter(textAllowed)).toEqual(["lobby", "hand_end", "finished"]);
    expect(["seeding", "playing", null, undefined, "other"].some(textAllowed)).toBe(false);
    expect(textClosedReason("playing")).toMatch(/only quick phrases/);
    expect(textClosedReason("hand_end")).toBe("");
  });

  it("is checked before it is sent: empty, over 200 characters, control characters", () => {
    expect(textProblem("   ")).toMatch(/Write something/);
    expect(textProblem("x".repeat(200))).toBe("");
    expect(textProblem(` ${"x".repeat(200)} `)).toBe("");
    expect(textProblem("x".repeat(201))).toMatch(/At most 200/);
    expect(textProblem("one\ntwo")).toMatch(/control characters/);
    expect(textProblem("bell\u0007")).toMatch(/control characters/);
    expect(textProblem("one\u2028two")).toMatch(/control characters/);
    expect(textProblem("evil\u202egnp.exe")).toMatch(/control characters/);
    expect(textProblem("\u200b")).toMatch(/Write something/);
    expect(textProblem("Bella partita! 🎉")).toBe("");
  });
});

describe("muting", () => {
  it("hides a muted player's messages at once, and shows them again when unmuted", () => {
    const state = fold([
      { type: "history", messages: [said(1), said(2), bySpectator("erin", "p-erin")] },
      { type: "mute", player: "player-of-seat-1" },
    ]);
    expect(visibleMessages(state).map((m) => m.from.name)).toEqual(["carol", "erin"]);
    const back = reduceChat(state, { type: "unmute", player: "player-of-seat-1" });
    expect(visibleMessages(back).map((m) => m.from.name)).toEqual(["bob", "carol", "erin"]);
  });

  it("keeps a bot's messages, which carry no player id", () => {
    const bot = said(3, { from: { seat: 3, name: "Bruno" } });
    const state = fold([{ type: "history", messages: [bot] }, { type: "mute", player: "player-of-seat-3" }]);
    expect(visibleMessages(state)).toEqual([bot]);
  });
});

describe("messages", () => {
  it("are kept once each, in the order they were said, the newest few hundred", () => {
    const a = said(1);
    const b = said(2);
    expect(mergeMessages([b], [a, b]).map((m) => m.id)).toEqual([a.id, b.id]);
    const many = Array.from({ length: KEEP_MESSAGES + 5 }, () => said(1));
    expect(mergeMessages([], many)).toHaveLength(KEEP_MESSAGES);
  });

  it("say a phrase in the page's language, and a text as it was written", () => {
    expect(messageText(said(1), PHRASES, "en")).toBe("Good luck!");
    expect(messageText(said(1), PHRASES, "it")).toBe("Buona fortuna!");
    expect(messageText(said(1, { phrase: undefined, text: "<b>ciao</b>" }), PHRASES, "it")).toBe("<b>ciao</b>");
    expect(phraseText(PHRASES, "bye_for_now", "en")).toBe("bye for now");
  });

  it("tell a refused message by its code", () => {
    expect(chatErrorText({ code: "chat_closed", message: "x" })).toMatch(/only quick phrases/);
    expect(chatErrorText({ code: "rate_limited", message: "x" })).toMatch(/too many messages/);
    expect(chatErrorText({ code: "bad_request", message: "Unknown phrase" })).toMatch(/refused \(Unknown phrase\)/);
    setLang("it");
    expect(chatErrorText({ code: "chat_closed", message: "x" })).toMatch(/solo le frasi rapide/);
  });

  it("know the errors that answer this page's says", () => {
    const id = nextSayId();
    expect(id).toMatch(/^say-[!-~]{1,60}$/);
    expect(nextSayId()).not.toBe(id);
    expect(isSayAnswer({ type: "error", id })).toBe(true);
    expect(isSayAnswer({ type: "error", id: "move-1" })).toBe(false);
    expect(isSayAnswer({ type: "error" })).toBe(false);
  });

  it("read the member's player id when GET /api/me carries one", () => {
    expect(playerIdOf({ sub: "a", name: "alice", provider: "default", player: "p-alice" })).toBe("p-alice");
    expect(playerIdOf({ sub: "a", name: "alice", provider: "default" })).toBeNull();
    expect(playerIdOf(null)).toBeNull();
  });
});
