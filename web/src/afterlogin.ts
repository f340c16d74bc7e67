// A deep link opened while logged out (/join/K7QX2M, /games/<id>) survives the login round trip:
// the provider always returns the browser to "/", so the path waits in sessionStorage.

const KEY = "tavolo:after-login";

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">;

function defaultStore(): Store | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage disabled: the deep link is simply lost
  }
}

/** Only the app's own paths are kept: nothing else can be smuggled in as a redirect. */
export function isAppPath(path: string): boolean {
  return /^\/(join\/[A-Za-z0-9]+|games\/[A-Za-z0-9-]+|history(\/[A-Za-z0-9-]+)?|watch(\/[A-Za-z0-9-]+)?|players\/[A-Za-z0-9_-]+|friends|leaderboard|me)\/?$/.test(path);
}

export function rememberDeepLink(path: string, store: Store | null = defaultStore()): void {
  if (store && isAppPath(path)) store.setItem(KEY, path);
}

/** The remembered path, once (it is removed as it is read). */
export function takeDeepLink(store: Store | null = defaultStore()): string | null {
  if (!store) return null;
  const path = store.getItem(KEY);
  store.removeItem(KEY);
  return path && isAppPath(path) ? path : null;
}
