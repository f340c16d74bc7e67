// The browser's side of Web Push for the flow in push.ts: the real Notification, service worker
// and Push APIs, and the server's calls.

import { api, ApiError } from "./api";
import { navigate } from "./router";
import { keepFresh, pushSupported, registerWorker, type Permission, type PushDeps, type PushManagerLike } from "./push";

let keyOnce: Promise<string | null> | null = null;

/** The server's VAPID key, once a page (it changes only with a restart); null: push disabled. */
function serverKey(): Promise<string | null> {
  keyOnce ??= api.pushKey().then(
    (answer) => answer.public_key,
    (e) => {
      keyOnce = null;
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    },
  );
  return keyOnce;
}

export const browserPushDeps: PushDeps = {
  supported: pushSupported,
  permission: () => Notification.permission as Permission,
  requestPermission: () => Notification.requestPermission() as Promise<Permission>,
  pushManager: async (): Promise<PushManagerLike> => {
    await registerWorker();
    return (await navigator.serviceWorker.ready).pushManager as unknown as PushManagerLike;
  },
  serverKey: () => serverKey(),
  save: (subscription) => api.subscribePush(subscription),
  remove: (endpoint) => api.unsubscribePush(endpoint),
  storage: localStorage,
};

/** At the app's start while logged in: the worker registered (a tap on a notification needs
 * it), and a subscription that is on renewed if the server's key changed. */
export function startPush(deps: PushDeps = browserPushDeps): void {
  if (!pushSupported()) return;
  registerWorker()?.catch(() => undefined);
  listenToWorker();
  keepFresh(deps).catch(() => undefined); // tried again at the next start
}

let listening = false;

/** A tap on a notification while this tab is open but not the worker's: the worker asks the
 * tab to open the table (a path of this site only). */
function listenToWorker(): void {
  if (listening) return;
  listening = true;
  navigator.serviceWorker.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { type?: unknown; url?: unknown } | null;
    if (!data || data.type !== "open" || typeof data.url !== "string") return;
    const url = new URL(data.url, location.origin);
    if (url.origin === location.origin) navigate(url.pathname);
  });
}
