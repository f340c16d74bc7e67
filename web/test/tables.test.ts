import { afterEach, describe, expect, it } from "vitest";
import { setLang } from "../src/i18n";
import { msLeft, nextChangeIn, paceOf, sortTables, timeLeftText, type TableFacts } from "../src/tables";

const MIN = 60_000;
const HOUR = 60 * MIN;

afterEach(() => setLang("en", null));

describe("timeLeftText", () => {
  it("says hours and minutes, rounded down, as a person would", () => {
    expect(timeLeftText(2 * HOUR + 14 * MIN + 59_999)).toBe("2 h 14 min left");
    expect(timeLeftText(23 * HOUR)).toBe("23 h left");
    expect(timeLeftText(47 * HOUR + 59 * MIN)).toBe("47 h 59 min left");
  });

  it("says minutes, then seconds, near the end, and that time is up at it", () => {
    expect(timeLeftText(59 * MIN + 59_000)).toBe("59 min left");
    expect(timeLeftText(MIN)).toBe("1 min left");
    expect(timeLeftText(59_999)).toBe("59 s left");
    expect(timeLeftText(999)).toBe("Time is up");
    expect(timeLeftText(0)).toBe("Time is up");
  });

  it("says days for long waits", () => {
    expect(timeLeftText(3 * 24 * HOUR + 5 * HOUR)).toBe("3 days left");
  });

  it("speaks Italian", () => {
    setLang("it", null);
    expect(timeLeftText(2 * HOUR + 14 * MIN)).toBe("2 h 14 min rimasti");
    expect(timeLeftText(5 * HOUR)).toBe("5 h rimaste");
    expect(timeLeftText(0)).toBe("Tempo scaduto");
  });
});

describe("msLeft", () => {
  const deadline = "2026-12-07T12:00:00.000Z";
  it("counts to the server's deadline, corrected by the clock offset, never below zero", () => {
    expect(msLeft(deadline, Date.parse("2026-12-07T11:00:00.000Z"))).toBe(HOUR);
    // The browser's clock is 5 minutes behind the server's.
    expect(msLeft(deadline, Date.parse("2026-12-07T11:00:00.000Z"), 5 * MIN)).toBe(55 * MIN);
    expect(msLeft(deadline, Date.parse("2026-12-07T13:00:00.000Z"))).toBe(0);
  });

  it("is null without a deadline or with a bad one", () => {
    expect(msLeft(undefined, 0)).toBeNull();
    expect(msLeft(null, 0)).toBeNull();
    expect(msLeft("tomorrow", 0)).toBeNull();
  });
});

describe("nextChangeIn", () => {
  it("waits until the words change: a minute's boundary, or the next second in the last minute", () => {
    expect(nextChangeIn(2 * HOUR + 14 * MIN + 30_000)).toBe(30_015);
    expect(nextChangeIn(2 * HOUR)).toBe(MIN + 15);
    expect(nextChangeIn(42_250)).toBe(265);
    expect(nextChangeIn(0)).toBeNull();
  });
});

describe("sortTables", () => {
  const game = (id: string, facts: Partial<TableFacts>): TableFacts => ({
    id, your_turn: false, updated_at: "2026-12-07T10:00:00.000Z", ...facts,
  });

  it("puts your turn first, each group by the nearest deadline, games without one last", () => {
    const list = [
      game("waiting-live", { deadline: "2026-12-07T10:00:30.000Z", pace: "live" }),
      game("lobby", { updated_at: "2026-12-07T11:00:00.000Z" }),
      game("mine-late", { your_turn: true, deadline: "2026-12-08T09:00:00.000Z", pace: "daily" }),
      game("mine-soon", { your_turn: true, deadline: "2026-12-07T18:00:00.000Z", pace: "daily" }),
      game("waiting-daily", { deadline: "2026-12-08T08:00:00.000Z", pace: "daily" }),
    ];
    expect(sortTables(list).map((g) => g.id)).toEqual(["mine-soon", "mine-late", "waiting-live", "waiting-daily", "lobby"]);
  });

  it("orders games without a deadline by the latest change, and leaves the input alone", () => {
    const list = [
      game("old", { updated_at: "2026-12-07T09:00:00.000Z" }),
      game("new", { updated_at: "2026-12-07T11:00:00.000Z" }),
    ];
    expect(sortTables(list).map((g) => g.id)).toEqual(["new", "old"]);
    expect(list.map((g) => g.id)).toEqual(["old", "new"]);
  });
});

describe("paceOf", () => {
  it("reads a game's pace or its options', live when absent", () => {
    expect(paceOf({ pace: "daily" })).toBe("daily");
    expect(paceOf({ pace: "live" })).toBe("live");
    expect(paceOf({ options: { pace: "daily" } })).toBe("daily");
    expect(paceOf({ options: { target_score: 11 } })).toBe("live");
    expect(paceOf({ pace: null })).toBe("live");
  });
});
