// "Analyse my play" as a person meets it: the button, the calm waiting line, the refusal in the
// server's words, the accuracy and the counts; under a play, its verdict (a symbol shown, its word
// spoken) and the better play in cards, an auto-play marked and not judged.
import { afterEach, describe, expect, it, vi } from "vitest";
import { AnalysisFigures, AnalysisPanel, PlayVerdict } from "../src/analysisview";
import { setLang } from "../src/i18n";
import type { AnalysisState } from "../src/analysis";
import type { AnalysedPlay } from "../src/types";
import { buttons, byTestId, findAll, nameOf, shown, spoken } from "./render";

afterEach(() => setLang("en", null));

const SUMMARY = { accuracy: 87, inaccuracies: 3, mistakes: 1, blunders: 0 };
const MISTAKE: AnalysedPlay = {
  number: 17, hand: 1, played: { card: "05S", capture: [] }, best: { card: "07D", capture: ["03S", "04B"] },
  loss: 0.42, verdict: "mistake", auto: false,
};

function panel(state: AnalysisState, replayHref?: string) {
  const ask = vi.fn();
  const retry = vi.fn();
  return { node: <AnalysisPanel state={state} ask={ask} retry={retry} replayHref={replayHref} />, ask, retry };
}

describe("the analysis panel", () => {
  it("offers the button when never asked, and asks on a click", () => {
    const { node, ask } = panel({ kind: "none" });
    const [button] = buttons(node);
    expect(nameOf(button)).toBe("Analyse my play");
    (button.props.onClick as () => void)();
    expect(ask).toHaveBeenCalledOnce();
    expect(shown(node)).toContain("never the others' cards");
  });

  it("says calmly that the analysis waits or runs, as a status, with no button", () => {
    for (const [state, words] of [
      [{ kind: "asking" }, "in the queue"],
      [{ kind: "waiting", status: "queued" }, "in the queue"],
      [{ kind: "waiting", status: "running" }, "Analysing your plays…"],
    ] as [AnalysisState, string][]) {
      const { node } = panel(state);
      const [line] = byTestId(node, "analysis-waiting");
      expect(line.props.role).toBe("status");
      expect(shown(node)).toContain(words);
      expect(buttons(node)).toHaveLength(0);
    }
  });

  it("shows a refusal in the contract's words, with the button to ask again", () => {
    const { node } = panel({ kind: "refused", error: "Game is not finished" });
    expect(shown(node)).toContain("The analysis was not started: Game is not finished");
    expect(findAll(node, (e) => e.props.role === "alert")).toHaveLength(1);
    expect(buttons(node).map(nameOf)).toEqual(["Analyse my play"]);
  });

  it("offers a retry after a failed read", () => {
    const { node, retry } = panel({ kind: "failed", error: "Game not found" });
    const [button] = buttons(node);
    expect(nameOf(button)).toBe("Try again");
    (button.props.onClick as () => void)();
    expect(retry).toHaveBeenCalledOnce();
  });

  it("shows the accuracy and the counts once done; on the game over, a link to the marked replay", () => {
    const analysis = { status: "done" as const, seat: 2, plays: [MISTAKE], summary: SUMMARY };
    const { node } = panel({ kind: "done", analysis }, "/history/g1");
    expect(shown(node)).toContain("87% accuracy");
    const [link] = findAll(node, (e) => e.tag === "a");
    expect(link.props.href).toBe("/history/g1");
    expect(nameOf(link)).toBe("Step through your plays");
    const inHistory = panel({ kind: "done", analysis }).node;
    expect(findAll(inHistory, (e) => e.tag === "a")).toHaveLength(0);
    expect(shown(inHistory)).toContain("Next mistake");
  });
});

describe("the figures", () => {
  it("show each count with its verdict's symbol and say them in words", () => {
    const node = <AnalysisFigures summary={SUMMARY} />;
    expect(shown(node)).toContain("?! 3 inaccuracies");
    expect(shown(node)).toContain("? 1 mistake");
    expect(shown(node)).toContain("?? 0 blunders");
    const [list] = findAll(node, (e) => e.tag === "ul");
    expect(list.props["aria-label"]).toBe("3 inaccuracies, 1 mistake, no blunders");
  });
});

describe("a play's verdict", () => {
  it("shows the symbol and the word, the points lost, your play and the better one in cards", () => {
    const node = <PlayVerdict play={MISTAKE} />;
    expect(shown(node)).toContain("? Mistake");
    expect(shown(node)).toContain("expected loss 0.42 points");
    expect(spoken(node)).not.toContain("?"); // the symbol is for the eyes
    const moves = findAll(node, (e) => e.props.class === "analysis-move");
    expect(moves.map((m) => m.props["aria-label"])).toEqual([
      "You played: 5 of spade on the table",
      "Better: 7 of denari (settebello) taking 3 of spade, 4 of bastoni",
    ]);
    const cards = findAll(node, (e) => e.props.role === "img").map((e) => e.props["aria-label"]);
    expect(cards).toEqual(["5 of spade", "7 of denari (settebello)", "3 of spade", "4 of bastoni"]);
    expect(byTestId(node, "play-verdict")[0].props["data-verdict"]).toBe("mistake");
  });

  it("shows no better play beside the best one", () => {
    const best: AnalysedPlay = { ...MISTAKE, best: MISTAKE.played, loss: 0, verdict: "best" };
    const node = <PlayVerdict play={best} />;
    expect(shown(node)).toContain("★ Best play");
    expect(shown(node)).not.toContain("Better");
    expect(shown(node)).not.toContain("loss");
  });

  it("marks an auto-play as such and does not judge it", () => {
    const auto: AnalysedPlay = { number: 21, hand: 1, played: { card: "02C", capture: [] }, auto: true };
    const node = <PlayVerdict play={auto} />;
    expect(shown(node)).toContain("Auto-played, not judged");
    expect(shown(node)).toContain("The time ran out");
    expect(shown(node)).not.toContain("Better");
    expect(byTestId(node, "play-verdict")[0].props["data-verdict"]).toBe("auto");
  });

  it("speaks Italian", () => {
    setLang("it", null);
    const node = <PlayVerdict play={MISTAKE} />;
    expect(shown(node)).toContain("Errore");
    expect(shown(node)).toContain("perdita attesa 0,42 punti");
    expect(findAll(node, (e) => e.props.class === "analysis-move")[1].props["aria-label"]).toBe(
      "Meglio: 7 di denari (settebello) prendendo 3 di spade, 4 di bastoni");
  });
});
