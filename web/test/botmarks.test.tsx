// How a seat shows who plays it: a bot's mark and level, a bot standing in, a person offline.
import { afterEach, describe, expect, it } from "vitest";
import { SeatMarks } from "../src/botmarks";
import { setLang } from "../src/i18n";
import type { GamePlayer } from "../src/types";
import { LEVELS } from "./fixtures";
import { byTestId, shown, spoken } from "./render";

afterEach(() => setLang("en", null));

describe("who plays a seat, as the table shows it", () => {
  const seat = (extra: Partial<GamePlayer>): GamePlayer => ({
    seat: 1, name: "bob", team: "B", card_count: 9, captured_count: 0, scope: 0, is_you: false, connected: true, ...extra,
  });

  it("marks a bot with a robot and its level beside its name, said as a bot", () => {
    const marks = <SeatMarks player={seat({ bot: "esperto" })} levels={LEVELS} />;
    expect(shown(marks)).toBe("Expert");
    expect(spoken(marks)).toBe("bot, Expert"); // the robot is drawn, not read
    const [mark] = byTestId(marks, "bot-mark");
    expect(mark.props.title).toBe("Bot, level Expert");
    expect(mark.props["data-level"]).toBe("esperto");
  });

  it("marks a bot standing in for a person who left, and a person who is offline", () => {
    expect(shown(<SeatMarks player={seat({ bot: "esperto", took_over: true })} />)).toBe("(bot for bob)");
    expect(shown(<SeatMarks player={seat({ bot: "esperto", took_over: true })} yours />)).toBe("(bot for you)");
    expect(shown(<SeatMarks player={seat({ connected: false })} />)).toBe("offline");
    expect(byTestId(<SeatMarks player={seat({ connected: false })} />, "offline-mark")).toHaveLength(1);
    expect(shown(<SeatMarks player={seat({})} />)).toBe("");
    expect(shown(<SeatMarks player={seat({ connected: false })} yours />)).toBe(""); // this page is here
  });

  it("says it in Italian too", () => {
    setLang("it", null);
    expect(byTestId(<SeatMarks player={seat({ bot: "esperto" })} levels={LEVELS} />, "bot-mark")[0].props.title).toBe("Bot, livello Esperto");
    expect(shown(<SeatMarks player={seat({ bot: "maestro" })} levels={LEVELS} />)).toBe("Maestro");
    // A long level may break in a narrow seat, with a hyphen: never cut to "Princ…".
    expect(shown(<SeatMarks player={seat({ bot: "principiante" })} levels={LEVELS} />)).toBe("Princi\u00adpiante");
    expect(shown(<SeatMarks player={seat({ bot: "esperto", took_over: true })} />)).toBe("(bot al posto di bob)");
    expect(shown(<SeatMarks player={seat({ connected: false })} />)).toBe("non connesso");
  });
});
