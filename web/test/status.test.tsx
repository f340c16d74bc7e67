// What a screen shows while its content is not there: loading (a polite status), a failure (an
// alert, with a button to try again where the screen can), nothing to show; in both languages.
import { afterEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../src/i18n";
import { Empty, Failed, Loading } from "../src/status";
import { buttons, findAll, nameOf, shown, spoken } from "./render";

afterEach(() => setLang("en", null));

const byRole = (node: Parameters<typeof findAll>[0], role: string) => findAll(node, (e) => e.props.role === role);

describe("the states of a screen", () => {
  it("says Loading… as a status, or what is on its way", () => {
    const [status] = byRole(<Loading />, "status");
    expect(status.props.class).toBe("loading");
    expect(shown(<Loading />)).toBe("Loading…");
    expect(shown(<Loading>Opening the table…</Loading>)).toBe("Opening the table…");
    setLang("it", null);
    expect(shown(<Loading />)).toBe("Caricamento…");
  });

  it("says what failed and why as an alert, with Try again only where the screen can", () => {
    const retry = vi.fn();
    const failed = <Failed what="Your games cannot be listed right now: " error="Bad gateway" onRetry={retry} />;
    expect(byRole(failed, "alert").map((e) => spoken(e.children))).toEqual(["Your games cannot be listed right now: Bad gateway"]);
    const [button] = buttons(failed);
    expect(nameOf(button)).toBe("Try again");
    (button.props.onClick as () => void)();
    expect(retry).toHaveBeenCalledOnce();
    expect(buttons(<Failed error="Game not found" />)).toHaveLength(0);
    setLang("it", null);
    expect(nameOf(buttons(<Failed error="x" onRetry={retry} />)[0])).toBe("Riprova");
  });

  it("says there is nothing to show in the screen's own words", () => {
    const empty = <Empty>Nobody has finished a match yet.</Empty>;
    expect(findAll(empty, (e) => e.props.class === "empty")).toHaveLength(1);
    expect(shown(empty)).toBe("Nobody has finished a match yet.");
  });
});
