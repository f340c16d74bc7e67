// @vitest-environment jsdom
// The Play page's open tables as a person meets them: each table's rules in words, who sits there
// (bots marked), the seats open and the rating, a Join button named after the table; the list
// kept live by the stream (said politely, the focus left where it is) or by polls when the stream
// fails; "Play now" and Join taking the person to the table.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { rulesText, seatsOpenText } from "../src/describe";
import { setLang } from "../src/i18n";
import { POLL_MS, type FeedDeps, type SourceLike } from "../src/opengames";
import { FindTable, hostName } from "../src/opentables";
import type { OpenGame } from "../src/types";
import { LEVELS, openGame } from "./fixtures";

const TYPES = [{
  id: "scopone_scientifico", name: "Scopone scientifico", description: "", bot_levels: LEVELS,
  options_schema: { type: "object", properties: {} },
}];

/** The server: game types, and the answers of the calls the page makes, recorded. */
function server(answers: Record<string, [number, unknown]> = {}) {
  const requests: { method: string; url: string; body: unknown }[] = [];
  vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    requests.push({ method, url, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const [status, body] = url === "/api/game-types" ? [200, TYPES] : answers[`${method} ${url}`] ?? [500, { detail: "no answer" }];
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  }));
  return requests;
}

/** An event stream the test feeds by hand. */
class Stream implements SourceLike {
  readyState = 1;
  onerror: ((ev: Event) => void) | null = null;
  closed = false;
  private listeners: ((ev: MessageEvent<string>) => void)[] = [];
  constructor(readonly url: string) {}
  addEventListener(_type: string, listener: (ev: MessageEvent<string>) => void) {
    this.listeners.push(listener);
  }
  close() {
    this.closed = true;
  }
  send(games: OpenGame[]) {
    act(() => this.listeners.forEach((l) => l({ data: JSON.stringify({ games }) } as MessageEvent<string>)));
  }
}

/** The page's feed, on a stream of the test's. */
function feed() {
  const streams: Stream[] = [];
  const deps: FeedDeps = {
    createSource: (url) => {
      const s = new Stream(url);
      streams.push(s);
      return s;
    },
    fetchList: async () => [],
    now: () => 0,
    setTimeout: () => 0,
    clearTimeout: () => undefined,
    visible: () => true,
  };
  return { deps, stream: () => streams[streams.length - 1] };
}

const dave = openGame({
  id: "g8", join_code: "K7QX2M", rating: 1620, seats_open: 3, pace: "daily",
  options: { target_score: 21, napola: false, asso_pigliatutto: true, pace: "daily" },
  players: [{ seat: 2, name: "dave", team: "A", is_you: false }],
});

beforeEach(() => {
  history.replaceState(null, "", "/");
  vi.spyOn(window, "scrollTo").mockImplementation(() => undefined); // navigate() scrolls; jsdom has no layout
});

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const list = () => within(screen.getByRole("list", { name: "Open tables" }));

