import { describe, expect, it } from "vitest";
import {
  base64urlToBytes, keepFresh, pushState, turnOff, turnOn,
  type Permission, type PushDeps, type PushManagerLike, type PushSubscriptionLike,
} from "../src/push";

const KEY_A = "BA" + "A".repeat(85); // 65 bytes, as a P-256 public key
const KEY_B = "BP" + "_".repeat(85);

/** The browser's push manager and a server, in memory. */
class FakeBrowser {
  permission: Permission = "default";
  answer: Permission = "granted";
  asked = 0;
  serverKeyNow: string | null = KEY_A;
  subscription: (PushSubscriptionLike & { key: Uint8Array }) | null = null;
  made = 0;
  saved: { endpoint: string; keys: { p256dh: string; auth: string } }[] = [];
  removed: string[] = [];
  failSave = false;
  storage = new Map<string, string>();
  supported = true;

  manager: PushManagerLike = {
    getSubscription: async () => this.subscription,
    subscribe: async ({ applicationServerKey }) => {
      if (this.permission !== "granted") throw new Error("NotAllowedError");
      this.made += 1;
      const endpoint = `https://push.example/sub/${this.made}`;
      const sub = {
        endpoint,
        key: applicationServerKey,
        options: { applicationServerKey: applicationServerKey.slice().buffer },
        toJSON: () => ({ endpoint, keys: { p256dh: `p${this.made}`, auth: `a${this.made}` } }),
        unsubscribe: async () => {
          if (this.subscription?.endpoint === endpoint) this.subscription = null;
          return true;
        },
      };
      this.subscription = sub;
      return sub;
    },
  };

  deps(): PushDeps {
    return {
      supported: () => this.supported,
      permission: () => this.permission,
      requestPermission: async () => {
        this.asked += 1;
        this.permission = this.answer;
        return this.answer;
      },
      pushManager: async () => this.manager,
      serverKey: async () => this.serverKeyNow,
      save: async (s) => {
        if (this.failSave) throw new Error("Server down");
        this.saved.push(s);
      },
      remove: async (endpoint) => void this.removed.push(endpoint),
      storage: {
        getItem: (k) => this.storage.get(k) ?? null,
        setItem: (k, v) => void this.storage.set(k, v),
        removeItem: (k) => void this.storage.delete(k),
      },
    };
  }
}

describe("base64urlToBytes", () => {
  it("decodes an unpadded base64url key", () => {
    expect([...base64urlToBytes("AQID_-8")]).toEqual([1, 2, 3, 255, 239]);
    expect(base64urlToBytes(KEY_A).length).toBe(65);
  });
});

