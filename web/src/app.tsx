// The shell: who is logged in, the header with the app's sections and the language switch,
// and which screen the path shows.

import { useCallback, useEffect, useState } from "preact/hooks";
import { api, ApiError } from "./api";
import { takeDeepLink } from "./afterlogin";
import { tx, useLang } from "./i18n";
import { matchRoute, navigate, onLinkClick, usePath, type Route } from "./router";
import { AccountScreen } from "./screens/Account";
import { GameScreen } from "./screens/Game";
import { HistoryScreen, MatchScreen } from "./screens/History";
import { HomeScreen } from "./screens/Home";
import { JoinScreen } from "./screens/Join";
import { LeaderboardScreen } from "./screens/Leaderboard";
import { LoginScreen } from "./screens/Login";
import { RulesScreen } from "./screens/Rules";
import { SpectateScreen } from "./screens/Spectate";
import { WatchScreen } from "./screens/Watch";
import { FriendsScreen } from "./screens/Friends";
import { PlayerScreen } from "./screens/Player";
import { useMemberSocket } from "./membersocket";
import { startPush } from "./pushbrowser";
import { InviteNotices } from "./notices";
import type { Me } from "./types";
import { Failed, Loading } from "./status";
import { LanguageSwitch } from "./widgets";

type Session =
  | { state: "loading" }
  | { state: "out"; reason?: "ended" | "deleted" }
  | { state: "in"; me: Me }
  | { state: "error"; detail: string };

function Nav({ route, loggedIn }: { route: Route; loggedIn: boolean }) {
  const links: { href: string; label: string; active: boolean }[] = [
    ...(loggedIn ? [{ href: "/", label: tx("Play", "Gioca"), active: route.name === "home" }] : []),
    ...(loggedIn
      ? [{ href: "/watch", label: tx("Watch", "Guarda"), active: route.name === "watch" || route.name === "spectate" }]
      : []),
    ...(loggedIn
      ? [{ href: "/friends", label: tx("Friends", "Amici"), active: route.name === "friends" }]
      : []),
    ...(loggedIn
      ? [{ href: "/history", label: tx("History", "Storico"), active: route.name === "history" || route.name === "match" }]
      : []),
    { href: "/leaderboard", label: tx("Leaderboard", "Classifica"), active: route.name === "leaderboard" },
    { href: "/rules", label: tx("Rules", "Regole"), active: route.name === "rules" },
  ];
  return (
    <nav class="sections" aria-label={tx("Sections", "Sezioni")}>
      {links.map((l) => (
        <a key={l.href} href={l.href} class={l.active ? "is-active" : ""} aria-current={l.active ? "page" : undefined}>
          {l.label}
        </a>
      ))}
    </nav>
  );
}

function NotFound({ path }: { path: string }) {
  return (
    <section class="panel" data-testid="screen-not-found">
      <h1>{tx("Page not found", "Pagina non trovata")}</h1>
      <p>
        {tx(`There is nothing at ${path}. `, `Non c'è niente all'indirizzo ${path}. `)}
        <a href="/">{tx("Go to the start page", "Vai alla pagina iniziale")}</a>.
      </p>
    </section>
  );
}

