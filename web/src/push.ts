// Web Push in the app (CONTRACT, Turn-based games): the browser's subscription made with the
// server's VAPID key (GET /api/push/key), given to the server (POST /api/me/push) and taken
// back (DELETE /api/me/push). Off until the player turns it on: only then is the browser's
// permission asked. The key a subscription was made with is remembered; when the server's key
// changes (rotated, or lost), the old subscription is useless and a new one is made.

export interface PushSubscriptionLike {
  readonly endpoint: string;
  readonly options?: { applicationServerKey?: ArrayBuffer | null };
  toJSON(): { endpoint?: string; keys?: Record<string, string> };
  unsubscribe(): Promise<boolean>;
}

export interface PushManagerLike {
  getSubscription(): Promise<PushSubscriptionLike | null>;
  subscribe(options: { userVisibleOnly: boolean; applicationServerKey: Uint8Array }): Promise<PushSubscriptionLike>;
}

export type Permission = "default" | "granted" | "denied";

/** The browser and the server, as the flow uses them (the tests give fakes). */
export interface PushDeps {
  /** Service workers, the Push API and notifications are all there. */
  supported(): boolean;
  permission(): Permission;
  requestPermission(): Promise<Permission>;
  /** The app's service worker registration's push manager (registering it if needed). */
  pushManager(): Promise<PushManagerLike>;
  /** The server's key; null when the server has push disabled (no VAPID key configured). */
  serverKey(): Promise<string | null>;
  save(subscription: { endpoint: string; keys: { p256dh: string; auth: string } }): Promise<void>;
  remove(endpoint: string): Promise<void>;
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem">;
}

/** What the setting shows: on, off, or why it cannot be on ("disabled": not on this server). */
export type PushState = "on" | "off" | "unsupported" | "denied" | "disabled";

const STORE_KEY = "tavolo.push";

interface Made {
  endpoint: string;
  key: string;
}

function made(deps: PushDeps): Made | null {
  try {
    const value = JSON.parse(deps.storage.getItem(STORE_KEY) ?? "null") as Made | null;
    return value && typeof value.endpoint === "string" && typeof value.key === "string" ? value : null;
  } catch {
    return null;
  }
}

function remember(deps: PushDeps, value: Made | null): void {
  try {
    if (value) deps.storage.setItem(STORE_KEY, JSON.stringify(value));
    else deps.storage.removeItem(STORE_KEY);
  } catch {
    // Without storage the next visit compares the subscription's own key.
  }
}

/** The bytes of a base64url string (the VAPID key as the server gives it). */
export function base64urlToBytes(text: string): Uint8Array {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  const raw = atob(base64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

function sameBytes(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a) return false;
  const x = new Uint8Array(a);
  return x.length === b.length && x.every((v, i) => v === b[i]);
}

/** The subscription was made with ``key``: by the browser's own record, else by ours. */
function madeWith(subscription: PushSubscriptionLike, key: string, record: Made | null): boolean {
  const own = subscription.options?.applicationServerKey;
  if (own) return sameBytes(own, base64urlToBytes(key));
  return record?.endpoint === subscription.endpoint && record.key === key;
}

/** Whether pushes are on in this browser: a subscription this app made (turning it on). */
export async function pushState(deps: PushDeps): Promise<PushState> {
  if ((await deps.serverKey()) === null) return "disabled";
  if (!deps.supported()) return "unsupported";
  if (deps.permission() === "denied") return "denied";
  const record = made(deps);
  if (!record || deps.permission() !== "granted") return "off";
  const subscription = await (await deps.pushManager()).getSubscription();
  return subscription ? "on" : "off";
}

async function subscribeWith(deps: PushDeps, manager: PushManagerLike, key: string): Promise<void> {
  const subscription = await manager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlToBytes(key) });
  const json = subscription.toJSON();
  const p256dh = json.keys?.p256dh;
  const auth = json.keys?.auth;
  if (!p256dh || !auth) {
    await subscription.unsubscribe();
    throw new Error("The browser made a subscription without keys");
  }
  try {
    await deps.save({ endpoint: subscription.endpoint, keys: { p256dh, auth } });
  } catch (e) {
    // A subscription the server does not know would only hold a push slot for nothing.
    await subscription.unsubscribe().catch(() => false);
    throw e;
  }
  remember(deps, { endpoint: subscription.endpoint, key });
}

/** Turn pushes on: ask the permission (only now), subscribe with the server's key, tell the
 * server. Answers the state it ends in ("denied" when the player said no or closed the
 * question); a failing call to the server throws. */
export async function turnOn(deps: PushDeps): Promise<PushState> {
  if (!deps.supported()) return "unsupported";
  const key = await deps.serverKey();
  if (key === null) return "disabled";
  let permission = deps.permission();
  if (permission === "default") permission = await deps.requestPermission();
  if (permission !== "granted") return permission === "denied" ? "denied" : "off";
  const manager = await deps.pushManager();
  const existing = await manager.getSubscription();
  if (existing && madeWith(existing, key, made(deps))) {
    // Already subscribed with this key (another tab, or a lost record): the server learns it again.
    const json = existing.toJSON();
    if (json.keys?.p256dh && json.keys.auth) {
      await deps.save({ endpoint: existing.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } });
      remember(deps, { endpoint: existing.endpoint, key });
      return "on";
    }
  }
  if (existing) await existing.unsubscribe();
  await subscribeWith(deps, manager, key);
  return "on";
}

/** Turn pushes off: the server forgets the subscription, then the browser drops it. */
export async function turnOff(deps: PushDeps): Promise<PushState> {
  if (!deps.supported()) return "unsupported";
  const subscription = await (await deps.pushManager()).getSubscription();
  const record = made(deps);
  const endpoint = subscription?.endpoint ?? record?.endpoint;
  if (endpoint) await deps.remove(endpoint);
  if (subscription) await subscription.unsubscribe();
  remember(deps, null);
  return deps.permission() === "denied" ? "denied" : "off";
}

/**
 * Keep a subscription that is on working (at each start of the app while logged in): when the
 * server's key is not the one it was made with, or the browser dropped or replaced it, make a
 * new one and tell the server (forgetting the old one). Answers whether a new one was made.
 */
export async function keepFresh(deps: PushDeps): Promise<boolean> {
  const record = made(deps);
  if (!record || !deps.supported()) return false;
  if (deps.permission() !== "granted") {
    // The player took the permission back in the browser: pushes are off.
    await deps.remove(record.endpoint).catch(() => undefined);
    remember(deps, null);
    return false;
  }
  const key = await deps.serverKey();
  if (key === null) return false; // push is off on the server: nothing to renew
  const manager = await deps.pushManager();
  const subscription = await manager.getSubscription();
  if (subscription && subscription.endpoint === record.endpoint && madeWith(subscription, key, record)) return false;
  if (subscription) await subscription.unsubscribe();
  await deps.remove(record.endpoint).catch(() => undefined);
  await subscribeWith(deps, manager, key);
  return true;
}

/** The app's service worker: it shows the pushes and opens the table a tap names. */
export const WORKER_URL = "/sw.js";

export function pushSupported(): boolean {
  return typeof navigator !== "undefined" && "serviceWorker" in navigator &&
    typeof window !== "undefined" && "PushManager" in window && "Notification" in window;
}

/** Registers the service worker (once a page; the browser keeps it up to date). */
export function registerWorker(): Promise<ServiceWorkerRegistration> | null {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return null;
  return navigator.serviceWorker.register(WORKER_URL, { scope: "/" });
}
