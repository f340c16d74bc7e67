// @vitest-environment jsdom
// The waiting room as its creator meets it: whether the table is open to anyone, and the switch
// to open or close it; "Fill with bots" (one bot per empty seat, at the level chosen); and, after a
// minute alone by the test's own clock, the offer to fill the empty seats with bots, said politely.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Clock } from "../../src/clock";
import { setLang } from "../../src/i18n";
import { OFFER_BOTS_AFTER_MS, WaitingScreen } from "../../src/screens/Waiting";
import type { AnyView, LobbyPlayer, LobbyView } from "../../src/types";
import { bot, LEVELS, lobby, person } from "../fixtures";

const TYPES = [{
  id: "scopone_scientifico", name: "Scopone scientifico", description: "", bot_levels: LEVELS,
  options_schema: { type: "object", properties: {} },
}];

/** The server: game types, the member's history (one finished match, unless ``firstMatch``), then
 * the answers to the page's POSTs in order; every POST recorded. */
function server(answers: [number, unknown][] = [], firstMatch = false) {
  const posts: { url: string; body: unknown }[] = [];
  vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
    let status = 200;
    let body: unknown = TYPES;
    if (url.startsWith("/api/me/matches")) {
      body = { items: firstMatch ? [] : [{ id: "m1", players: [] }], next_cursor: null };
    } else if (url === "/api/me/following") {
      body = { players: [] }; // the "Invite a player" section's
    } else if (url !== "/api/game-types") {
      posts.push({ url, body: init.body ? JSON.parse(String(init.body)) : undefined });
      [status, body] = answers.shift() ?? [500, { detail: "no answer left" }];
    }
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  }));
  return posts;
}

/** A clock that moves when the test says, running the timers that fall due. */
function testClock() {
  let now = 1_000_000;
  let timers: { at: number; fn: () => void }[] = [];
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const t = { at: now + ms, fn };
      timers.push(t);
      return t;
    },
    clearTimeout: (t) => void (timers = timers.filter((x) => x !== t)),
  };
  const advance = (ms: number) => act(() => {
    now += ms;
    const due = timers.filter((t) => t.at <= now);
    timers = timers.filter((t) => t.at > now);
    due.forEach((t) => t.fn());
  });
  return { clock, advance };
}

/** The waiting room of ``view``, its adopted views recorded (the page adopts them in turn). */
function show(view: LobbyView, clock?: Clock) {
  const adopted: AnyView[] = [];
  const game = { adopt: (v: AnyView) => void adopted.push(v) };
  const result = render(<WaitingScreen lobby={view} game={game} clock={clock} />);
  const again = (next: LobbyView) => result.rerender(<WaitingScreen lobby={next} game={game} clock={clock} />);
  return { adopted, again };
}

const alone = (extra: Partial<LobbyView> = {}) => ({ ...lobby([person(0, "alice", true)]), ...extra });
const withPlayers = (players: LobbyPlayer[], extra: Partial<LobbyView> = {}) => ({ ...lobby(players), ...extra });

beforeEach(() => {
  setLang("en", null);
});

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
});

describe("open to anyone", () => {
  it("shows the creator whether the table is listed, and opens it", async () => {
    const posts = server([[200, alone({ open: true })]]);
    const { adopted } = show(alone({ open: false }));
    const open = screen.getByRole("checkbox", { name: "Open to anyone" }) as HTMLInputElement;
    expect(open.checked).toBe(false);
    expect(screen.getByTestId("open-state").textContent).toBe("Only people with the code or the link can join.");
    fireEvent.click(open);
    await waitFor(() => expect(adopted).toHaveLength(1));
    expect(posts).toEqual([{ url: "/api/games/g1/open", body: { open: true } }]);
    expect((adopted[0] as LobbyView).open).toBe(true);
  });

  it("closes an open table, and says why it could not", async () => {
    const posts = server([[409, { detail: "Too many open games" }]]);
    show(alone({ open: true }));
    const open = screen.getByRole("checkbox", { name: "Open to anyone" }) as HTMLInputElement;
    expect(open.checked).toBe(true);
    expect(screen.getByTestId("open-state").textContent).toMatch(/listed under Open tables/);
    fireEvent.click(open);
    expect((await screen.findByRole("alert")).textContent).toMatch(/^You already have 5 open tables/);
    expect(posts).toEqual([{ url: "/api/games/g1/open", body: { open: false } }]);
    await waitFor(() => expect(open.checked).toBe(true)); // the table stays as the server has it
  });

  it("tells the others the table is open, with nothing to switch", () => {
    server();
    show(withPlayers([person(0, "alice"), person(1, "bob", true)], { open: true }));
    expect(screen.queryByRole("checkbox", { name: "Open to anyone" })).toBeNull();
    expect(screen.getByTestId("open-state").textContent).toBe("This table is open to anyone: it is listed on the Play page.");
    expect(screen.queryByRole("button", { name: "Fill with bots" })).toBeNull();
  });
});

