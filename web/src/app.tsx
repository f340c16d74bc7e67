// The shell: who is logged in, the header, and which screen the path shows.

import { useCallback, useEffect, useState } from "preact/hooks";
import { api, ApiError } from "./api";
import { takeDeepLink } from "./afterlogin";
import { matchRoute, navigate, onLinkClick, usePath } from "./router";
import { GameScreen } from "./screens/Game";
import { HomeScreen } from "./screens/Home";
import { JoinScreen } from "./screens/Join";
import { LoginScreen } from "./screens/Login";
import type { Me } from "./types";
import { Alert } from "./widgets";

type Session = { state: "loading" } | { state: "out"; reason?: string } | { state: "in"; me: Me } | { state: "error"; detail: string };

export function App() {
  const path = usePath();
  const [session, setSession] = useState<Session>({ state: "loading" });

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
  const loggedOut = useCallback(() => setSession({ state: "out", reason: "Your session ended. Log in again to go on." }), []);

  const route = matchRoute(path);
  let screen;
  if (session.state === "loading") {
    screen = <p class="loading">Loading…</p>;
  } else if (session.state === "error") {
    screen = (
      <section class="panel">
        <h1>tavolo cannot reach its server</h1>
        <Alert>{session.detail}</Alert>
        <button type="button" class="button" onClick={load}>
          Try again
        </button>
      </section>
    );
  } else if (session.state === "out") {
    screen = <LoginScreen reason={session.reason} />;
  } else if (route.name === "home") {
    screen = <HomeScreen />;
  } else if (route.name === "join") {
    screen = <JoinScreen code={route.code} onUnauthenticated={loggedOut} />;
  } else if (route.name === "game") {
    screen = <GameScreen key={route.id} id={route.id} onUnauthenticated={loggedOut} />;
  } else {
    screen = (
      <section class="panel" data-testid="screen-not-found">
        <h1>Page not found</h1>
        <p>
          There is nothing at {route.path}. <a href="/">Go to the start page</a>.
        </p>
      </section>
    );
  }

  return (
    <div class="shell" onClick={onLinkClick}>
      <header class="site-header">
        <a href="/" class="brand" aria-label="tavolo, start page">
          <span class="brand-mark" aria-hidden="true">♦</span>
          <span class="brand-name">tavolo</span>
          <span class="brand-tag">scopone scientifico online</span>
        </a>
        {session.state === "in" && (
          <nav class="user" aria-label="Account">
            <span class="user-name" title={`Logged in with ${session.me.provider}`}>
              {session.me.name}
            </span>
            <a href="/auth/logout" class="logout">
              Log out
            </a>
          </nav>
        )}
      </header>
      <main class="content">{screen}</main>
      <footer class="site-footer">
        tavolo is an open platform: every deal is committed before play and can be checked after. <a href="/api/docs">API</a>
      </footer>
    </div>
  );
}
