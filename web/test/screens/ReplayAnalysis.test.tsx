// @vitest-environment jsdom
// The replay with the member's analysis: each of their plays marked, the verdict and the better
// play under the play, "Next mistake" and "Previous mistake" stepping across the marked ones, the
// hand's marks as buttons that step there; without an analysis, none of it.
import { cleanup, fireEvent, render, screen, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { cardName } from "../../src/deck";
import { deal, hexToBytes } from "../../src/fairness";
import { setLang } from "../../src/i18n";
import { Replay } from "../../src/screens/Replay";
import type { AnalysedPlay, Analysis, GameLog, MatchItem } from "../../src/types";

const SEED = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, "0")).join("");

/** A finished hand of the seed's deal, every card laid on the table in turn from seat 0 (the
 * replay only shows what the log says), moves numbered from 1. */
async function server(): Promise<string[][]> {
  const dealt = await deal(hexToBytes(SEED), 1);
  const moves = Array.from({ length: 40 }, (_, i) => ({
    number: i + 1, type: "play", seat: `seat:${i % 4}`, payload: { card: dealt[i % 4][Math.floor(i / 4)], capture: [] }, auto: false,
  }));
  const log = { id: "g1", game_type: "scopone_scientifico", options: {}, seats: [], seed_commitment: "", seed: SEED, moves, revision: 40 } as unknown as GameLog;
  vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify(log), { status: 200, headers: { "Content-Type": "application/json" } })));
  return dealt;
}

const MATCH = {
  id: "g1", game_type: "scopone_scientifico", started_at: "", finished_at: "", rated: false, result: {},
  players: [0, 1, 2, 3].map((seat) => ({ seat, name: ["alice", "Bruno", "Carla", "Dario"][seat], team: seat % 2 ? "B" : "A", won: true, points: 1, ...(seat ? { bot: "esperto" } : {}) })),
} as unknown as MatchItem;

/** alice's ten plays (moves 1, 5, ..., 37): 5 a mistake, 13 a blunder, 9 an auto-play, the rest best. */
function analysis(dealt: string[][]): Analysis {
  const plays: AnalysedPlay[] = dealt[0].map((card, i) => {
    const number = 1 + 4 * i;
    if (number === 9) return { number, hand: 1, played: { card, capture: [] }, auto: true };
    const verdict = number === 5 ? "mistake" : number === 13 ? "blunder" : "best";
    const best = verdict === "best" ? { card, capture: [] } : { card: dealt[0][9], capture: [] };
    return { number, hand: 1, played: { card, capture: [] }, best, loss: verdict === "best" ? 0 : 1.2, verdict, auto: false };
  });
  return { status: "done", seat: 0, plays, summary: { accuracy: 70, inaccuracies: 0, mistakes: 1, blunders: 1 } };
}

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
});

describe("the replay with the analysis", () => {
  it("steps from mistake to mistake and shows each one's verdict and the better play", async () => {
    const dealt = await server();
    render(<Replay match={MATCH} me="alice" levels={[]} analysis={analysis(dealt)} />);
    await screen.findByText("Hand 1 of 1");
    const next = screen.getByRole("button", { name: "Next mistake" });
    const previous = screen.getByRole("button", { name: "Previous mistake" });
    expect(previous).toHaveProperty("disabled", true);
    expect(screen.queryByTestId("play-verdict")).toBeNull(); // the deal: no play yet

    fireEvent.click(next);
    expect(screen.getByTestId("replay-play").textContent).toBe("Play 5 of 40");
    const verdict = screen.getByTestId("play-verdict");
    expect(verdict.dataset.verdict).toBe("mistake");
    expect(verdict.textContent).toContain("Mistake");
    within(verdict).getByRole("group", { name: `You played: ${cardName(dealt[0][1])} on the table` });
    within(verdict).getByRole("group", { name: `Better: ${cardName(dealt[0][9])} on the table` });

    fireEvent.click(next);
    expect(screen.getByTestId("replay-play").textContent).toBe("Play 13 of 40");
    expect(screen.getByTestId("play-verdict").dataset.verdict).toBe("blunder");
    expect(next).toHaveProperty("disabled", true);
    fireEvent.click(previous);
    expect(screen.getByTestId("replay-play").textContent).toBe("Play 5 of 40");
  });

  it("marks the auto-play as not judged, and shows no verdict under another seat's play", async () => {
    const dealt = await server();
    render(<Replay match={MATCH} me="alice" levels={[]} analysis={analysis(dealt)} />);
    await screen.findByText("Hand 1 of 1");
    const marks = within(screen.getByRole("list", { name: "Your plays in this hand" })).getAllByRole("button");
    expect(marks).toHaveLength(10);
    expect(marks[2].getAttribute("aria-label")).toMatch(/^Play 9: .*, Auto-played, not judged$/);
    fireEvent.click(marks[2]);
    expect(screen.getByTestId("replay-play").textContent).toBe("Play 9 of 40");
    expect(marks[2].getAttribute("aria-current")).toBe("step");
    expect(screen.getByTestId("play-verdict").dataset.verdict).toBe("auto");
    fireEvent.click(screen.getByRole("button", { name: "Next play" }));
    expect(screen.queryByTestId("play-verdict")).toBeNull(); // Bruno's play
  });

  it("shows none of it without an analysis", async () => {
    await server();
    render(<Replay match={MATCH} me="alice" levels={[]} />);
    await screen.findByText("Hand 1 of 1");
    expect(screen.queryByRole("button", { name: "Next mistake" })).toBeNull();
    expect(screen.queryByRole("list", { name: "Your plays in this hand" })).toBeNull();
  });
});
