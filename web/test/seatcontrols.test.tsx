// Your seat's controls: Take back, with the revision it saw, and what leaving the match costs.
import { afterEach, describe, expect, it } from "vitest";
import { initialGameState } from "../src/gamestate";
import { setLang } from "../src/i18n";
import { leaveWarning, TakeBack } from "../src/seatcontrols";
import type { GameConnection } from "../src/usegame";
import { table, threeBots } from "./fixtures";
import { buttons, nameOf } from "./render";

afterEach(() => setLang("en", null));

describe("practice and take-back", () => {
  it("sends a takeback with the revision it saw", () => {
    const sent: [object, number | undefined][] = [];
    const game = {
      state: { ...initialGameState, playedAt: 7 }, connection: "open", fatal: null,
      send: (action: object, revision?: number) => (sent.push([action, revision]), true),
      adopt: () => undefined, dismissError: () => undefined,
    } as GameConnection;
    const shownNow = <TakeBack view={table(threeBots)} game={game} />;
    const [button] = buttons(shownNow);
    expect(nameOf(button)).toBe("Take back");
    (button.props.onClick as () => void)();
    expect(sent).toEqual([[{ action: "takeback", revision: 8 }, 8]]);
    expect(buttons(<TakeBack view={table(threeBots, { turn: 0, last_play: null })} game={game} />)).toHaveLength(0);
    expect(buttons(<TakeBack view={table(threeBots)} game={{ ...game, connection: "reconnecting" }} />)).toHaveLength(0);
  });
});

describe("leaving and coming back", () => {
  it("warns what leaving costs", () => {
    expect(leaveWarning(false)).toBe("A bot will play your seat for the rest of the match; leaving costs you the match's rating.");
    expect(leaveWarning(true)).toBe("A bot will play your seat for the rest of the match.");
    setLang("it", null);
    expect(leaveWarning(false)).toMatch(/^Un bot giocherà al tuo posto per il resto della partita; se te ne vai, perdi i punti Elo/);
  });
});
