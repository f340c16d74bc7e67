// /friends: the players the member follows (GET /api/me/following), online first, each with the
// online dot (kept live by the member socket), "Watch" for the table they play, and "Invite"
// when the member has a game waiting for players. Read again at each (re)connect of the member
// socket, for the changes a drop missed.

import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { friendsOrder, withOnline } from "../friends";
import { tx } from "../i18n";
import { InviteButton, useWaitingGame } from "../invite";
import { useMember } from "../membersocket";
import { OnlineDot, PlayerLink } from "../playerlink";
import { Empty, Failed, Loading } from "../status";
import type { FollowedPlayer, MyGame } from "../types";

function FriendItem({ friend, waiting }: { friend: FollowedPlayer; waiting: MyGame | null | undefined }) {
  const seated = waiting?.players.some((p) => p.player === friend.player) ?? false;
  return (
    <li class="friend-item" data-testid="friend" data-player={friend.player}>
      <span class="friend-who">
        <OnlineDot online={friend.online} decorative />
        <PlayerLink who={friend} class="name-text friend-name" title={friend.name}>{friend.name}</PlayerLink>
        <span class="friend-state">
          {friend.playing ? tx("playing", "sta giocando") : friend.online ? tx("online", "online") : tx("offline", "non in linea")}
        </span>
      </span>
      <span class="friend-actions">
        {friend.playing && (
          <a class="button small secondary" href={`/watch/${friend.playing}`} aria-label={tx(`Watch ${friend.name}'s table`, `Guarda il tavolo di ${friend.name}`)}>
            {tx("Watch", "Guarda")}
          </a>
        )}
        {waiting && !seated && <InviteButton gameId={waiting.id} player={friend.player} name={friend.name} />}
        {waiting && seated && <span class="friend-state">{tx("at your table", "al tuo tavolo")}</span>}
      </span>
    </li>
  );
}

export function FriendsScreen() {
  const member = useMember();
  const waiting = useWaitingGame();
  const [list, setList] = useState<{ players: FollowedPlayer[]; asOf: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    const asOf = member.serial;
    api.following().then(
      (players) => {
        setList({ players, asOf });
        setError(null);
      },
      (e) => setError(errorText(e)),
    );
  };
  // Read at first and again after each reconnect of the member socket.
  useEffect(load, [member.connects]);

  const shown = list ? friendsOrder(withOnline(list.players, member.online, list.asOf)) : null;
  const online = shown?.filter((f) => f.online).length ?? 0;
  return (
    <section class="panel friends" data-testid="screen-friends" aria-labelledby="friends-title">
      <h1 id="friends-title">{tx("Friends", "Amici")}</h1>
      <p class="helper">
        {tx(
          "The players you follow, online first. Watch the table a friend plays at, or invite them to yours while it waits for players.",
          "I giocatori che segui, prima quelli online. Guarda il tavolo a cui gioca un amico, o invitalo al tuo mentre aspetta i giocatori.",
        )}
      </p>
      {waiting && (
        <p class="helper friends-waiting" data-testid="friends-waiting">
          {tx(`Your table ${waiting.join_code} waits for players: `, `Il tuo tavolo ${waiting.join_code} aspetta giocatori: `)}
          <a href={`/games/${waiting.id}`}>{tx("open it", "aprilo")}</a>
        </p>
      )}
      {error && <Failed what={tx("Your friends cannot be listed right now: ", "I tuoi amici non si possono elencare ora: ")} error={error} onRetry={load} />}
      {shown === null && !error && <Loading />}
      {shown && shown.length === 0 && (
        <Empty>
          {tx(
            "You follow nobody yet. Tap a player's name at a table, in your history or on the leaderboard to open their page, then press Follow: they show up here, with a green dot while they are online.",
            "Non segui ancora nessuno. Tocca il nome di un giocatore al tavolo, nel tuo storico o in classifica per aprire la sua pagina, poi premi Segui: comparirà qui, con un punto verde quando è online.",
          )}{" "}
          <a href="/leaderboard">{tx("Open the leaderboard", "Apri la classifica")}</a>
        </Empty>
      )}
      {shown && shown.length > 0 && (
        <>
          <p class="friends-count" aria-live="polite">
            {tx(`${online} of ${shown.length} online`, `${online} su ${shown.length} online`)}
          </p>
          <ul class="friend-list" aria-label={tx("Players you follow", "Giocatori che segui")}>
            {shown.map((f) => <FriendItem key={f.player} friend={f} waiting={waiting} />)}
          </ul>
        </>
      )}
    </section>
  );
}
