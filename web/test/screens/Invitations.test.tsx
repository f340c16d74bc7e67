// @vitest-environment jsdom
// The start page's invitations: who invites, the seats, and Join: one click seats the member
// (POST /api/games/join with the invitation's code) and opens the table; a refusal is said in
// words beside the button.
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { memberFeed } from "../../src/membersocket";
import { HomeScreen } from "../../src/screens/Home";
import type { Invitation } from "../../src/types";

const invitation: Invitation = {
  game: {
    id: "g-carol", game_type: "scopone_scientifico", join_code: "R4TW9P", status: "lobby",
    players: [{ seat: 0, name: "carol", team: "A", is_you: false, player: "carol-player-id-0123" }],
    seats_open: 3, your_turn: false, updated_at: "2026-12-02T10:00:00.000Z", pace: "live",
  },
  by: { player: "carol-player-id-0123", name: "carol" },
  at: "2026-12-02T10:00:00.000Z",
};

function server(join: [number, unknown]) {
  const posts: { url: string; body: unknown }[] = [];
  vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
    const json = (status: number, data: unknown) => new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
    if (init.method === "POST") {
      posts.push({ url, body: JSON.parse(String(init.body)) });
      return json(join[0], join[1]);
    }
    if (url === "/api/me/invitations") return json(200, { invitations: [invitation] });
    if (url === "/api/me/games" || url.startsWith("/api/games/open") || url.startsWith("/api/games/live")) return json(200, { games: [] });
    if (url.startsWith("/api/me/matches")) return json(200, { items: [], next_cursor: null });
    return json(200, []);
  }));
  return posts;
}

beforeEach(() => {
  history.replaceState(null, "", "/");
  vi.spyOn(window, "scrollTo").mockImplementation(() => undefined);
});

afterEach(() => {
  cleanup();
  memberFeed.stop();
  setLang("en", null);
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the start page's invitations", () => {
  it("come first, and Join seats the member and opens the table in one click", async () => {
    const posts = server([200, { ...invitation.game, is_you: true, id: "g-carol" }]);
    render(<HomeScreen />);
    const item = await screen.findByTestId("invitation");
    expect(item.textContent).toContain("Invited by carol");
    expect(within(item).getAllByText("open")).toHaveLength(3);
    fireEvent.click(within(item).getByRole("button", { name: "Join carol's table" }));
    await waitFor(() => expect(location.pathname).toBe("/games/g-carol"));
    expect(posts).toEqual([{ url: "/api/games/join", body: { code: "R4TW9P" } }]);
  });

  it("say a blocked join in words", async () => {
    server([403, { detail: "Blocked" }]);
    render(<HomeScreen />);
    const item = await screen.findByTestId("invitation");
    fireEvent.click(within(item).getByRole("button", { name: "Join carol's table" }));
    expect((await within(item).findByRole("alert")).textContent).toMatch(/^Blocked: you cannot sit at this table/);
    expect(location.pathname).toBe("/");
  });
});
