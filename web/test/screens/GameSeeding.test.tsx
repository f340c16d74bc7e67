// @vitest-environment jsdom
// The game page at a seeding table, wired end to end with a fake server: the page commits its
// seat's value by itself, once, reveals it once, shows no error for a refused repeated reveal, and
// forgets the value once hand 1 is dealt. Crypto is the runtime's WebCrypto; no timers are waited.
import { act, cleanup, render, screen, waitFor } from "@testing-library/preact";
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { entropyKey } from "../../src/entropy";
import { setLang } from "../../src/i18n";
import { GameScreen } from "../../src/screens/Game";
import type { GameView } from "../../src/types";
import { FakeBrowserSocket, view } from "../fixtures";


const seeding = (phase: "commit" | "reveal", committed: number[], revealed: number[], revision: number): GameView =>
  view({
    status: "seeding",
    hand: [],
    turn: null,
    revision,
    entropy: { phase, committed, revealed, deadline: "2099-01-01T00:00:10.000Z" },
  } as Partial<GameView>);

let restView: GameView;

beforeEach(() => {
  restView = seeding("commit", [1], [], 1);
  setLang("en");
  sessionStorage.clear();
  FakeBrowserSocket.all = [];
  vi.stubGlobal("WebSocket", FakeBrowserSocket);
  vi.stubGlobal("fetch", vi.fn(async (url: string) =>
    new Response(JSON.stringify(url === "/api/game-types" ? [] : restView), {
      status: 200,
      headers: { "Content-Type": "application/json" },
    })));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const actions = () => FakeBrowserSocket.last!.sent.filter((m) => m.action !== "state");

describe("the game page while seeding", () => {
  it("commits, reveals, stays quiet about a refused repeat and forgets the value after the deal", async () => {
    render(<GameScreen id="g" onUnauthenticated={() => {}} />);
    await waitFor(() => expect(FakeBrowserSocket.last).not.toBeNull());
    const socket = FakeBrowserSocket.last!;
    await act(async () => {
      socket.open();
      socket.receive({ type: "state", game: seeding("commit", [1], [], 1) });
    });
    expect(await screen.findByTestId("screen-seeding")).toBeTruthy();
    await waitFor(() => expect(actions()).toHaveLength(1));
    const value = sessionStorage.getItem(entropyKey("g", 0))!;
    expect(value).toMatch(/^[0-9a-f]{64}$/);
    const hash = createHash("sha256").update(Buffer.from(value, "hex")).digest("hex");
    expect(actions()).toEqual([{ action: "commit", hash }]);

    // More views of the same phase (other seats committing): nothing sent again.
    await act(async () => socket.receive({ type: "state", game: seeding("commit", [0, 1], [], 2) }));
    await act(async () => socket.receive({ type: "state", game: seeding("commit", [0, 1, 2], [], 3) }));
    expect(screen.getByTestId("seeding-seat-0").textContent).toMatch(/committed/);

    await act(async () => socket.receive({ type: "state", game: seeding("reveal", [0, 1, 2, 3], [], 4) }));
    await waitFor(() => expect(actions()).toHaveLength(2));
    expect(actions()[1]).toEqual({ action: "reveal", value });
    await act(async () => socket.receive({ type: "state", game: seeding("reveal", [0, 1, 2, 3], [3], 5) }));
    expect(actions()).toHaveLength(2);

    // A refused repeat (e.g. from another tab) shows no error toast.
    await act(async () => socket.receive({ type: "error", code: "illegal_move", message: "Already revealed" }));
    expect(screen.queryByRole("alert")).toBeNull();

    await act(async () => socket.receive({ type: "state", game: view({ revision: 8, hand: ["01C"] }) }));
    await waitFor(() => expect(sessionStorage.getItem(entropyKey("g", 0))).toBeNull());
    expect(screen.queryByTestId("screen-seeding")).toBeNull();
  });

  it("after a reload reveals the value the page kept", async () => {
    const kept = "5a".repeat(32);
    restView = seeding("reveal", [0, 1], [], 3);
    sessionStorage.setItem(entropyKey("g", 0), kept);
    render(<GameScreen id="g" onUnauthenticated={() => {}} />);
    await waitFor(() => expect(FakeBrowserSocket.last).not.toBeNull());
    const socket = FakeBrowserSocket.last!;
    await act(async () => {
      socket.open();
      socket.receive({ type: "state", game: seeding("reveal", [0, 1], [], 3) });
    });
    await waitFor(() => expect(actions()).toEqual([{ action: "reveal", value: kept }]));
    expect(screen.queryByTestId("seeding-lost")).toBeNull();
  });

  it("says the seat withholds when the value is not in this browser", async () => {
    restView = seeding("reveal", [0, 1], [], 3);
    render(<GameScreen id="g" onUnauthenticated={() => {}} />);
    await waitFor(() => expect(FakeBrowserSocket.last).not.toBeNull());
    const socket = FakeBrowserSocket.last!;
    await act(async () => {
      socket.open();
      socket.receive({ type: "state", game: seeding("reveal", [0, 1], [], 3) });
    });
    expect((await screen.findByTestId("seeding-lost")).textContent).toMatch(/your seat adds nothing this time/);
    expect(actions()).toEqual([]);
  });
});
