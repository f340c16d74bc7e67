// @vitest-environment jsdom
// The page a visitor meets before logging in: what tavolo is, bots included (a visitor alone can
// play at once), and the login links.
import { cleanup, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { LoginScreen } from "../../src/screens/Login";

function server() {
  vi.stubGlobal("fetch", vi.fn(async () => new Response(
    JSON.stringify({ providers: [{ name: "default", login_url: "/auth/default/login" }] }),
    { status: 200, headers: { "Content-Type": "application/json" } },
  )));
}

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
});

describe("the welcome page", () => {
  it("says a visitor can play against bots, not only with four friends", async () => {
    server();
    render(<LoginScreen />);
    expect(await screen.findByRole("link", { name: "Log in with default" })).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Scopone scientifico, with friends or against the computer");
    expect(document.body.textContent).toMatch(/Play at once against bots, from beginner to master/);
    expect(document.body.textContent).toMatch(/Alone\? Bots fill the other seats/);
  });

  it("says it in Italian", async () => {
    server();
    setLang("it", null);
    render(<LoginScreen />);
    expect(await screen.findByRole("link", { name: "Accedi con default" })).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Scopone scientifico, con gli amici o contro il computer");
    expect(document.body.textContent).toMatch(/Gioca subito contro i bot/);
  });
});