describe("fill with bots", () => {
  it("seats a bot at every empty seat, one after the other, at the level chosen", async () => {
    const two = withPlayers([person(0, "alice", true), person(2, "carol")]);
    const started = { id: "g1", status: "playing" };
    const posts = server([[200, withPlayers([person(0, "alice", true), bot(1, "maestro"), person(2, "carol")])], [200, started]]);
    const { adopted } = show(two);
    const level = await screen.findByRole("combobox", { name: "Level of the bots" }) as HTMLSelectElement;
    expect(level.value).toBe("esperto");
    fireEvent.change(level, { target: { value: "maestro" } });
    fireEvent.click(screen.getByRole("button", { name: "Fill with bots" }));
    await waitFor(() => expect(adopted).toHaveLength(2));
    expect(posts).toEqual([
      { url: "/api/games/g1/bots", body: { seat: 1, level: "maestro" } },
      { url: "/api/games/g1/bots", body: { seat: 3, level: "maestro" } },
    ]);
    expect(adopted[1]).toEqual(started); // the last bot started the game: the table opens
  });

  it("offers principiante first to a member who has not finished a match yet", async () => {
    const posts = server([[200, withPlayers([person(0, "alice", true), bot(1, "principiante")])]], true);
    show(alone());
    const level = await screen.findByRole("combobox", { name: "Level of the bots" }) as HTMLSelectElement;
    await waitFor(() => expect(level.value).toBe("principiante"));
    expect((screen.getByRole("combobox", { name: "Level of the bot for seat 2" }) as HTMLSelectElement).value).toBe("principiante");
    fireEvent.click(screen.getByRole("button", { name: "Add a bot at seat 2" }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({ url: "/api/games/g1/bots", body: { seat: 1, level: "principiante" } });
  });

  it("stops at a refusal and says why", async () => {
    const posts = server([[200, withPlayers([person(0, "alice", true), bot(1)])], [409, { detail: "Seat taken" }]]);
    show(alone());
    fireEvent.click(await screen.findByRole("button", { name: "Fill with bots" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Seat taken");
    expect(posts.map((p) => p.body)).toEqual([{ seat: 1, level: "esperto" }, { seat: 2, level: "esperto" }]);
  });
});

describe("the offer after a minute alone", () => {
  const offer = () => screen.queryByTestId("fill-with-bots");
  const offered = () => offer()?.classList.contains("is-offered") ?? false;

  it("comes after a minute by the page's clock, politely, without taking the focus", async () => {
    server();
    const { clock, advance } = testClock();
    show(alone(), clock);
    await screen.findByRole("button", { name: "Fill with bots" });
    expect(offered()).toBe(false);
    const copy = screen.getByRole("button", { name: "Copy code" });
    copy.focus();
    advance(OFFER_BOTS_AFTER_MS - 1);
    expect(offered()).toBe(false);
    advance(1);
    expect(offered()).toBe(true);
    const live = offer()!.closest("[aria-live]");
    expect(live?.getAttribute("aria-live")).toBe("polite");
    expect(within(live as HTMLElement).getByText(/Bots can play the empty seats so the game starts now/)).toBeTruthy();
    expect(screen.getAllByRole("button", { name: "Fill with bots" })).toHaveLength(1); // moved up, not doubled
    expect(document.activeElement).toBe(copy);
  });

  it("is not made while another person sits at the table, and comes once they leave", async () => {
    server();
    const { clock, advance } = testClock();
    const { again } = show(withPlayers([person(0, "alice", true), person(1, "bob")]), clock);
    await screen.findByRole("button", { name: "Fill with bots" });
    advance(5 * OFFER_BOTS_AFTER_MS);
    expect(offered()).toBe(false);
    again(withPlayers([person(0, "alice", true), bot(1)])); // bob left; a bot is no company
    expect(offered()).toBe(true);
  });

  it("is timed from when the page first saw the waiting room, not from each update", async () => {
    server();
    const { clock, advance } = testClock();
    const { again } = show(alone(), clock);
    await screen.findByRole("button", { name: "Fill with bots" });
    advance(OFFER_BOTS_AFTER_MS / 2);
    again(alone({ open: true }));
    advance(OFFER_BOTS_AFTER_MS / 2);
    expect(offered()).toBe(true);
  });

  it("is said in Italian", async () => {
    setLang("it", null);
    server();
    const { clock, advance } = testClock();
    show(alone(), clock);
    await screen.findByRole("button", { name: "Riempi con i bot" });
    advance(OFFER_BOTS_AFTER_MS);
    expect(offer()?.textContent).toMatch(/^Da un minuto non si è seduto nessuno\. I bot possono giocare ai posti liberi/);
    expect(screen.getByRole("checkbox", { name: "Aperto a tutti" })).toBeTruthy();
  });
});
