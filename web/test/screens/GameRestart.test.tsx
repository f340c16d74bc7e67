// @vitest-environment jsdom
// The game page when its gateway stops in a rollout: the socket closes with 1012 "Service
// Restart"; the page shows the short "Reconnecting…" notice (no error), asks the REST API nothing,
// and opens a new socket soon, whose first state puts the table right. The notice is said in a
// live region that was on the page before it (a screen reader reads changes, not arrivals), which
// says when the table is back.
import { act, cleanup, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { GameScreen } from "../../src/screens/Game";
import { RESTART_MIN_MS } from "../../src/socket";
import { FakeBrowserSocket, view } from "../fixtures";


let fetches: string[];

beforeEach(() => {
  setLang("en");
  FakeBrowserSocket.all = [];
  fetches = [];
  vi.stubGlobal("WebSocket", FakeBrowserSocket);
  vi.stubGlobal("fetch", vi.fn(async (url: string) => {
    fetches.push(url);
    return new Response(JSON.stringify(url === "/api/game-types" ? [] : view()), {
      status: 200,
      headers: { "Content-Type": "application/json" },
    });
  }));
  vi.spyOn(Math, "random").mockReturnValue(0); // the earliest moment of the spread
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("the game page when its gateway stops", () => {
  it("shows a short reconnecting notice, asks nothing and comes back soon", async () => {
    render(<GameScreen id="g" onUnauthenticated={() => {}} />);
    await waitFor(() => expect(FakeBrowserSocket.all).toHaveLength(1));
    const first = FakeBrowserSocket.all[0];
    await act(async () => {
      first.open();
      first.receive({ type: "state", game: view({ revision: 5 }) });
    });
    const asked = fetches.filter((url) => url.startsWith("/api/games/")).length;
    const region = screen.getByRole("status");
    expect(region.textContent).toBe("");

    await act(async () => first.closedByServer(1012, "Service Restart"));

    expect(screen.getByRole("status")).toBe(region);
    expect(region.textContent).toMatch(/^Reconnecting… The connection to the table dropped/);
    expect(screen.queryByRole("alert")).toBeNull();
    const started = Date.now();
    // A bound a loaded machine meets: the reconnection is due after RESTART_MIN_MS (random 0).
    await waitFor(() => expect(FakeBrowserSocket.all).toHaveLength(2), { timeout: 10_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(RESTART_MIN_MS - 50);
    expect(fetches.filter((url) => url.startsWith("/api/games/")).length).toBe(asked);

    const second = FakeBrowserSocket.all[1];
    await act(async () => {
      second.open();
      second.receive({ type: "state", game: view({ revision: 6 }) });
    });
    expect(screen.getByRole("status")).toBe(region);
    expect(region.textContent).toBe("Connected again: the table is up to date.");
    expect(screen.queryByText(/Reconnecting…/)).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