describe("turning pushes on", () => {
  it("is off by default and asks nothing until turned on", async () => {
    const b = new FakeBrowser();
    expect(await pushState(b.deps())).toBe("off");
    expect(b.asked).toBe(0);
  });

  it("asks the permission, subscribes with the server's key and gives the subscription to the server", async () => {
    const b = new FakeBrowser();
    expect(await turnOn(b.deps())).toBe("on");
    expect(b.asked).toBe(1);
    expect([...b.subscription!.key]).toEqual([...base64urlToBytes(KEY_A)]);
    expect(b.saved).toEqual([{ endpoint: "https://push.example/sub/1", keys: { p256dh: "p1", auth: "a1" } }]);
    expect(await pushState(b.deps())).toBe("on");
  });

  it("says denied when the player refuses, and subscribes nothing", async () => {
    const b = new FakeBrowser();
    b.answer = "denied";
    expect(await turnOn(b.deps())).toBe("denied");
    expect(b.subscription).toBeNull();
    expect(b.saved).toEqual([]);
    expect(await pushState(b.deps())).toBe("denied");
  });

  it("stays off when the player closes the question without answering", async () => {
    const b = new FakeBrowser();
    b.answer = "default";
    expect(await turnOn(b.deps())).toBe("off");
    expect(b.subscription).toBeNull();
  });

  it("never asks again once the browser blocks notifications", async () => {
    const b = new FakeBrowser();
    b.permission = "denied";
    expect(await turnOn(b.deps())).toBe("denied");
    expect(b.asked).toBe(0);
  });

  it("says when the browser cannot do push", async () => {
    const b = new FakeBrowser();
    b.supported = false;
    expect(await pushState(b.deps())).toBe("unsupported");
    expect(await turnOn(b.deps())).toBe("unsupported");
  });

  it("drops the browser's subscription when the server refuses it, and throws", async () => {
    const b = new FakeBrowser();
    b.failSave = true;
    await expect(turnOn(b.deps())).rejects.toThrow("Server down");
    expect(b.subscription).toBeNull();
    expect(await pushState(b.deps())).toBe("off");
  });

  it("replaces a subscription made with another key", async () => {
    const b = new FakeBrowser();
    b.permission = "granted";
    b.serverKeyNow = KEY_B;
    await b.manager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlToBytes(KEY_A) });
    expect(await turnOn(b.deps())).toBe("on");
    expect(b.made).toBe(2);
    expect([...b.subscription!.key]).toEqual([...base64urlToBytes(KEY_B)]);
    expect(b.saved.map((s) => s.endpoint)).toEqual(["https://push.example/sub/2"]);
  });
});

describe("a server with push disabled", () => {
  it("has nothing to turn on, and asks no permission", async () => {
    const b = new FakeBrowser();
    b.serverKeyNow = null;
    expect(await pushState(b.deps())).toBe("disabled");
    expect(await turnOn(b.deps())).toBe("disabled");
    expect(b.asked).toBe(0);
  });
});

describe("turning pushes off", () => {
  it("tells the server to forget the subscription and drops it", async () => {
    const b = new FakeBrowser();
    await turnOn(b.deps());
    expect(await turnOff(b.deps())).toBe("off");
    expect(b.removed).toEqual(["https://push.example/sub/1"]);
    expect(b.subscription).toBeNull();
    expect(await pushState(b.deps())).toBe("off");
  });
});

describe("keepFresh", () => {
  it("does nothing while the key is the same", async () => {
    const b = new FakeBrowser();
    await turnOn(b.deps());
    expect(await keepFresh(b.deps())).toBe(false);
    expect(b.made).toBe(1);
    expect(b.removed).toEqual([]);
  });

  it("subscribes again when the server's key changed, and the server forgets the old one", async () => {
    const b = new FakeBrowser();
    await turnOn(b.deps());
    b.serverKeyNow = KEY_B;
    expect(await keepFresh(b.deps())).toBe(true);
    expect(b.removed).toEqual(["https://push.example/sub/1"]);
    expect(b.saved.map((s) => s.endpoint)).toEqual(["https://push.example/sub/1", "https://push.example/sub/2"]);
    expect([...b.subscription!.key]).toEqual([...base64urlToBytes(KEY_B)]);
  });

  it("subscribes again when the browser dropped the subscription", async () => {
    const b = new FakeBrowser();
    await turnOn(b.deps());
    b.subscription = null;
    expect(await keepFresh(b.deps())).toBe(true);
    expect(b.subscription!.endpoint).toBe("https://push.example/sub/2");
  });

  it("turns pushes off when the permission was taken back", async () => {
    const b = new FakeBrowser();
    await turnOn(b.deps());
    b.permission = "denied";
    expect(await keepFresh(b.deps())).toBe(false);
    expect(b.removed).toEqual(["https://push.example/sub/1"]);
    expect(await pushState(b.deps())).toBe("denied");
  });

  it("leaves a browser that never turned pushes on alone", async () => {
    const b = new FakeBrowser();
    expect(await keepFresh(b.deps())).toBe(false);
    expect(b.asked).toBe(0);
    expect(b.made).toBe(0);
  });
});
