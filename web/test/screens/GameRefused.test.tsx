// @vitest-environment jsdom
// The game page when the gateway refuses a move for its rate limit (`rate_limited`): the player
// reads why in their words, the page asks for no state (one more message would be refused too),
// and a second refusal is a new alert, so a screen reader says it again.
import { act, cleanup, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { GameScreen } from "../../src/screens/Game";
import { FakeBrowserSocket, view } from "../fixtures";


const RATE_LIMITED = { type: "error", code: "rate_limited", message: "Too many messages: nothing was done. Wait a moment, then send it again" };

beforeEach(() => {
  setLang("en");
  FakeBrowserSocket.all = [];
  vi.stubGlobal("WebSocket", FakeBrowserSocket);
  vi.stubGlobal("fetch", vi.fn(async (url: string) =>
    new Response(JSON.stringify(url === "/api/game-types" ? [] : view()), {
      status: 200,
      headers: { "Content-Type": "application/json" },
    })));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("a move refused by the rate limit", () => {
  it("is told in the player's words, asks for nothing, and a second refusal is said again", async () => {
    render(<GameScreen id="g" onUnauthenticated={() => {}} />);
    await waitFor(() => expect(FakeBrowserSocket.last).not.toBeNull());
    const socket = FakeBrowserSocket.last!;
    await act(async () => {
      socket.open();
      socket.receive({ type: "state", game: view({ revision: 5 }) });
    });

    await act(async () => socket.receive(RATE_LIMITED));
    const first = screen.getByRole("alert");
    expect(first.textContent).toBe(
      "One moment, please: too many moves at once, so that one was not played. Wait a second and play it again.",
    );
    await act(async () => socket.receive(RATE_LIMITED));
    const second = screen.getByRole("alert");
    expect(second.textContent).toBe(first.textContent);
    expect(second).not.toBe(first);
    expect(first.isConnected).toBe(false);
    expect(socket.sent).toEqual([]);
  });
});
