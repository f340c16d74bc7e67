// @vitest-environment jsdom
// "Play now" with a game type that has the pace option: a live table unless daily is picked (a
// file of its own: the game types are read once a page).
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FindTable } from "../../src/opentables";
import { lobby, person } from "../fixtures";

const TYPES = [{
  id: "scopone_scientifico", name: "Scopone scientifico", description: "", bot_levels: [],
  options_schema: {
    type: "object",
    properties: { pace: { type: "string", title: "Pace", enum: ["live", "daily"], default: "live" } },
  },
}];

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Play now", () => {
  it("asks for a live table unless daily is picked", async () => {
    const posts: unknown[] = [];
    vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
      if (init.method === "POST") {
        posts.push(JSON.parse(String(init.body)));
        return new Response(JSON.stringify({ ...lobby([person(0, "alice", true)]), id: "new1" }), { status: 200 });
      }
      return new Response(JSON.stringify(url === "/api/game-types" ? TYPES : { games: [] }), { status: 200 });
    }));
    render(<FindTable feed={{
      createSource: () => null, fetchList: async () => [], now: () => Date.now(),
      setTimeout: () => 0, clearTimeout: () => undefined, visible: () => true,
    }} />);
    const pace = await screen.findByRole("combobox", { name: "Pace of the table" }) as HTMLSelectElement;
    expect([...pace.options].map((o) => o.textContent)).toEqual(["Live (30 s a turn)", "Daily (a day a turn)"]);
    expect(pace.value).toBe("live");
    fireEvent.click(screen.getByRole("button", { name: "Play now" }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({ game_type: "scopone_scientifico", options: { pace: "live" } });
    fireEvent.change(pace, { target: { value: "daily" } });
    expect(screen.getByText(/Sits you at an open daily table/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Play now" }));
    await waitFor(() => expect(posts).toHaveLength(2));
    expect(posts[1]).toEqual({ game_type: "scopone_scientifico", options: { pace: "daily" } });
  });
});
