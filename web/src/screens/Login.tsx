// The welcome for a visitor who is not logged in: what tavolo is, and one login link per provider.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { rememberDeepLink } from "../afterlogin";
import type { Provider } from "../types";
import { Alert } from "../widgets";

export function LoginScreen({ reason }: { reason?: string }) {
  const [providers, setProviders] = useState<Provider[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.providers().then(setProviders, (e) => setError(e instanceof ApiError ? e.detail : String(e)));
  }, []);
  const deepLink = location.pathname !== "/";
  return (
    <section class="panel welcome" data-testid="screen-login">
      <h1>Scopone scientifico, four friends, one table</h1>
      <p class="lead">
        tavolo is an open table for <strong>scopone scientifico</strong>, the Italian partnership card
        game: two teams of two, ten cards each, capture by rank or by sum and sweep the table for a
        scopa. Start a game, send the join code to three friends and play in real time, from a phone
        or a computer.
      </p>
      {reason && <Alert>{reason}</Alert>}
      {deepLink && <p class="helper">Log in first; you will come back to the page you opened.</p>}
      {error && <Alert>Login is not available right now: {error}</Alert>}
      {providers === null && !error && <p class="loading">Loading…</p>}
      {providers && providers.length === 0 && <Alert>No login provider is configured on this server.</Alert>}
      <div class="providers">
        {providers?.map((p) => (
          <a
            key={p.name}
            class="button big"
            href={p.login_url}
            onClick={() => rememberDeepLink(location.pathname)}
          >
            Log in with {p.name}
          </a>
        ))}
      </div>
      <ul class="features">
        <li>Every deal is fixed in advance by a secret seed whose fingerprint you see during play; at the end the seed is revealed and your browser checks the deals.</li>
        <li>If time runs out, a random legal card is played for you, so nobody waits for ever.</li>
        <li>Lost the connection? Open the game again and you are back at your seat.</li>
      </ul>
    </section>
  );
}
