// @vitest-environment jsdom
// The Play page: "Play against the computer" and "Play now" come first; a first match is offered
// against principianti; a seat a bot took over is taken back from "Your games"; the new-game form
// can open the table to anyone.
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { memberFeed } from "../../src/membersocket";
import { HomeScreen } from "../../src/screens/Home";
import type { MemberMessage } from "../../src/types";
import { LEVELS, lobby, person } from "../fixtures";

const TYPES = [{
  id: "scopone_scientifico", name: "Scopone scientifico", description: "", bot_levels: LEVELS,
  options_schema: {
    type: "object",
    properties: { target_score: { type: "integer", title: "Target score", default: 11, minimum: 1, maximum: 101 } },
  },
}];

/** The gateway: writes answer 201 with a new lobby, or ``refuseWrites`` (status, body, headers);
 * the member has finished ``finished`` matches and sits at ``games``. */
function server(refuseWrites?: [number, unknown, Record<string, string>], { finished = 1, games = [] as unknown[] } = {}) {
  const posts: { url: string; body: unknown }[] = [];
  vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
    const answers: Record<string, unknown> = {
      "/api/game-types": TYPES, "/api/me/games": { games }, "/api/games/open": { games: [] },
      "/api/games/live?limit=3": { games: [] },
      "/api/me/matches?limit=1": { items: Array.from({ length: finished }, (_, i) => ({ id: `m${i}` })), next_cursor: null },
    };
    if (init.method === "POST") posts.push({ url, body: init.body === undefined ? undefined : JSON.parse(String(init.body)) });
    if (init.method === "POST" && refuseWrites) {
      const [status, body, headers] = refuseWrites;
      return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
    }
    const body = init.method === "POST" ? { ...lobby([person(0, "alice", true)]), id: "new1", open: true } : answers[url];
    return new Response(JSON.stringify(body), { status: init.method === "POST" ? 201 : 200, headers: { "Content-Type": "application/json" } });
  }));
  return posts;
}

beforeEach(() => {
  history.replaceState(null, "", "/");
  vi.spyOn(window, "scrollTo").mockImplementation(() => undefined);
});

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the Play page", () => {
  it("offers Play against the computer first, then Play now and the open tables (none here, said in words)", async () => {
    server();
    render(<HomeScreen />);
    const computer = await screen.findByRole("group", { name: "Play against the computer" });
    const buttons = screen.getAllByRole("button");
    expect(buttons[0].textContent).toBe("Play against the computer");
    expect(computer.contains(buttons[0])).toBe(true);
    expect(buttons[1].textContent).toBe("Play now");
    // The rules it plays with are the new-game form's, said in a line.
    expect(within(computer).getByText(/^Rules: To 11 points/)).toBeTruthy();
    expect((within(computer).getByRole("combobox", { name: "Bot level" }) as HTMLSelectElement).value).toBe("esperto");
    expect(await screen.findByText("No open tables right now — press Play now to open one.")).toBeTruthy();
  });

  it("offers a first match against principianti, with the form's rules", async () => {
    const posts = server(undefined, { finished: 0 });
    render(<HomeScreen />);
    const computer = await screen.findByRole("group", { name: "Play against the computer" });
    const level = within(computer).getByRole("combobox", { name: "Bot level" }) as HTMLSelectElement;
    await waitFor(() => expect(level.value).toBe("principiante"));
    fireEvent.input(screen.getByRole("spinbutton", { name: "Target score" }), { target: { value: "5" } });
    expect(within(computer).getByText(/^Rules: To 5 points/)).toBeTruthy();
    fireEvent.click(within(computer).getByRole("button", { name: "Play against the computer" }));
    await waitFor(() => expect(posts).toHaveLength(4));
    expect(posts[0]).toEqual({ url: "/api/games", body: { game_type: "scopone_scientifico", options: { target_score: 5 } } });
    expect(posts.slice(1).map((p) => p.body)).toEqual([1, 2, 3].map((seat) => ({ seat, level: "principiante" })));
  });

  it("offers Take my seat back at a game whose seat a bot took over, and opens the table", async () => {
    const taken = {
      id: "g9", game_type: "scopone_scientifico", join_code: "R4TW9P", status: "playing", seats_open: 0, your_turn: false,
      updated_at: "2026-12-02T09:58:41.007Z",
      players: [
        { seat: 0, name: "alice", team: "A", is_you: true, bot: "esperto", took_over: true },
        { seat: 1, name: "bob", team: "B", is_you: false },
        { seat: 2, name: "carol", team: "A", is_you: false },
        { seat: 3, name: "dave", team: "B", is_you: false },
      ],
    };
    const posts = server(undefined, { games: [taken] });
    render(<HomeScreen />);
    const banner = await screen.findByTestId("taken-over");
    expect(banner.textContent).toContain("A bot is playing your seat at R4TW9P.");
    fireEvent.click(within(banner).getByRole("button", { name: "Take my seat back" }));
    await waitFor(() => expect(location.pathname).toBe("/games/g9"));
    expect(posts.map((p) => p.url)).toEqual(["/api/games/g9/return"]);
  });

  it("creates a table open to anyone when the person ticks it", async () => {
    const posts = server();
    render(<HomeScreen />);
    const open = await screen.findByRole("checkbox", { name: "Open to anyone" }) as HTMLInputElement;
    expect(open.checked).toBe(false); // a table for friends unless the person says otherwise
    fireEvent.click(open);
    fireEvent.click(screen.getByRole("button", { name: "Create game" }));
    await waitFor(() => expect(location.pathname).toBe("/games/new1"));
    expect(posts).toEqual([
      { url: "/api/games", body: { game_type: "scopone_scientifico", options: { target_score: 11 }, open: true } },
    ]);
  });

  it("creates a table nobody may watch when the person unticks it", async () => {
    const posts = server();
    render(<HomeScreen />);
    const watchable = await screen.findByRole("checkbox", { name: "Others may watch" }) as HTMLInputElement;
    expect(watchable.checked).toBe(true); // watching is the default (CONTRACT, Spectators)
    fireEvent.click(watchable);
    fireEvent.click(screen.getByRole("button", { name: "Create game" }));
    await waitFor(() => expect(location.pathname).toBe("/games/new1"));
    expect(posts).toEqual([
      { url: "/api/games", body: { game_type: "scopone_scientifico", options: { target_score: 11 }, spectators: false } },
    ]);
  });

  it("says a refused Create game right under its button, with the server's wait", async () => {
    server([429, { detail: "Too many requests" }, { "Retry-After": "40" }]);
    render(<HomeScreen />);
    const create = await screen.findByRole("button", { name: "Create game" });
    fireEvent.click(create);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe("Too many requests in a short time, so nothing was done: wait 40 seconds and try again.");
    expect(location.pathname).toBe("/");
    // Right after the button: seen where the player pressed.
    expect(create.compareDocumentPosition(alert) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(create.closest("form")?.contains(alert)).toBe(true);
    await waitFor(() => expect((create as HTMLButtonElement).disabled).toBe(false)); // free to try again
  });
});

