// @vitest-environment jsdom
// Account's "Notify me when it is my turn …": off by default, the permission asked only when it
// is turned on, a refusal said in words, hidden where the server sends no pushes.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it } from "vitest";
import type { Permission, PushDeps, PushSubscriptionLike } from "../../src/push";
import { PushSetting } from "../../src/pushsetting";

const NAME = "Notify me when it is my turn (daily games) or when I am invited";

function fakes({ key = "BA" + "A".repeat(85) as string | null, answer = "granted" as Permission, supported = true } = {}) {
  const state = { permission: "default" as Permission, asked: 0, saved: [] as string[], removed: [] as string[],
    subscription: null as PushSubscriptionLike | null };
  const store = new Map<string, string>();
  const deps: PushDeps = {
    supported: () => supported,
    permission: () => state.permission,
    requestPermission: async () => {
      state.asked += 1;
      state.permission = answer;
      return answer;
    },
    pushManager: async () => ({
      getSubscription: async () => state.subscription,
      subscribe: async () => {
        state.subscription = {
          endpoint: "https://push.example/1",
          toJSON: () => ({ endpoint: "https://push.example/1", keys: { p256dh: "p", auth: "a" } }),
          unsubscribe: async () => {
            state.subscription = null;
            return true;
          },
        };
        return state.subscription;
      },
    }),
    serverKey: async () => key,
    save: async (s) => void state.saved.push(s.endpoint),
    remove: async (endpoint) => void state.removed.push(endpoint),
    storage: { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v), removeItem: (k) => void store.delete(k) },
  };
  return { deps, state };
}

afterEach(cleanup);

describe("the push setting", () => {
  it("is off, asks nothing until turned on, then subscribes; off again unsubscribes", async () => {
    const { deps, state } = fakes();
    render(<PushSetting deps={deps} />);
    const box = await screen.findByRole("checkbox", { name: NAME }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    expect(state.asked).toBe(0);
    fireEvent.click(box);
    await waitFor(() => expect(box.checked).toBe(true));
    expect(state.asked).toBe(1);
    expect(state.saved).toEqual(["https://push.example/1"]);
    expect(screen.getByTestId("push-help").textContent).toContain("A tap opens the table");
    fireEvent.click(box);
    await waitFor(() => expect(box.checked).toBe(false));
    expect(state.removed).toEqual(["https://push.example/1"]);
  });

  it("says how to allow notifications when the browser refuses", async () => {
    const { deps } = fakes({ answer: "denied" });
    render(<PushSetting deps={deps} />);
    fireEvent.click(await screen.findByRole("checkbox", { name: NAME }));
    await waitFor(() => expect(screen.getByTestId("push-help").textContent).toContain("The browser blocks notifications from tavolo"));
    expect((screen.getByRole("checkbox", { name: NAME }) as HTMLInputElement).checked).toBe(false);
  });

  it("says when the browser cannot receive pushes, with the box disabled", async () => {
    const { deps } = fakes({ supported: false });
    render(<PushSetting deps={deps} />);
    const box = await screen.findByRole("checkbox", { name: NAME }) as HTMLInputElement;
    expect(box.disabled).toBe(true);
    expect(screen.getByTestId("push-help").textContent).toContain("This browser cannot receive notifications");
  });

  it("is not shown where the server sends no pushes", async () => {
    const { deps, state } = fakes({ key: null });
    const { container } = render(<PushSetting deps={deps} />);
    await waitFor(() => expect(screen.queryByText("Loading…")).toBeNull());
    expect(container.querySelector("[data-testid=push-setting]")).toBeNull();
    expect(state.asked).toBe(0);
  });
});
