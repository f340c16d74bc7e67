// The waiting room: the join code to share and the seats filling up live (socket `lobby`
// messages). When the fourth player sits down a `state` arrives and the table opens by itself.

import { inviteText } from "../describe";
import type { LobbyView } from "../types";
import { CopyButton } from "../widgets";
import { OptionsList } from "./Join";

export function WaitingScreen({ lobby }: { lobby: LobbyView }) {
  const link = `${location.origin}/join/${lobby.join_code}`;
  const open = lobby.seats_open;
  return (
    <section class="panel waiting" data-testid="screen-waiting">
      <h1>Waiting for players</h1>
      <p class="helper">{inviteText(open)}</p>
      <div class="invite">
        <div class="invite-code">
          <span class="invite-label">Join code</span>
          <span class="join-code" data-testid="join-code">
            {lobby.join_code}
          </span>
          <CopyButton text={lobby.join_code} label="Copy code" />
        </div>
        <div class="invite-link">
          <span class="invite-label">Invite link</span>
          <a class="link-text" href={link} data-testid="invite-link">
            {link}
          </a>
          <CopyButton text={link} label="Copy link" />
        </div>
      </div>
      <h2>Seats</h2>
      <p class="helper">
        {open === 0 ? "Every seat is taken: the game is starting." : `${open} seat${open === 1 ? "" : "s"} open. Partners sit across from each other: team A is the 1st and 3rd to join, team B the 2nd and 4th.`}
      </p>
      <ul class="seat-list" aria-label="Seats">
        {[0, 1, 2, 3].map((seat) => {
          const p = lobby.players.find((x) => x.seat === seat);
          const team = seat % 2 === 0 ? "A" : "B";
          return (
            <li key={seat} class={`seat-row team-${team}${p ? "" : " is-open"}`}>
              <span class="seat-team">Team {team}</span>
              <span class="seat-name">{p ? `${p.name}${p.is_you ? " (you)" : ""}` : "open"}</span>
            </li>
          );
        })}
      </ul>
      <h2>Rules of this table</h2>
      <OptionsList options={lobby.options} gameType={lobby.game_type} />
    </section>
  );
}
