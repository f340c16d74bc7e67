// /players/<id>: a player's public page (GET /api/players/{player}): the name and, when they show
// it, whether they are online (kept live by the member socket for a player the viewer follows);
// their ratings, matches and wins; the tables they play now, to watch; their last ten matches.
// Another's page has Follow, "Invite to my table" (when the viewer has a game waiting) and Block,
// which asks first and says that the blocked player is not told.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError, errorText } from "../api";
import { tx } from "../i18n";
import { InviteButton, useWaitingGame } from "../invite";
import { onlineNow } from "../friends";
import { useMember } from "../membersocket";
import { OnlineDot } from "../playerlink";
import { Empty, Failed, Loading } from "../status";
import type { GameType, Me, MyGame, PlayerPage } from "../types";
import { MatchRow, useGameTypes } from "./History";

type Loaded = { kind: "loading" } | { kind: "missing" } | { kind: "failed"; text: string } | { kind: "page"; page: PlayerPage; asOf: number };

function typeName(types: GameType[], id: string): string {
  return types.find((t) => t.id === id)?.name ?? id;
}

/** Follow / Unfollow: a toggle the server confirms before it shows the new state. */
function FollowButton({ page, onChange }: { page: PlayerPage; onChange: (following: boolean) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      if (page.following) await api.unfollow(page.player);
      else await api.follow(page.player);
      onChange(!page.following);
    } catch (e) {
      setError(errorText(e));
    }
    setBusy(false);
  };
  return (
    <span class="player-action">
      {page.following && <span class="following-mark" data-testid="following">✓ {tx("You follow them", "Lo segui")}</span>}
      <button type="button" class={`button${page.following ? " secondary" : ""}`} disabled={busy}
        data-testid="follow" onClick={() => void toggle()}>
        {page.following ? tx("Unfollow", "Non seguire più") : tx("Follow", "Segui")}
      </button>
      {error && <span class="invite-error" role="alert">{error}</span>}
    </span>
  );
}

