// @vitest-environment jsdom
// The table talk of a seated player: the unread badge, the newest message announced politely, the
// messages shown as text (never HTML), quick phrases during play and the text field closed with its
// reason, a refusal said in the drawer, free text at a hand's end, muting a player from a message.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { GameScreen } from "../../src/screens/Game";
import type { ChatMessage } from "../../src/types";
import { FakeBrowserSocket, view } from "../fixtures";

const PHRASES = [
  { id: "good_luck", text: { it: "Buona fortuna!", en: "Good luck!" } },
  { id: "well_played", text: { it: "Ben giocato!", en: "Well played!" } },
];
const HOSTILE = "<img src=x onerror=alert(1)><b>hi</b>";
const HISTORY: ChatMessage[] = [
  { id: "h1", from: { seat: 1, name: "bob", player: "p-bob" }, text: HOSTILE, at: "2026-12-07T16:00:00.000Z" },
];
const fromBob = (id: string): ChatMessage => ({
  id, from: { seat: 1, name: "bob", player: "p-bob" }, phrase: "good_luck", at: `2026-12-07T16:00:0${id.length}.000Z`,
});

let calls: { url: string; method: string; body: unknown }[] = [];

beforeEach(() => {
  setLang("en");
  calls = [];
  FakeBrowserSocket.all = [];
  vi.stubGlobal("WebSocket", FakeBrowserSocket);
  vi.stubGlobal("fetch", vi.fn(async (url: string, init?: RequestInit) => {
    const method = init?.method ?? "GET";
    calls.push({ url, method, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    const json = (body: unknown, status = 200) =>
      new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
    if (url === "/api/phrases") return json({ phrases: PHRASES });
    if (url === "/api/games/g/chat") return json({ messages: HISTORY });
    if (url === "/api/me/muted" && method === "GET") return json({ players: [] });
    if (url === "/api/me/muted") return new Response(null, { status: 204 });
    if (url === "/api/games/g/chat/h1/report") return json({ reported: true }, 202);
    if (url === "/api/game-types") return json([]);
    if (url === "/api/games/g/log") return json({ id: "g", game_type: "scopone_scientifico", options: {}, seats: [], seed_commitment: "c1", moves: [], revision: 41 });
    return json(view());
  }));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function openTable() {
  render(<GameScreen id="g" onUnauthenticated={() => {}} />);
  await waitFor(() => expect(FakeBrowserSocket.last).not.toBeNull());
  const socket = FakeBrowserSocket.last!;
  await act(async () => {
    socket.open();
    socket.receive({ type: "state", game: view({ revision: 5, spectators: 2 }) });
  });
  await waitFor(() => expect(calls.some((c) => c.url === "/api/games/g/chat")).toBe(true));
  return socket;
}

describe("the chat drawer at the table", () => {
  it("asks the socket for the talk and the watchers, and shows how many watch", async () => {
    const socket = await openTable();
    expect(socket.url).toMatch(/features=presence,rematch,chat,spectators$/);
    expect(screen.getByRole("img", { name: "2 watching" })).toBeTruthy();
    await act(async () => socket.receive({ type: "spectators", count: 3 }));
    expect(screen.getByRole("img", { name: "3 watching" })).toBeTruthy();
  });

  it("counts unread messages, announces the newest politely, and shows text as text", async () => {
    const socket = await openTable();
    const toggle = screen.getByRole("button", { name: "Table talk" });
    await act(async () => socket.receive({ type: "said", ...fromBob("m1") }));
    expect(toggle.getAttribute("aria-label")).toBe("Table talk, 1 unread");
    const announcer = screen.getByTestId("chat-announcer");
    expect(announcer.getAttribute("aria-live")).toBe("polite");
    expect(announcer.textContent).toBe("bob says: Good luck!");
    // The same words again are a new message: a new node, which a screen reader reads again.
    const first = announcer.firstElementChild;
    await act(async () => socket.receive({ type: "said", ...fromBob("m22") }));
    expect(announcer.textContent).toBe("bob says: Good luck!");
    expect(announcer.firstElementChild).not.toBe(first);
    expect(toggle.getAttribute("aria-label")).toBe("Table talk, 2 unread");

    await act(async () => void fireEvent.click(toggle));
    expect(toggle.getAttribute("aria-label")).toBe("Table talk");
    const drawer = screen.getByTestId("chat-drawer");
    const items = within(drawer).getAllByTestId("chat-message");
    expect(items.map((li) => li.querySelector(".chat-text")?.textContent)).toEqual([HOSTILE, "Good luck!", "Good luck!"]);
    // The hostile text is letters on the screen, not markup.
    expect(drawer.querySelector("img, b")).toBeNull();
  });

  it("offers only quick phrases while cards are in play, and says a refusal in the drawer", async () => {
    const socket = await openTable();
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Table talk" })));
    const field = screen.getByLabelText("Your message") as HTMLInputElement;
    expect(field.disabled).toBe(true);
    expect(screen.getByTestId("chat-closed-reason").textContent).toMatch(/only quick phrases/);

    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Well played!" })));
    const say = socket.sent.find((m) => m.action === "say")!;
    expect(say).toMatchObject({ action: "say", phrase: "well_played" });
    expect(String(say.id)).toMatch(/^say-/);

    await act(async () => socket.receive({ type: "error", code: "rate_limited", message: "Too many", id: say.id }));
    const alerts = screen.getAllByRole("alert");
    expect(alerts.map((a) => a.textContent)).toEqual(["Not sent: too many messages at once. Wait a second and try again."]);
    // A refused say is no refused move: the page does not ask for the state again.
    expect(socket.sent.filter((m) => m.action === "state")).toEqual([]);
  });

  it("sends free text at a hand's end", async () => {
    const socket = await openTable();
    await act(async () => socket.receive({
      type: "state",
      game: view({ revision: 41, status: "hand_end", turn: null, acknowledged: [],
        last_hand: { hand: 1, teams: { A: { cards: 20, denari: 5, settebello: true, primiera: 70, scope: 0, napola: 0, points: 1 },
          B: { cards: 20, denari: 5, settebello: false, primiera: 70, scope: 0, napola: 0, points: 0 } },
        award: { carte: null, denara: null, settebello: "A", primiera: null, napola: null }, scores: { A: 1, B: 0 } } }, [0, 0, 0, 0]),
    }));
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Table talk" })));
    const field = screen.getByLabelText("Your message") as HTMLInputElement;
    expect(field.disabled).toBe(false);
    await act(async () => void fireEvent.input(field, { target: { value: "  Bella mano!  " } }));
    await act(async () => void fireEvent.submit(field.form!));
    expect(socket.sent.filter((m) => m.action === "say")).toMatchObject([{ action: "say", text: "Bella mano!" }]);
    expect(field.value).toBe("");
    // 201 characters are stopped before they are sent.
    await act(async () => void fireEvent.input(field, { target: { value: "x".repeat(201) } }));
    await act(async () => void fireEvent.submit(field.form!));
    // Said at once to a screen reader too: the focus stays on Send, away from the field it describes.
    expect(screen.getByRole("alert").textContent).toBe("At most 200 characters.");
    expect(socket.sent.filter((m) => m.action === "say")).toHaveLength(1);
  });

  it("mutes a player from their message: their messages disappear at once", async () => {
    const socket = await openTable();
    await act(async () => socket.receive({ type: "said", ...fromBob("m22") }));
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Table talk, 1 unread" })));
    expect(screen.getAllByTestId("chat-message")).toHaveLength(2);
    await act(async () => void fireEvent.click(screen.getAllByRole("button", { name: "Mute or report bob" })[0]));
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Mute bob" })));
    await waitFor(() => expect(screen.queryAllByTestId("chat-message")).toHaveLength(0));
    expect(calls.find((c) => c.url === "/api/me/muted" && c.method === "POST")?.body).toEqual({ player: "p-bob" });
    // A message still on its way from them is not counted either.
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Close the talk" })));
    await act(async () => socket.receive({ type: "said", ...fromBob("m333") }));
    expect(screen.getByRole("button", { name: "Table talk" })).toBeTruthy();
  });

  it("reads the talk again when the game is finished, when the spectators' messages join the players'", async () => {
    const socket = await openTable();
    const reads = () => calls.filter((c) => c.url === "/api/games/g/chat").length;
    expect(reads()).toBe(1);
    await act(async () => socket.receive({
      type: "state",
      game: view({ revision: 80, status: "finished", turn: null, winner: "A", seed: "00", scores: { A: 11, B: 3 } }, [0, 0, 0, 0]),
    }));
    await waitFor(() => expect(reads()).toBe(2));
  });

  it("reports a message with a reason, and says what the server answered", async () => {
    await openTable();
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Table talk" })));
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Mute or report bob" })));
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Report" })));
    await act(async () => void fireEvent.input(screen.getByLabelText("Why (optional)"), { target: { value: " insults " } }));
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Send the report" })));
    await waitFor(() => expect(screen.getByText(/^Reported: thank you/).getAttribute("role")).toBe("status"));
    // Reported once: "Report" is no longer offered on that message (muting still is).
    expect(screen.queryByRole("button", { name: "Report" })).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("button", { name: "Mute bob" })));
    expect(calls.find((c) => c.url === "/api/games/g/chat/h1/report")).toMatchObject({ method: "POST", body: { reason: "insults" } });
  });
});
