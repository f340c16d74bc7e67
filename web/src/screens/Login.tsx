// The welcome for a visitor who is not logged in: what tavolo is, and one login link per provider.

import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { rememberDeepLink } from "../afterlogin";
import type { Provider } from "../types";
import { Failed, Loading } from "../status";
import { Alert } from "../widgets";
import { tx } from "../i18n";

export function LoginScreen({ reason }: { reason?: string }) {
  const [providers, setProviders] = useState<Provider[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.providers().then(setProviders, (e) => setError(errorText(e)));
  }, []);
  const deepLink = location.pathname !== "/";
  return (
    <section class="panel welcome" data-testid="screen-login">
      <h1>{tx("Scopone scientifico, with friends or against the computer", "Scopone scientifico, con gli amici o contro il computer")}</h1>
      <p class="lead">
        {tx(
          "tavolo is an open table for scopone scientifico, the Italian partnership card game: two teams of two, ten cards each, capture by rank or by sum and sweep the table for a scopa. Play at once against bots, from beginner to master; or start a game, send the join code to three friends and play in real time, from a phone or a computer.",
          "tavolo è un tavolo aperto per lo scopone scientifico, il gioco di carte italiano a coppie: due squadre di due, dieci carte a testa, si prende per valore o per somma e chi pulisce il tavolo fa scopa. Gioca subito contro i bot, da principiante a maestro; oppure inizia una partita, manda il codice a tre amici e gioca in tempo reale, dal telefono o dal computer.",
        )}
      </p>
      {reason && <Alert>{reason}</Alert>}
      {deepLink && <p class="helper">{tx("Log in first; you will come back to the page you opened.", "Prima accedi; tornerai poi alla pagina che avevi aperto.")}</p>}
      {error && <Failed what={tx("Login is not available right now: ", "L'accesso non è disponibile ora: ")} error={error} />}
      {providers === null && !error && <Loading />}
      {providers && providers.length === 0 && <Failed error={tx("No login provider is configured on this server.", "Su questo server non è configurato nessun servizio di accesso.")} />}
      <div class="providers">
        {providers?.map((p) => (
          <a
            key={p.name}
            class="button big"
            href={p.login_url}
            onClick={() => rememberDeepLink(location.pathname)}
          >
            {tx(`Log in with ${p.name}`, `Accedi con ${p.name}`)}
          </a>
        ))}
      </div>
      <ul class="features">
        <li>
          {tx(
            "Every deal is fixed in advance by a secret seed whose fingerprint you see during play; at the end the seed is revealed and your browser checks the deals.",
            "Ogni smazzata è fissata in anticipo da un seed segreto di cui vedi l'impronta durante il gioco; alla fine il seed viene rivelato e il tuo browser verifica le carte.",
          )}
        </li>
        <li>
          {tx(
            "Alone? Bots fill the other seats, at three levels: a practice game starts with one click.",
            "Da solo? I bot prendono gli altri posti, a tre livelli: una partita di allenamento parte con un clic.",
          )}
        </li>
        <li>{tx("If time runs out, a random legal card is played for you, so nobody waits for ever.", "Se il tempo scade, viene giocata per te una carta valida a caso: nessuno aspetta all'infinito.")}</li>
        <li>{tx("Lost the connection? Open the game again and you are back at your seat.", "Connessione persa? Riapri la partita e sei di nuovo al tuo posto.")}</li>
        <li>
          {tx("See who leads: ", "Guarda chi è in testa: ")}
          <a href="/leaderboard">{tx("the leaderboard", "la classifica")}</a>.
        </li>
      </ul>
    </section>
  );
}
