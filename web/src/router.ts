// A small history-API router: the app has a handful of pages, so a library would be overkill.

import { useEffect, useState } from "preact/hooks";

export type Route =
  | { name: "home" }
  | { name: "join"; code: string }
  | { name: "game"; id: string }
  | { name: "history" }
  | { name: "match"; id: string }
  | { name: "leaderboard" }
  | { name: "account" }
  | { name: "rules" }
  | { name: "watch" }
  | { name: "spectate"; id: string }
  | { name: "player"; id: string }
  | { name: "friends" }
  | { name: "not-found"; path: string };

export function matchRoute(path: string): Route {
  const clean = path.length > 1 ? path.replace(/\/+$/, "") : path;
  if (clean === "/" || clean === "") return { name: "home" };
  let m = /^\/join\/([A-Za-z0-9]+)$/.exec(clean);
  if (m) return { name: "join", code: m[1].toUpperCase() };
  m = /^\/games\/([A-Za-z0-9-]+)$/.exec(clean);
  if (m) return { name: "game", id: m[1] };
  if (clean === "/history") return { name: "history" };
  m = /^\/history\/([A-Za-z0-9-]+)$/.exec(clean);
  if (m) return { name: "match", id: m[1] };
  if (clean === "/leaderboard") return { name: "leaderboard" };
  if (clean === "/me") return { name: "account" };
  if (clean === "/rules") return { name: "rules" };
  if (clean === "/watch") return { name: "watch" };
  m = /^\/watch\/([A-Za-z0-9-]+)$/.exec(clean);
  if (m) return { name: "spectate", id: m[1] };
  // A public player id: letters, digits, "_" and "-" (CONTRACT, Players).
  m = /^\/players\/([A-Za-z0-9_-]+)$/.exec(clean);
  if (m) return { name: "player", id: m[1] };
  if (clean === "/friends") return { name: "friends" };
  return { name: "not-found", path };
}

const listeners = new Set<() => void>();

export function navigate(path: string, { replace = false } = {}): void {
  if (path === location.pathname) return;
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  window.scrollTo(0, 0);
  listeners.forEach((l) => l());
}

/** The current path, re-rendering on navigate() and on the browser's back/forward. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

/** Click handler for in-app links: a plain click navigates in place, modified clicks open tabs. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest?.("a");
  if (!anchor || anchor.target || anchor.hasAttribute("download")) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin) return;
  // The gateway's own routes (login, logout, the API) are real page loads.
  if (/^\/(auth|api|ws)(\/|$)/.test(url.pathname)) return;
  event.preventDefault();
  navigate(url.pathname);
}
