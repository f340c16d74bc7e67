// Joining through an invitation (POST /api/games/join with the code the invitation carries, then
// the table), and the small notice an invitation that arrives on the member socket shows: "carol
// invites you — Join". Not on the start page (it lists the invitations itself), nor at a table,
// played or watched (it would cover the cards; the invitation waits on the start page).

import { useState } from "preact/hooks";
import { api } from "./api";
import { displayName } from "./bots";
import { joinErrorText } from "./friends";
import { tx } from "./i18n";
import { memberFeed, useMember, type MemberFeed } from "./membersocket";
import { navigate, type Route } from "./router";
import type { Invitation, MyGame } from "./types";

/** "alice, Bruno (bot) and 1 open seat": who sits at an invitation's game. */
export function seatsText(game: Pick<MyGame, "players" | "seats_open">): string {
  const names = [...game.players].sort((a, b) => a.seat - b.seat).map((p) => displayName(p));
  const open = game.seats_open === 1
    ? tx("1 open seat", "1 posto libero")
    : tx(`${game.seats_open} open seats`, `${game.seats_open} posti liberi`);
  return [...names, open].join(", ");
}

/** Join: the seat, then the table. A refusal is said in words beside the button (the item stays,
 * so the words do; the list is read afresh at the next visit of the start page). */
export function JoinInvitation({ invitation, feed = memberFeed, big = false }: { invitation: Invitation; feed?: MemberFeed; big?: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const join = async () => {
    setBusy(true);
    setError(null);
    try {
      const view = await api.joinGame(invitation.game.join_code);
      feed.dispatch({ type: "forget", game: invitation.game.id });
      navigate(`/games/${view.id}`);
    } catch (e) {
      setError(joinErrorText(e));
      setBusy(false);
    }
  };
  return (
    <span class="join-invitation">
      <button type="button" class={`button${big ? "" : " small"}`} disabled={busy} data-testid="join-invitation"
        aria-label={tx(`Join ${invitation.by.name}'s table`, `Unisciti al tavolo di ${invitation.by.name}`)}
        onClick={() => void join()}>
        {tx("Join", "Unisciti")}
      </button>
      {error && <span class="invite-error" role="alert" data-testid="join-error">{error}</span>}
    </span>
  );
}

function InviteNotice({ invitation }: { invitation: Invitation }) {
  return (
    <div class="notice" data-testid="invite-notice">
      <span class="notice-text">
        {tx(`${invitation.by.name} invites you`, `${invitation.by.name} ti invita`)}
        <span class="notice-detail"> · {seatsText(invitation.game)}</span>
      </span>
      <JoinInvitation invitation={invitation} />
      <button type="button" class="notice-close" aria-label={tx("Dismiss", "Chiudi")}
        onClick={() => memberFeed.dispatch({ type: "dismiss", game: invitation.game.id })}>
        ×
      </button>
    </div>
  );
}

function TurnNotice({ game }: { game: MyGame }) {
  return (
    <div class="notice" data-testid="turn-notice">
      <span class="notice-text">{tx(`Your turn at ${game.join_code}`, `Tocca a te in ${game.join_code}`)}</span>
      <a class="button small" href={`/games/${game.id}`} onClick={() => memberFeed.dispatch({ type: "dismiss", game: game.id })}>
        {tx("Open", "Apri")}
      </a>
      <button type="button" class="notice-close" aria-label={tx("Dismiss", "Chiudi")}
        onClick={() => memberFeed.dispatch({ type: "dismiss", game: game.id })}>
        ×
      </button>
    </div>
  );
}

/** Whether a page shows the notices: not the start page, not a table. */
export function showsNotices(route: Route): boolean {
  return route.name !== "home" && route.name !== "game" && route.name !== "spectate";
}

/** The live notices, in a polite live region that stays on the page (so a new one is read); none
 * at all at a table, whose own status region is the one there. */
export function InviteNotices({ route }: { route: Route }) {
  const member = useMember();
  if (!showsNotices(route)) return null;
  const invitations = member.notices;
  const turns = member.turns;
  return (
    <div class="notices" aria-live="polite">
      {invitations.slice(0, 1).map((n) => <InviteNotice key={n.game.id} invitation={n} />)}
      {turns.slice(0, 1).map((g) => <TurnNotice key={g.id} game={g} />)}
    </div>
  );
}
