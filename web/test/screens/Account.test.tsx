// @vitest-environment jsdom
// The account's friends settings: "Show when I'm online" saved as it is changed (and put back on a
// refusal), and the blocked players, each with Unblock.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setLang } from "../../src/i18n";
import { AccountScreen } from "../../src/screens/Account";
import type { Me } from "../../src/types";

const ME: Me = { sub: "alice", name: "alice", provider: "default", player: "alice-player-id-0123" };

function server({ refusePut = false } = {}) {
  const calls: { method: string; url: string; body: unknown }[] = [];
  let blocked = [{ player: "bob-player-id-012345", name: "bob" }];
  vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, url, body });
    const json = (status: number, data: unknown) => new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
    if (url === "/api/me/settings" && method === "GET") return json(200, { show_online: true });
    if (url === "/api/me/settings") return refusePut ? json(400, { detail: "show_online must be a boolean" }) : json(200, body);
    if (url === "/api/me/blocked") return json(200, { players: blocked });
    if (method === "DELETE") {
      blocked = blocked.filter((p) => !url.endsWith(p.player));
      return new Response(null, { status: 204 });
    }
    return json(404, { detail: "Not Found" });
  }));
  return calls;
}

afterEach(() => {
  cleanup();
  setLang("en", null);
  vi.unstubAllGlobals();
});

describe("the account's friends settings", () => {
  it("saves Show when I'm online as it is changed", async () => {
    const calls = server();
    render(<AccountScreen me={ME} onDeleted={() => undefined} />);
    const box = await screen.findByRole("checkbox", { name: "Show when I'm online" }) as HTMLInputElement;
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    expect(box.checked).toBe(false); // at once, not after the answer
    await screen.findByText("Saved");
    expect(calls.find((c) => c.method === "PUT")).toEqual({ method: "PUT", url: "/api/me/settings", body: { show_online: false } });
    expect(screen.getByText(/Nobody sees whether you are online/)).toBeTruthy();
  });

  it("puts the box back and says why when the server refuses", async () => {
    server({ refusePut: true });
    render(<AccountScreen me={ME} onDeleted={() => undefined} />);
    const box = await screen.findByRole("checkbox", { name: "Show when I'm online" }) as HTMLInputElement;
    fireEvent.click(box);
    await screen.findByText("show_online must be a boolean");
    expect(box.checked).toBe(true);
  });

  it("lists the blocked players and unblocks one", async () => {
    const calls = server();
    render(<AccountScreen me={ME} onDeleted={() => undefined} />);
    fireEvent.click(await screen.findByRole("button", { name: "Unblock bob" }));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Unblock bob" })).toBeNull());
    expect(calls.some((c) => c.method === "DELETE" && c.url === "/api/me/blocked/bob-player-id-012345")).toBe(true);
    expect(screen.getByText(/You have blocked nobody/)).toBeTruthy();
  });
});