export function App() {
  const path = usePath();
  const lang = useLang();
  const [session, setSession] = useState<Session>({ state: "loading" });

  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);

  const load = useCallback(() => {
    api.me().then(
      (me) => {
        // Back from the provider (always at "/"): go on to the link opened before login.
        const deepLink = takeDeepLink();
        if (deepLink && deepLink !== location.pathname) navigate(deepLink, { replace: true });
        setSession({ state: "in", me });
      },
      (error) => {
        if (error instanceof ApiError && error.status === 401) setSession({ state: "out" });
        else setSession({ state: "error", detail: error instanceof ApiError ? error.detail : String(error) });
      },
    );
  }, []);
  useEffect(load, [load]);

  // A socket or request found the session gone: show the login, keeping the current path.
  const loggedOut = useCallback(() => setSession({ state: "out", reason: "ended" }), []);
  const deleted = useCallback(() => {
    setSession({ state: "out", reason: "deleted" });
    navigate("/", { replace: true });
  }, []);

  // The member socket: invitations and online dots, one per tab while logged in.
  useMemberSocket(session.state === "in");
  // Web Push: the service worker, and a subscription that is on kept valid (the server's key).
  useEffect(() => {
    if (session.state === "in") startPush();
  }, [session.state]);

  const route = matchRoute(path);
  let screen;
  if (session.state === "loading") {
    screen = <Loading />;
  } else if (session.state === "error") {
    screen = (
      <section class="panel">
        <h1>{tx("tavolo cannot reach its server", "tavolo non raggiunge il suo server")}</h1>
        <Failed error={session.detail} onRetry={load} />
      </section>
    );
  } else if (route.name === "rules") {
    // Open to everyone, like the leaderboard.
    screen = <RulesScreen />;
  } else if (route.name === "leaderboard") {
    // Open to everyone: the leaderboard needs no login.
    screen = <LeaderboardScreen me={session.state === "in" ? session.me.name : null} />;
  } else if (session.state === "out") {
    const reason =
      session.reason === "ended"
        ? tx("Your session ended. Log in again to go on.", "La sessione è terminata. Accedi di nuovo per continuare.")
        : session.reason === "deleted"
          ? tx("Your account was deleted. Goodbye, and thank you for playing.", "Il tuo account è stato eliminato. Arrivederci, e grazie di aver giocato.")
          : undefined;
    screen = <LoginScreen reason={reason} />;
  } else if (route.name === "home") {
    screen = <HomeScreen />;
  } else if (route.name === "join") {
    screen = <JoinScreen code={route.code} onUnauthenticated={loggedOut} />;
  } else if (route.name === "game") {
    screen = <GameScreen key={route.id} id={route.id} onUnauthenticated={loggedOut} me={session.me} />;
  } else if (route.name === "history") {
    screen = <HistoryScreen me={session.me} />;
  } else if (route.name === "match") {
    screen = <MatchScreen key={route.id} id={route.id} me={session.me.name} />;
  } else if (route.name === "account") {
    screen = <AccountScreen me={session.me} onDeleted={deleted} />;
  } else if (route.name === "watch") {
    screen = <WatchScreen />;
  } else if (route.name === "spectate") {
    screen = <SpectateScreen key={route.id} id={route.id} onUnauthenticated={loggedOut} me={session.me} />;
  } else if (route.name === "player") {
    screen = <PlayerScreen key={route.id} id={route.id} me={session.me} />;
  } else if (route.name === "friends") {
    screen = <FriendsScreen />;
  } else {
    screen = <NotFound path={route.path} />;
  }

  // A game's page keeps the screen for the table (the game screen shows the header when it is
  // not being played).
  const gameRoute = (route.name === "game" || route.name === "spectate") && (session.state === "in" || session.state === "loading");
  return (
    <div class={`shell${gameRoute ? " is-game-route" : ""}`} onClick={onLinkClick}>
      <header class="site-header">
        <a href="/" class="brand" aria-label={tx("tavolo, scopone scientifico online: start page", "tavolo, scopone scientifico online: pagina iniziale")}>
          <span class="brand-mark" aria-hidden="true">♦</span>
          <span class="brand-name">tavolo</span>{" "}
          <span class="brand-tag">{tx("scopone scientifico online", "scopone scientifico online")}</span>
        </a>
        <div class="header-right">
          <LanguageSwitch current={lang} />
          {session.state === "in" && (
            <nav class="user" aria-label={tx("Account", "Account")}>
              <a
                href="/me"
                class="user-name"
                title={tx(`Logged in with ${session.me.provider}: your account`, `Accesso con ${session.me.provider}: il tuo account`)}
                aria-current={route.name === "account" ? "page" : undefined}
              >
                {session.me.name}
              </a>
              <a href="/auth/logout" class="logout">
                {tx("Log out", "Esci")}
              </a>
            </nav>
          )}
        </div>
      </header>
      {session.state !== "loading" && session.state !== "error" && (
        <Nav route={route} loggedIn={session.state === "in"} />
      )}
      <main class="content">{screen}</main>
      {session.state === "in" && <InviteNotices route={route} />}
      <footer class="site-footer">
        {tx(
          "tavolo is an open platform: every deal is committed before play and can be checked after. ",
          "tavolo è una piattaforma aperta: ogni smazzata è fissata prima del gioco e si può verificare dopo. ",
        )}
        <a href="/api/docs">API</a>
      </footer>
    </div>
  );
}
