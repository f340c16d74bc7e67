// The turn alerts: the tab's title on your turn, and the sound, off until turned on and remembered.
import { afterEach, describe, expect, it } from "vitest";
import { setSound, soundEnabled, turnTitle } from "../src/alerts";
import { setLang } from "../src/i18n";

afterEach(() => setLang("en", null));

describe("turn alerts", () => {
  it("put the turn in the tab's title", () => {
    expect(turnTitle(true)).toBe("● Your turn · tavolo");
    expect(turnTitle(false)).toBe("tavolo · scopone scientifico");
    setLang("it", null);
    expect(turnTitle(true)).toBe("● Tocca a te · tavolo");
  });

  it("keep the sound off until turned on, and remember it", () => {
    const data = new Map<string, string>();
    const store = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
    expect(soundEnabled()).toBe(false);
    setSound(true, store);
    expect(soundEnabled()).toBe(true);
    expect(data.get("tavolo:sound")).toBe("on");
    setSound(false, store);
    expect(data.get("tavolo:sound")).toBe("off");
  });
});