describe("the open tables", () => {
  it("show each table's rules, who sits there, the seats open and the rating, with a Join button", async () => {
    server();
    const f = feed();
    render(<FindTable feed={f.deps} />);
    expect(f.stream().url).toBe("/api/games/open/events");
    f.stream().send([openGame(), dave]);
    const items = list().getAllByRole("listitem");
    expect(items).toHaveLength(2);
    const carol = within(items[0]);
    expect(carol.getByText("To 11 points · with napola · without asso pigliatutto · Live (30 s a turn)")).toBeTruthy();
    expect(items[0].textContent).toContain("carol");
    expect(carol.getByTestId("bot-mark").textContent).toBe("bot, Expert"); // the bot is marked as one, with its level
    expect(items[0].textContent).toContain("Expert");
    expect(carol.getByText("2 seats open")).toBeTruthy();
    expect(carol.getByText("Average rating 1512")).toBeTruthy();
    expect(list().getAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual([
      "Join carol's table", "Join dave's table",
    ]);
    expect(within(items[1]).getByText("To 21 points · without napola · with asso pigliatutto · Daily (a day a turn)")).toBeTruthy();
    expect(screen.getByTestId("open-tables-summary").textContent).toBe("2 open tables");
    expect(screen.getByTestId("open-tables-summary").getAttribute("aria-live")).toBe("polite");
  });

  it("say in words when there is none, and what to do", () => {
    server();
    const f = feed();
    render(<FindTable feed={f.deps} />);
    expect(screen.getByRole("status").textContent).toBe("Loading…");
    f.stream().send([]);
    expect(screen.getByText("No open tables right now — press Play now to open one.")).toBeTruthy();
    expect(screen.queryByRole("list", { name: "Open tables" })).toBeNull();
    expect(screen.getByTestId("open-tables-summary").textContent).toBe("No open tables right now");
  });

  it("change live without taking the focus from the table the person is on", () => {
    server();
    const f = feed();
    render(<FindTable feed={f.deps} />);
    f.stream().send([dave]);
    const join = screen.getByRole("button", { name: "Join dave's table" });
    join.focus();
    f.stream().send([openGame(), dave]); // a new table comes in above
    expect(list().getAllByRole("listitem")).toHaveLength(2);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Join dave's table" }));
    expect(screen.getByTestId("open-tables-summary").textContent).toBe("2 open tables");
  });

  it("lead to your own table rather than joining it", () => {
    server();
    const f = feed();
    render(<FindTable feed={f.deps} />);
    f.stream().send([openGame({ players: [{ seat: 0, name: "alice", team: "A", is_you: true }], seats_open: 3 })]);
    expect(list().queryByRole("button")).toBeNull();
    expect(list().getByRole("link", { name: "Your table" }).getAttribute("href")).toBe("/games/g7");
    expect(list().getByText("alice (you)")).toBeTruthy();
  });

  it("name two tables of the same person apart by their codes", () => {
    server();
    const f = feed();
    render(<FindTable feed={f.deps} />);
    f.stream().send([openGame(), openGame({ id: "g9", join_code: "ZZZ222" })]);
    expect(list().getAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual([
      "Join carol's table R4TW9P", "Join carol's table ZZZ222",
    ]);
  });

  it("are said in Italian", () => {
    setLang("it", null);
    expect(rulesText({ target_score: 11, napola: true, asso_pigliatutto: false })).toBe(
      "Agli 11 punti · con la napola · senza asso pigliatutto");
    expect(rulesText({ target_score: 21 })).toBe("Ai 21 punti");
    expect(seatsOpenText(1)).toBe("1 posto libero");
    server();
    const f = feed();
    render(<FindTable feed={f.deps} />);
    f.stream().send([openGame()]);
    expect(screen.getByRole("button", { name: "Gioca ora" })).toBeTruthy();
    expect(screen.getByRole("list", { name: "Tavoli aperti" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Siediti al tavolo di carol" }).textContent).toBe("Siediti");
    expect(screen.getByText("Elo medio 1512")).toBeTruthy();
  });

  it("read an option the app has no words for by its title", () => {
    expect(rulesText({ target_score: 1, sette_bello_doppio: true, mani: 3 }, { sette_bello_doppio: "Double settebello" }))
      .toBe("To 1 point · with Double settebello · mani: 3");
    expect(hostName(openGame({ players: [{ seat: 1, name: "Expert bot", team: "B", is_you: false, bot: "esperto" },
      { seat: 3, name: "erin", team: "B", is_you: false }] }))).toBe("erin");
  });
});

describe("taking a seat", () => {
  it("Join sits the person at that table and opens it", async () => {
    const requests = server({ "POST /api/games/join": [200, { id: "g8", status: "lobby" }] });
    const f = feed();
    render(<FindTable feed={f.deps} />);
    f.stream().send([dave]);
    fireEvent.click(screen.getByRole("button", { name: "Join dave's table" }));
    await waitFor(() => expect(location.pathname).toBe("/games/g8"));
    expect(requests.filter((r) => r.method === "POST")).toEqual([
      { method: "POST", url: "/api/games/join", body: { code: "K7QX2M" } },
    ]);
  });

  it("a table that filled up meanwhile says so", async () => {
    server({ "POST /api/games/join": [409, { detail: "Game is full" }] });
    const f = feed();
    render(<FindTable feed={f.deps} />);
    f.stream().send([dave]);
    fireEvent.click(screen.getByRole("button", { name: "Join dave's table" }));
    expect((await screen.findByRole("alert")).textContent).toBe(
      "That table has just filled up or closed. Pick another one, or press Play now.");
    expect(location.pathname).toBe("/");
  });

  it("Play now asks for a quick match and opens the waiting room or the table", async () => {
    const requests = server({ "POST /api/games/quick": [201, { id: "new1", status: "lobby" }] });
    const f = feed();
    render(<FindTable feed={f.deps} />);
    fireEvent.click(screen.getByRole("button", { name: "Play now" }));
    await waitFor(() => expect(location.pathname).toBe("/games/new1"));
    expect(requests.filter((r) => r.method === "POST")).toEqual([
      { method: "POST", url: "/api/games/quick", body: {} },
    ]);
  });

  it("Play now says what to do when the person has too many open tables", async () => {
    server({ "POST /api/games/quick": [409, { detail: "Too many open games" }] });
    render(<FindTable feed={feed().deps} />);
    fireEvent.click(screen.getByRole("button", { name: "Play now" }));
    expect((await screen.findByRole("alert")).textContent).toMatch(/^You already have 5 open tables waiting/);
    expect(screen.getByRole("button", { name: "Play now" }).hasAttribute("disabled")).toBe(false);
  });
});

describe("the browser's EventSource", () => {
  /** What the page gets from `new EventSource(url)`: the test's stream. */
  const made: Stream[] = [];
  class FakeEventSource extends Stream {
    static CLOSED = 2;
    constructor(url: string) {
      super(url);
      this.readyState = 0;
      made.push(this);
    }
  }

  it("streams the list, and polls GET /api/games/open every 10 s once it keeps failing", async () => {
    vi.useFakeTimers();
    made.length = 0;
    vi.stubGlobal("EventSource", FakeEventSource);
    const requests = server({ "GET /api/games/open": [200, { games: [dave] }] });
    render(<FindTable />);
    expect(made.map((s) => s.url)).toEqual(["/api/games/open/events"]);
    made[0].send([openGame()]);
    expect(screen.getByRole("button", { name: "Join carol's table" })).toBeTruthy();
    const polls = () => requests.filter((r) => r.url === "/api/games/open").length;
    act(() => {
      for (let i = 0; i < 3; i++) made[0].onerror?.(new Event("error"));
    });
    expect(made[0].closed).toBe(true);
    await act(async () => void (await vi.advanceTimersByTimeAsync(0)));
    expect(polls()).toBe(1);
    expect(screen.getByRole("button", { name: "Join dave's table" })).toBeTruthy();
    await act(async () => void (await vi.advanceTimersByTimeAsync(POLL_MS - 1)));
    expect(polls()).toBe(1);
    await act(async () => void (await vi.advanceTimersByTimeAsync(1)));
    expect(polls()).toBe(2);
  });

  it("closes the stream when the page goes", () => {
    made.length = 0;
    vi.stubGlobal("EventSource", FakeEventSource);
    server();
    const { unmount } = render(<FindTable />);
    unmount();
    expect(made[0].closed).toBe(true);
  });
});

describe("Play now in Italian", () => {
  it("says it seats you by your Elo rating", () => {
    server();
    setLang("it", null);
    render(<FindTable feed={feed().deps} />);
    expect(screen.getByText(/^Ti fa sedere al tavolo aperto più vicino al tuo livello Elo,/)).toBeTruthy();
  });
});
