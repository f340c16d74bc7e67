// @vitest-environment jsdom
// "Analyse my play" wired to the REST client: the first read finds none, the click posts to the
// game's analysis, the line says it waits, and a later read shows the figures.
import { cleanup, fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AnalysisPanel } from "../../src/analysisview";
import { useAnalysis } from "../../src/useanalysis";

function Panel({ id }: { id: string }) {
  const { state, ask, retry } = useAnalysis(id);
  return <AnalysisPanel state={state} ask={ask} retry={retry} replayHref={`/history/${id}`} />;
}

const DONE = { status: "done", seat: 0, plays: [], summary: { accuracy: 91, inaccuracies: 2, mistakes: 0, blunders: 1 } };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the analysis panel against the server", () => {
  it("asks with POST, waits, and shows the figures once a read finds it done", async () => {
    const calls: string[] = [];
    let asked = false;
    vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
      const method = init.method ?? "GET";
      calls.push(`${method} ${url}`);
      const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
      if (method === "POST") {
        asked = true;
        return json(202, { status: "queued", seat: 0 });
      }
      return asked ? json(200, DONE) : json(404, { detail: "No analysis" });
    }));
    render(<Panel id="g 1" />);
    fireEvent.click(await screen.findByRole("button", { name: "Analyse my play" }));
    expect((await screen.findByRole("status")).textContent).toContain("in the queue");
    expect(await screen.findByText("91%", {}, { timeout: 3000 })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Step through your plays" }).getAttribute("href")).toBe("/history/g 1");
    expect(calls).toEqual(["GET /api/games/g%201/analysis", "POST /api/games/g%201/analysis", "GET /api/games/g%201/analysis"]);
  });

  it("shows the server's refusal in its words", async () => {
    vi.stubGlobal("fetch", vi.fn(async (_url: string, init: RequestInit = {}) =>
      init.method === "POST"
        ? new Response(JSON.stringify({ detail: "Too many analyses" }), { status: 409 })
        : new Response(JSON.stringify({ detail: "No analysis" }), { status: 404 })));
    render(<Panel id="g1" />);
    fireEvent.click(await screen.findByRole("button", { name: "Analyse my play" }));
    expect((await screen.findByRole("alert")).textContent).toContain("The analysis was not started: Too many analyses");
    expect(screen.getByRole("button", { name: "Analyse my play" })).toBeTruthy();
  });
});
