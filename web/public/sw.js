// tavolo's service worker: it shows a Web Push ("your turn", "invited") as a notification, one
// per game (a newer one replaces the older), and a tap on it opens the table in a tab of the app
// (the one already open, brought to the front, or a new one). It caches nothing: the app is
// always the server's.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** A path of this site to open; anything else (another origin, junk) opens the start page. */
function ownUrl(url) {
  try {
    const parsed = new URL(url || "/", self.location.origin);
    return parsed.origin === self.location.origin ? parsed.href : self.location.origin + "/";
  } catch {
    return self.location.origin + "/";
  }
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : "" };
  }
  const game = typeof data.game === "string" ? data.game : null;
  const url = ownUrl(data.url || (game ? `/games/${game}` : "/"));
  event.waitUntil(
    self.registration.showNotification(data.title || "tavolo", {
      body: data.body || "",
      tag: game ? `game-${game}` : "tavolo",
      renotify: true,
      icon: "/icons/icon-192.png",
      badge: "/icons/icon-192.png",
      data: { url, type: data.type || null, game },
    }),
  );
});

async function openTable(url) {
  const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const tab = tabs.find((c) => new URL(c.url).origin === self.location.origin);
  if (!tab) return self.clients.openWindow(url);
  // Focusing needs the tap's user activation; without it the tab still goes to the table.
  await tab.focus().catch(() => undefined);
  try {
    // A tab this worker controls goes to the table itself.
    return await tab.navigate(url);
  } catch {
    // A tab the worker does not control: the app moves to the table on this message.
    tab.postMessage({ type: "open", url });
    return tab;
  }
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openTable(ownUrl(event.notification.data && event.notification.data.url)));
});
