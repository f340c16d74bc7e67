// @vitest-environment jsdom
// "Since you left" at a daily table: shown for the plays this browser did not see, never for the
// ones a page saw live, dismissable; a live table reads no log.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it } from "vitest";
import { markSeen, seenMoves, type SeenStore } from "../../src/sinceleft";
import { SinceLeftNotice, useSinceLeft, type SinceLeftDeps } from "../../src/sinceleftnotice";
import type { AnyView, GameView, LogMove } from "../../src/types";
import { lobby, person, view } from "../fixtures";

class MemoryStore implements SeenStore {
  readonly items = new Map<string, string>();
  getItem = (key: string) => this.items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.items.set(key, value);
  removeItem = (key: string) => void this.items.delete(key);
  get length() {
    return this.items.size;
  }
  key = (i: number) => [...this.items.keys()][i] ?? null;
}

const move = (number: number, seat: number, card: string, capture: string[] = []): LogMove =>
  ({ number, type: "play", seat: `seat:${seat}`, payload: { card, capture }, auto: false });

const LOG = [move(1, 1, "05S"), move(2, 2, "07D"), move(3, 3, "01C"), move(4, 0, "10C"), move(5, 1, "03S", ["03B"])];

function deps(store: SeenStore, reads: string[] = []): SinceLeftDeps {
  return {
    log: async (id) => {
      reads.push(id);
      return { moves: LOG, revision: 9 };
    },
    store,
    now: () => 1000,
  };
}

function Harness({ shown, d }: { shown: AnyView; d: SinceLeftDeps }) {
  const { missed, dismiss } = useSinceLeft("g", shown, d);
  return missed ? <SinceLeftNotice view={shown as GameView} missed={missed} onDismiss={dismiss} /> : <p>no notice</p>;
}

const daily = (extra: Partial<GameView> = {}) => view({ options: { pace: "daily" }, revision: 9, ...extra });

afterEach(cleanup);

describe("since you left", () => {
  it("lists the plays after the ones this browser saw, and closes on a tap", async () => {
    const store = new MemoryStore();
    markSeen(store, "g", 2, 0);
    render(<Harness shown={daily()} d={deps(store)} />);
    const notice = await screen.findByRole("region", { name: "Since you left" });
    expect([...notice.querySelectorAll("li")].map((li) => li.textContent)).toEqual([
      "dave: 1 of coppe on the table",
      "You: 10 of coppe (re) on the table",
      "bob: 3 of spade, took 3 of bastoni",
    ]);
    expect(seenMoves(store, "g")).toBe(5);
    fireEvent.click(screen.getByRole("button", { name: "Dismiss: since you left" }));
    expect(screen.queryByRole("region", { name: "Since you left" })).toBeNull();
  });

  it("says nothing the first time here, nor when everything was seen", async () => {
    const store = new MemoryStore();
    const { unmount } = render(<Harness shown={daily()} d={deps(store)} />);
    await waitFor(() => expect(seenMoves(store, "g")).toBe(5));
    expect(screen.getByText("no notice")).toBeTruthy();
    unmount();
    const reads: string[] = [];
    render(<Harness shown={daily()} d={deps(store, reads)} />);
    await waitFor(() => expect(reads).toEqual(["g"]));
    expect(screen.queryByRole("region", { name: "Since you left" })).toBeNull();
  });

  it("says nothing of the plays a page saw live from the waiting room on", async () => {
    const store = new MemoryStore();
    const d = deps(store);
    const waiting = { ...lobby([person(0, "alice", true)]), id: "g", options: { pace: "daily" } };
    const { rerender } = render(<Harness shown={waiting} d={d} />);
    expect(seenMoves(store, "g")).toBe(0);
    rerender(<Harness shown={daily()} d={d} />);
    await waitFor(() => expect(seenMoves(store, "g")).toBe(5));
    expect(screen.getByText("no notice")).toBeTruthy();
    // Later moves made while the table is open count as seen.
    rerender(<Harness shown={daily({ revision: 11 })} d={d} />);
    expect(seenMoves(store, "g")).toBe(7);
  });

  it("reads no log at a live table", () => {
    const store = new MemoryStore();
    markSeen(store, "g", 1, 0);
    const reads: string[] = [];
    render(<Harness shown={view({ options: { pace: "live" } })} d={deps(store, reads)} />);
    // render() runs the effects: a daily table's read would have been asked by now.
    expect(reads).toEqual([]);
    expect(screen.getByText("no notice")).toBeTruthy();
  });
});
