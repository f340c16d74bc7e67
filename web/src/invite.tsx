// Inviting a player to a game in the lobby (POST /api/games/{id}/invite): the button that says
// "Invited" once the server took it, or why it did not in words; and the member's own game
// waiting for players, the one the player page and the friends list invite to.

import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "./api";
import { inviteCandidates, inviteErrorText, withOnline } from "./friends";
import { useMember } from "./membersocket";
import { tx } from "./i18n";
import { OnlineDot, PlayerLink } from "./playerlink";
import { Empty, Failed, Loading } from "./status";
import type { FollowedPlayer, LobbyView, MatchItem, MyGame } from "./types";

/** The member's most recently changed game in the lobby with a seat open, or null. */
export function waitingGame(games: readonly MyGame[]): MyGame | null {
  return games.find((g) => g.status === "lobby" && g.seats_open > 0) ?? null;
}

/** The member's game waiting for players (GET /api/me/games), null when none; undefined while read. */
export function useWaitingGame(): MyGame | null | undefined {
  const [game, setGame] = useState<MyGame | null | undefined>(undefined);
  useEffect(() => {
    api.myGames().then((games) => setGame(waitingGame(games)), () => setGame(null));
  }, []);
  return game;
}

type InviteState = { kind: "idle" } | { kind: "busy" } | { kind: "invited" } | { kind: "failed"; text: string };

/** "Invite" → "Invited" after the 204; a refusal is said under it, and the button stays to retry. */
export function InviteButton({ gameId, player, name, label }: {
  gameId: string;
  player: string;
  name: string;
  /** The button's words ("Invite", "Invite to my table"). */
  label?: string;
}) {
  const [state, setState] = useState<InviteState>({ kind: "idle" });
  const invite = async () => {
    setState({ kind: "busy" });
    try {
      await api.invite(gameId, player);
      setState({ kind: "invited" });
    } catch (e) {
      setState({ kind: "failed", text: inviteErrorText(e) });
    }
  };
  const words = label ?? tx("Invite", "Invita");
  return (
    <span class="invite-action" data-testid="invite-action">
      {state.kind === "invited" ? (
        <span class="invited-mark" role="status" data-testid="invited">
          <span aria-hidden="true">✓ </span>
          {tx("Invited", "Invitato")}
          <span class="visually-hidden">{tx(`: ${name} can join from their start page`, `: ${name} può unirsi dalla sua pagina iniziale`)}</span>
        </span>
      ) : (
        <button
          type="button"
          class="button small"
          disabled={state.kind === "busy"}
          aria-label={label ? undefined : tx(`Invite ${name}`, `Invita ${name}`)}
          onClick={() => void invite()}
        >
          {words}
        </button>
      )}
      {state.kind === "failed" && (
        <span class="invite-error" role="alert" data-testid="invite-error">
          {state.text}
        </span>
      )}
    </span>
  );
}

interface Candidate {
  player: string;
  name: string;
  online?: boolean;
  followed: boolean;
}

/** How many recent matches the waiting room reads for people to invite. */
const RECENT_MATCHES = 20;

/**
 * The waiting room's "Invite a player": the people the member follows, then the people of their
 * recent matches (not bots, not the member, not who sits here), each with Invite.
 */
export function InvitePlayers({ lobby }: { lobby: LobbyView }) {
  const member = useMember();
  const [error, setError] = useState<string | null>(null);
  const [sources, setSources] = useState<{ following: FollowedPlayer[]; recent: MatchItem[]; asOf: number } | null>(null);
  useEffect(() => {
    const asOf = member.serial;
    Promise.all([api.following(), api.matches({ limit: RECENT_MATCHES })]).then(
      ([following, page]) => setSources({ following, recent: page.items, asOf }),
      (e) => setError(errorText(e)),
    );
  }, []);
  // Who sits here leaves the list as the seats fill.
  const me = lobby.players.find((p) => p.is_you)?.player;
  const candidates: Candidate[] | null = sources
    ? inviteCandidates(withOnline(sources.following, member.online, sources.asOf), sources.recent, me, lobby.players)
    : null;
  return (
    <section class="invite-players" aria-labelledby="invite-players-title" data-testid="invite-players">
      <h2 id="invite-players-title">{tx("Invite a player", "Invita un giocatore")}</h2>
      <p class="helper">
        {tx(
          "The people you follow and your recent opponents and partners. An invited player finds the invitation on their start page and joins with one tap.",
          "Le persone che segui e i tuoi ultimi avversari e compagni. Chi è invitato trova l'invito nella sua pagina iniziale e si unisce con un tocco.",
        )}
      </p>
      {error && <Failed what={tx("The players to invite cannot be listed right now: ", "I giocatori da invitare non si possono elencare ora: ")} error={error} />}
      {candidates === null && !error && <Loading />}
      {candidates && candidates.length === 0 && (
        <Empty>
          {tx(
            "Nobody to offer yet: follow players from their pages (tap a name), or play a match first. The join code above works for anyone.",
            "Ancora nessuno da proporre: segui dei giocatori dalle loro pagine (tocca un nome), o gioca prima una partita. Il codice qui sopra funziona per chiunque.",
          )}
        </Empty>
      )}
      {candidates && candidates.length > 0 && (
        <ul class="friend-list" aria-label={tx("Players to invite", "Giocatori da invitare")}>
          {candidates.map((c) => (
            <li key={c.player} class="friend-item" data-testid="invite-candidate" data-player={c.player}>
              <span class="friend-who">
                <OnlineDot online={c.online} />
                <PlayerLink who={c} class="name-text friend-name" title={c.name}>{c.name}</PlayerLink>
                <span class="friend-state">{c.followed ? tx("you follow", "lo segui") : tx("played with you", "ha giocato con te")}</span>
              </span>
              <span class="friend-actions">
                <InviteButton gameId={lobby.id} player={c.player} name={c.name} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
