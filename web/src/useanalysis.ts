// One match's analysis, kept up to date: read once (was it asked before?), asked for on a click,
// and read again while it waits in the queue or runs, each time a little later (analysis.ts,
// pollDelay). The waiting is a plain class with its timer and reads injected, so tests drive it
// without a clock; the hook only hands its state to a screen.

import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api";
import { pollDelay, stateOfAnswer, stateOfAskError, stateOfReadError, type AnalysisState } from "./analysis";
import type { Analysis } from "./types";

export interface AnalysisDeps {
  read(id: string): Promise<Analysis>;
  ask(id: string): Promise<Analysis>;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const browserDeps: AnalysisDeps = {
  read: (id) => api.analysis(id),
  ask: (id) => api.askAnalysis(id),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (timer) => globalThis.clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export class AnalysisWatch {
  state: AnalysisState = { kind: "loading" };
  private attempt = 0;
  private timer: unknown = null;
  private stopped = false;
  /** Bumped by every read or request sent: an older answer never overwrites a newer one. */
  private generation = 0;

  constructor(
    private readonly id: string,
    private readonly onChange: (state: AnalysisState) => void,
    private readonly deps: AnalysisDeps = browserDeps,
  ) {}

  /** The first read: the analysis as it stands, or "none" when never asked. */
  start(): void {
    void this.read();
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer();
  }

  /** "Analyse my play": the request, then reads until it is done. */
  async ask(): Promise<void> {
    if (this.stopped || this.state.kind === "asking") return;
    this.cancelTimer();
    const generation = ++this.generation;
    this.set({ kind: "asking" });
    try {
      const answer = await this.deps.ask(this.id);
      if (generation !== this.generation || this.stopped) return;
      this.attempt = 0;
      this.take(stateOfAnswer(answer));
    } catch (e) {
      if (generation !== this.generation || this.stopped) return;
      this.set(stateOfAskError(e));
    }
  }

  /** After a failed read: read again now. */
  retry(): void {
    if (this.stopped) return;
    this.cancelTimer();
    this.attempt = 0;
    this.set({ kind: "loading" });
    void this.read();
  }

  private async read(): Promise<void> {
    const generation = ++this.generation;
    try {
      const answer = await this.deps.read(this.id);
      if (generation !== this.generation || this.stopped) return;
      this.take(stateOfAnswer(answer));
    } catch (e) {
      if (generation !== this.generation || this.stopped) return;
      const final = stateOfReadError(e);
      if (final) this.set(final);
      else this.later(); // the server is down or busy: the same state, read again later
    }
  }

  private take(state: AnalysisState): void {
    this.set(state);
    if (state.kind === "waiting") this.later();
  }

  private later(): void {
    this.cancelTimer();
    if (this.stopped) return;
    this.timer = this.deps.setTimeout(() => {
      this.timer = null;
      void this.read();
    }, pollDelay(this.attempt++));
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.deps.clearTimeout(this.timer);
    this.timer = null;
  }

  private set(state: AnalysisState): void {
    this.state = state;
    this.onChange(state);
  }
}

/** The analysis of game ``id`` for the screens: its state, the request, the retry. */
export function useAnalysis(id: string, deps?: AnalysisDeps): { state: AnalysisState; ask: () => void; retry: () => void } {
  const [state, setState] = useState<AnalysisState>({ kind: "loading" });
  const watch = useRef<AnalysisWatch | null>(null);
  useEffect(() => {
    const w = new AnalysisWatch(id, setState, deps);
    watch.current = w;
    setState(w.state);
    w.start();
    return () => w.stop();
  }, [id]);
  return {
    state,
    ask: () => void watch.current?.ask(),
    retry: () => watch.current?.retry(),
  };
}
