// /me: who is logged in and with which provider, logging out, and erasing the account
// (DELETE /api/me), explained first and confirmed by typing the name.

import { useState } from "preact/hooks";
import { api, errorText } from "../api";
import { tx } from "../i18n";
import type { Me } from "../types";
import { Failed } from "../status";

export function AccountScreen({ me, onDeleted }: { me: Me; onDeleted: () => void }) {
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmed = typed.trim() === me.name;

  const erase = async (event: Event) => {
    event.preventDefault();
    if (!confirmed) return;
    setBusy(true);
    setError(null);
    try {
      await api.deleteMe();
      onDeleted();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <div class="account" data-testid="screen-account">
      <section class="panel" aria-labelledby="account-title">
        <h1 id="account-title">{tx("Your account", "Il tuo account")}</h1>
        <dl class="options-list account-facts">
          <div>
            <dt>{tx("Name", "Nome")}</dt>
            <dd data-testid="account-name">{me.name}</dd>
          </div>
          <div>
            <dt>{tx("Logged in with", "Accesso con")}</dt>
            <dd data-testid="account-provider">{me.provider}</dd>
          </div>
        </dl>
        <p class="helper">
          {tx(
            "Your name comes from the login provider; the other players see it at the table and in the leaderboard.",
            "Il nome viene dal servizio di accesso; gli altri giocatori lo vedono al tavolo e in classifica.",
          )}
        </p>
        <p>
          <a href="/auth/logout" class="button secondary">
            {tx("Log out", "Esci")}
          </a>
        </p>
      </section>
      <section class="panel danger-zone" aria-labelledby="delete-title">
        <h2 id="delete-title">{tx("Delete my account", "Elimina il mio account")}</h2>
        <p data-testid="delete-explained">
          {tx(
            "Deleting your account erases you from tavolo: your name is removed from every table you sat at and from every match you played (they show \"deleted player\" instead), your Elo ratings are removed and you are logged out everywhere. The matches themselves stay, so the others keep their history, and every finished game's move log stays replayable and checkable, with \"deleted player\" in your seat. This cannot be undone; logging in again later starts a new, empty account.",
            "Eliminando l'account sparisci da tavolo: il tuo nome viene tolto da ogni tavolo a cui ti sei seduto e da ogni partita giocata (al suo posto compare \"giocatore eliminato\"), i tuoi punteggi Elo vengono cancellati ed esci da ogni dispositivo. Le partite restano, così gli altri conservano la loro storia, e il registro delle mosse di ogni partita finita resta rigiocabile e verificabile, con \"giocatore eliminato\" al tuo posto. Non si può annullare; se accedi di nuovo più avanti, ricominci con un account nuovo e vuoto.",
          )}
        </p>
        <form class="form" onSubmit={erase}>
          <div class="field">
            <label for="delete-confirm">
              {tx(`To confirm, type your name: ${me.name}`, `Per confermare, scrivi il tuo nome: ${me.name}`)}
            </label>
            <input
              id="delete-confirm"
              value={typed}
              autoComplete="off"
              spellcheck={false}
              onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)}
            />
          </div>
          <button type="submit" class="button danger" disabled={!confirmed || busy}>
            {busy ? tx("Deleting…", "Eliminazione…") : tx("Delete my account", "Elimina il mio account")}
          </button>
        </form>
        {error && <Failed error={error} />}
      </section>
    </div>
  );
}
