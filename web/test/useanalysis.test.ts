// Asking for an analysis and waiting for it, driven without a clock: the reads and the timer are
// the test's, so each step is one the test takes.
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/api";
import type { AnalysisState } from "../src/analysis";
import type { Analysis } from "../src/types";
import { AnalysisWatch, type AnalysisDeps } from "../src/useanalysis";

const DONE: Analysis = { status: "done", seat: 1, plays: [], summary: { accuracy: 100, inaccuracies: 0, mistakes: 0, blunders: 0 } };

/** A server whose answers the test hands out one by one, and a timer the test fires. */
function harness() {
  const reads: { resolve: (a: Analysis) => void; reject: (e: unknown) => void }[] = [];
  const asks: { resolve: (a: Analysis) => void; reject: (e: unknown) => void }[] = [];
  const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const states: AnalysisState[] = [];
  const deps: AnalysisDeps = {
    read: () => new Promise((resolve, reject) => reads.push({ resolve, reject })),
    ask: () => new Promise((resolve, reject) => asks.push({ resolve, reject })),
    setTimeout: (fn, ms) => {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return t;
    },
    clearTimeout: (t) => {
      (t as { cancelled: boolean }).cancelled = true;
    },
  };
  const watch = new AnalysisWatch("g1", (s) => states.push(s), deps);
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const pending = () => timers.filter((t) => !t.cancelled);
  const fire = async () => {
    const t = pending().at(-1);
    if (!t) throw new Error("no timer set");
    t.cancelled = true;
    t.fn();
    await settle();
  };
  return { watch, reads, asks, timers, states, settle, pending, fire, kind: () => watch.state.kind };
}

describe("the analysis of a match, asked and waited for", () => {
  it("offers the button when never asked, then waits through the queue, reading later each time, until done", async () => {
    const h = harness();
    h.watch.start();
    expect(h.kind()).toBe("loading");
    h.reads[0].reject(new ApiError(404, "No analysis"));
    await h.settle();
    expect(h.kind()).toBe("none");
    expect(h.pending()).toHaveLength(0); // nothing to wait for

    void h.watch.ask();
    expect(h.kind()).toBe("asking");
    h.asks[0].resolve({ status: "queued", seat: 1 });
    await h.settle();
    expect(h.watch.state).toEqual({ kind: "waiting", status: "queued" });
    expect(h.pending().map((t) => t.ms)).toEqual([1000]);

    await h.fire();
    h.reads[1].resolve({ status: "running", seat: 1 });
    await h.settle();
    expect(h.watch.state).toEqual({ kind: "waiting", status: "running" });
    expect(h.pending().map((t) => t.ms)).toEqual([1500]);

    await h.fire();
    h.reads[2].resolve(DONE);
    await h.settle();
    expect(h.watch.state).toEqual({ kind: "done", analysis: DONE });
    expect(h.pending()).toHaveLength(0);
  });

  it("shows an analysis asked before at once, without asking again", async () => {
    const h = harness();
    h.watch.start();
    h.reads[0].resolve(DONE);
    await h.settle();
    expect(h.kind()).toBe("done");
    expect(h.asks).toHaveLength(0);
  });

  it("keeps reading, more slowly, while the server cannot answer, and keeps what it showed", async () => {
    const h = harness();
    h.watch.start();
    h.reads[0].resolve({ status: "running", seat: 1 });
    await h.settle();
    await h.fire();
    h.reads[1].reject(new ApiError(0, "The server cannot be reached."));
    await h.settle();
    expect(h.watch.state).toEqual({ kind: "waiting", status: "running" });
    expect(h.pending().map((t) => t.ms)).toEqual([1500]);
    await h.fire();
    h.reads[2].reject(new ApiError(502, "Bad gateway"));
    await h.settle();
    expect(h.pending().map((t) => t.ms)).toEqual([2250]);
  });

  it("shows the server's refusal and the button again; a second click asks again", async () => {
    const h = harness();
    h.watch.start();
    h.reads[0].reject(new ApiError(404, "No analysis"));
    await h.settle();
    void h.watch.ask();
    void h.watch.ask(); // a double click sends one request
    expect(h.asks).toHaveLength(1);
    h.asks[0].reject(new ApiError(409, "Game is not finished"));
    await h.settle();
    expect(h.watch.state).toEqual({ kind: "refused", error: "Game is not finished" });
    void h.watch.ask();
    expect(h.asks).toHaveLength(2);
  });

  it("stops at a final read error, and tries again on retry", async () => {
    const h = harness();
    h.watch.start();
    h.reads[0].reject(new ApiError(403, "Not seated at this game"));
    await h.settle();
    expect(h.watch.state).toEqual({ kind: "failed", error: "Not seated at this game" });
    expect(h.pending()).toHaveLength(0);
    h.watch.retry();
    expect(h.kind()).toBe("loading");
    h.reads[1].resolve(DONE);
    await h.settle();
    expect(h.kind()).toBe("done");
  });

  it("drops an answer that comes after it stopped, and sets no timer then", async () => {
    const h = harness();
    h.watch.start();
    h.watch.stop();
    h.reads[0].resolve({ status: "queued", seat: 1 });
    await h.settle();
    expect(h.kind()).toBe("loading");
    expect(h.pending()).toHaveLength(0);
  });

  it("lets the request's answer win over a read that was on its way", async () => {
    const h = harness();
    h.watch.start();
    void h.watch.ask(); // clicked before the first read came back
    h.asks[0].resolve({ status: "queued", seat: 1 });
    await h.settle();
    h.reads[0].reject(new ApiError(404, "No analysis")); // the older read, late
    await h.settle();
    expect(h.watch.state).toEqual({ kind: "waiting", status: "queued" });
  });
});