describe("your tables", () => {
  const table = (id: string, extra: Record<string, unknown>) => ({
    id, game_type: "scopone_scientifico", join_code: id.toUpperCase().padEnd(6, "X").slice(0, 6), status: "playing",
    players: [0, 1, 2, 3].map((seat) => person(seat, ["alice", "bob", "carol", "dave"][seat], seat === 0)),
    seats_open: 0, your_turn: false, updated_at: "2026-12-02T10:00:00.000Z", pace: "live", ...extra,
  });
  const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

  it("lists every unfinished game, your turn first, with its pace and the time left", async () => {
    server(undefined, {
      games: [
        table("wait1", { pace: "daily", deadline: inMs(3 * 3_600_000 + 5 * 60_000 + 30_000) }),
        table("live1", { your_turn: true, deadline: inMs(25_500) }),
        table("mine1", { your_turn: true, pace: "daily", deadline: inMs(2 * 3_600_000 + 14 * 60_000 + 30_000) }),
        table("lobby1", { status: "lobby", seats_open: 3, players: [person(0, "alice", true)] }),
      ],
    });
    render(<HomeScreen />);
    await screen.findByRole("heading", { name: "Your tables" });
    const items = await screen.findAllByTestId("your-table");
    expect(items.map((i) => i.dataset.game)).toEqual(["live1", "mine1", "wait1", "lobby1"]);
    expect(items.map((i) => i.dataset.pace)).toEqual(["live", "daily", "daily", "live"]);
    expect(within(items[1]).getByText("Daily")).toBeTruthy();
    expect(within(items[1]).getByTestId("time-left").textContent).toBe("2 h 14 min left");
    expect(within(items[1]).getByTestId("your-turn-badge")).toBeTruthy();
    expect(within(items[2]).getByTestId("time-left").textContent).toBe("3 h 5 min left");
    expect(within(items[2]).queryByTestId("your-turn-badge")).toBeNull();
    expect(within(items[0]).getByTestId("time-left").textContent).toMatch(/^2\d s left$/);
    // The waiting room has no deadline: no time left.
    expect(within(items[3]).queryByTestId("time-left")).toBeNull();
    expect(items[1].querySelector("a")!.getAttribute("href")).toBe("/games/mine1");
  });

  it("reads the tables again when a turn comes on the member socket", async () => {
    server(undefined, { games: [table("wait1", { pace: "daily", deadline: inMs(3_600_000) })] });
    const fetches = globalThis.fetch as unknown as ReturnType<typeof vi.fn>;
    const reads = () => fetches.mock.calls.filter(([url]) => url === "/api/me/games").length;
    render(<HomeScreen />);
    await screen.findAllByTestId("your-table");
    const before = reads();
    const game = table("wait1", { pace: "daily", your_turn: true, deadline: inMs(3_600_000) });
    memberFeed.dispatch({ type: "message", message: { type: "your_turn", game } as MemberMessage, at: new Date().toISOString() });
    await waitFor(() => expect(reads()).toBe(before + 1));
    memberFeed.dispatch({ type: "forget", game: "wait1" });
  });
});
