// /me: who is logged in and with which provider, logging out, whether others see when you are
// online (PUT /api/me/settings), the notifications of Web Push, the players you blocked (with Unblock), and erasing the account
// (DELETE /api/me), explained first and confirmed by typing the name.

import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { playerHref } from "../friends";
import { tx } from "../i18n";
import { PlayerLink } from "../playerlink";
import { PushSetting } from "../pushsetting";
import type { Me, PlayerName } from "../types";
import { Empty, Failed, Loading } from "../status";

/** "Show when I'm online": saved as soon as it is changed. */
function OnlineSetting() {
  const [shown, setShown] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    api.settings().then((s) => setShown(s.show_online), (e) => setError(errorText(e)));
  }, []);
  const change = async (next: boolean) => {
    // The box shows the choice at once (a controlled box would spring back while it is saved),
    // and goes back to what the server holds if it refuses.
    const before = shown;
    setShown(next);
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      setShown((await api.setSettings({ show_online: next })).show_online);
      setSaved(true);
    } catch (e) {
      setShown(before);
      setError(errorText(e));
    }
    setBusy(false);
  };
  return (
    <section class="panel" aria-labelledby="privacy-title" data-testid="online-setting">
      <h2 id="privacy-title">{tx("Online status", "Stato online")}</h2>
      {shown === null && !error && <Loading />}
      {shown !== null && (
        <div class="field field-check">
          <input id="show-online" type="checkbox" checked={shown} disabled={busy} aria-describedby="show-online-help"
            onChange={(e) => void change((e.currentTarget as HTMLInputElement).checked)} />
          <label for="show-online">{tx("Show when I'm online", "Mostra quando sono online")}</label>
          <p id="show-online-help" class="field-help">
            {shown
              ? tx(
                  "The players who follow you see a green dot by your name while tavolo is open on one of your devices, and the tables you play at that allow spectators.",
                  "Chi ti segue vede un punto verde accanto al tuo nome quando tavolo è aperto su un tuo dispositivo, e i tavoli a cui giochi che ammettono spettatori.",
                )
              : tx(
                  "Nobody sees whether you are online, nor the tables you play at.",
                  "Nessuno vede se sei online, né i tavoli a cui giochi.",
                )}
          </p>
          <span class="copy-note" role="status">{saved ? tx("Saved", "Salvato") : ""}</span>
        </div>
      )}
      {error && <Failed error={error} />}
    </section>
  );
}

/** The players you blocked, each with Unblock (at once: unblocking needs no second thought). */
function BlockedPlayers() {
  const [players, setPlayers] = useState<PlayerName[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const load = () => {
    setError(null);
    api.blocked().then(setPlayers, (e) => setError(errorText(e)));
  };
  useEffect(load, []);
  const unblock = async (player: string) => {
    setBusy(player);
    setError(null);
    try {
      await api.unblock(player);
      setPlayers((list) => list && list.filter((p) => p.player !== player));
    } catch (e) {
      setError(errorText(e));
    }
    setBusy(null);
  };
  return (
    <section class="panel" aria-labelledby="blocked-title" data-testid="blocked-players">
      <h2 id="blocked-title">{tx("Blocked players", "Giocatori bloccati")}</h2>
      <p class="helper">
        {tx(
          "You never sit at one table with a player you blocked, they cannot invite you, and their messages do not reach you. They are not told.",
          "Non siedi mai allo stesso tavolo con un giocatore che hai bloccato, non può invitarti, e i suoi messaggi non ti arrivano. Non viene avvisato.",
        )}
      </p>
      {error && <Failed error={error} onRetry={players === null ? load : undefined} />}
      {players === null && !error && <Loading />}
      {players && players.length === 0 && (
        <Empty>{tx("You have blocked nobody. A player's page has the Block button.", "Non hai bloccato nessuno. Il pulsante Blocca è nella pagina di un giocatore.")}</Empty>
      )}
      {players && players.length > 0 && (
        <ul class="friend-list">
          {players.map((p) => (
            <li key={p.player} class="friend-item" data-testid="blocked-player">
              <span class="friend-who">
                <PlayerLink who={p} class="name-text friend-name" title={p.name}>{p.name}</PlayerLink>
              </span>
              <span class="friend-actions">
                <button type="button" class="button small secondary" disabled={busy === p.player}
                  aria-label={tx(`Unblock ${p.name}`, `Sblocca ${p.name}`)} onClick={() => void unblock(p.player)}>
                  {tx("Unblock", "Sblocca")}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

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
        <p class="button-row">
          {me.player && (
            <a href={playerHref(me.player)} class="button secondary">
              {tx("Your player page", "La tua pagina")}
            </a>
          )}
          <a href="/auth/logout" class="button secondary">
            {tx("Log out", "Esci")}
          </a>
        </p>
      </section>
      <OnlineSetting />
      <PushSetting />
      <BlockedPlayers />
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