/** Block (after saying what it does, and that the player is not told) / Unblock. */
function BlockControl({ page, onChange }: { page: PlayerPage; onChange: (blocked: boolean) => void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = async (blocked: boolean) => {
    setBusy(true);
    setError(null);
    try {
      if (blocked) await api.block(page.player);
      else await api.unblock(page.player);
      onChange(blocked);
      setAsking(false);
    } catch (e) {
      setError(errorText(e));
    }
    setBusy(false);
  };
  if (page.blocked) {
    return (
      <div class="block-control" data-testid="blocked-state">
        <p class="blocked-note">
          {tx(
            `You blocked ${page.name}: you never sit at one table, and their messages do not reach you.`,
            `Hai bloccato ${page.name}: non sedete mai allo stesso tavolo, e i suoi messaggi non ti arrivano.`,
          )}
        </p>
        <button type="button" class="button secondary" disabled={busy} onClick={() => void set(false)}>
          {tx("Unblock", "Sblocca")}
        </button>
        {error && <span class="invite-error" role="alert">{error}</span>}
      </div>
    );
  }
  if (!asking) {
    return (
      <button type="button" class="button secondary danger-text" data-testid="block" onClick={() => setAsking(true)}>
        {tx("Block", "Blocca")}
      </button>
    );
  }
  return (
    <div class="block-confirm" role="group" aria-labelledby="block-confirm-title" data-testid="block-confirm">
      <p id="block-confirm-title" class="block-confirm-title"><strong>{tx(`Block ${page.name}?`, `Bloccare ${page.name}?`)}</strong></p>
      <p>
        {tx(
          `${page.name} is not told. From then on they cannot join your games or invite you, quick match never seats you together, and their messages at a table no longer reach you. You can unblock them here or in your account.`,
          `${page.name} non viene avvisato. Da quel momento non può unirsi alle tue partite né invitarti, la partita rapida non vi fa mai sedere insieme, e i suoi messaggi al tavolo non ti arrivano più. Puoi sbloccarlo qui o nel tuo account.`,
        )}
      </p>
      <div class="button-row">
        <button type="button" class="button danger" disabled={busy} onClick={() => void set(true)}>
          {tx(`Block ${page.name}`, `Blocca ${page.name}`)}
        </button>
        <button type="button" class="button secondary" disabled={busy} onClick={() => setAsking(false)}>
          {tx("Cancel", "Annulla")}
        </button>
      </div>
      {error && <span class="invite-error" role="alert">{error}</span>}
    </div>
  );
}

function InviteToMyTable({ game, page }: { game: MyGame | null | undefined; page: PlayerPage }) {
  if (!game || page.blocked) return null;
  if (game.players.some((p) => p.player === page.player)) return null; // already at the table
  return (
    <span class="player-action">
      <InviteButton gameId={game.id} player={page.player} name={page.name} label={tx("Invite to my table", "Invita al mio tavolo")} />
    </span>
  );
}

export function PlayerScreen({ id, me }: { id: string; me: Me }) {
  const member = useMember();
  const types = useGameTypes();
  const waiting = useWaitingGame();
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  const load = () => {
    const asOf = member.serial;
    setLoaded({ kind: "loading" });
    api.player(id).then(
      (page) => setLoaded({ kind: "page", page, asOf }),
      (e) => setLoaded(e instanceof ApiError && e.status === 404 ? { kind: "missing" } : { kind: "failed", text: errorText(e) }),
    );
  };
  useEffect(load, [id]);

  if (loaded.kind === "loading") return <Loading />;
  if (loaded.kind === "missing") {
    return (
      <section class="panel" data-testid="screen-player-missing">
        <h1>{tx("Player not found", "Giocatore non trovato")}</h1>
        <p class="helper">
          {tx(
            "No player has this page: the link may be wrong, or the player deleted their account.",
            "Nessun giocatore ha questa pagina: il link potrebbe essere sbagliato, o il giocatore ha eliminato l'account.",
          )}
        </p>
        <p>
          <a href="/" class="button secondary">{tx("Back to the start page", "Torna alla pagina iniziale")}</a>
        </p>
      </section>
    );
  }
  if (loaded.kind === "failed") {
    return (
      <section class="panel" data-testid="screen-player">
        <h1>{tx("This page cannot be shown", "Questa pagina non si può mostrare")}</h1>
        <Failed error={loaded.text} onRetry={load} />
      </section>
    );
  }
  const page = loaded.page;
  const own = me.player === page.player;
  const online = onlineNow(page.online, member.online.get(page.player), loaded.asOf);
  const update = (change: Partial<PlayerPage>) => setLoaded({ ...loaded, page: { ...page, ...change } });
  return (
    <div class="player-page" data-testid="screen-player">
      <section class="panel player-head" aria-labelledby="player-title">
        <h1 id="player-title" class="player-title">
          <OnlineDot online={online} decorative />
          <span class="name-text" title={page.name}>{page.name}</span>
          {own && <span class="you-tag"> ({tx("you", "tu")})</span>}
        </h1>
        {online !== undefined && (
          <p class="player-presence" data-testid="player-presence">
            {online ? tx("Online now", "Online ora") : tx("Not online", "Non in linea")}
          </p>
        )}
        {own && (
          <p class="helper">
            {tx(
              "Your page, as the other players see it (without the buttons). Whether they see you online is up to you, in your account.",
              "La tua pagina, come la vedono gli altri giocatori (senza i pulsanti). Se ti vedono online lo decidi tu, nel tuo account.",
            )}{" "}
            <a href="/me">{tx("Your account", "Il tuo account")}</a>
          </p>
        )}
        <dl class="player-stats">
          <div>
            <dt>{tx("Matches", "Partite")}</dt>
            <dd data-testid="player-matches">{page.matches}</dd>
          </div>
          <div>
            <dt>{tx("Wins", "Vittorie")}</dt>
            <dd data-testid="player-wins">{page.wins}</dd>
          </div>
          {page.ratings.map((r) => (
            <div key={r.game_type}>
              <dt>{types.length > 1 ? `Elo · ${typeName(types, r.game_type)}` : "Elo"}</dt>
              <dd>{r.rating}</dd>
            </div>
          ))}
        </dl>
        {!own && (
          <div class="player-actions">
            <FollowButton page={page} onChange={(following) => update({ following })} />
            <InviteToMyTable game={waiting} page={page} />
            <BlockControl page={page} onChange={(blocked) => update({ blocked })} />
          </div>
        )}
        {page.playing.length > 0 && (
          <div class="player-playing" data-testid="player-playing">
            <h2>{tx("Playing now", "Sta giocando")}</h2>
            <ul class="player-playing-list">
              {page.playing.map((game, i) => (
                <li key={game}>
                  <a class="button small" href={`/watch/${game}`}
                    aria-label={page.playing.length > 1 ? tx(`Watch ${page.name}'s table ${i + 1}`, `Guarda il tavolo ${i + 1} di ${page.name}`) : tx(`Watch ${page.name}'s table`, `Guarda il tavolo di ${page.name}`)}>
                    {tx("Watch", "Guarda")}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        )}
      </section>
      <section class="panel" aria-labelledby="player-recent-title">
        <h2 id="player-recent-title">{tx("Last matches", "Ultime partite")}</h2>
        {page.recent.length === 0 ? (
          <Empty>{tx(`${page.name} has not finished a match yet.`, `${page.name} non ha ancora finito una partita.`)}</Empty>
        ) : (
          <ul class="game-list match-list" aria-label={tx(`${page.name}'s last matches`, `Ultime partite di ${page.name}`)}>
            {page.recent.map((m) => {
              // The viewer's own matches open their page; another's match has none to open.
              const played = m.players.some((p) => !p.bot && (p.player ? p.player === me.player : p.name === me.name));
              return (
                <MatchRow key={m.id} match={m} reader={{ me, whose: { name: page.name, player: page.player } }}
                  types={types} href={played ? `/history/${m.id}` : undefined} />
              );
            })}
          </ul>
        )}
      </section>
    </div>
  );
}
