// The waiting room: the join code to share and the seats filling up live (socket `lobby`
// messages). When the fourth player sits down a `state` arrives and the table opens by itself.

import { inviteText } from "../describe";
import type { LobbyView } from "../types";
import { CopyButton } from "../widgets";
import { OptionsList } from "./Join";
import { tx } from "../i18n";

export function WaitingScreen({ lobby }: { lobby: LobbyView }) {
  const link = `${location.origin}/join/${lobby.join_code}`;
  const open = lobby.seats_open;
  return (
    <section class="panel waiting" data-testid="screen-waiting">
      <h1>{tx("Waiting for players", "In attesa dei giocatori")}</h1>
      <p class="helper">{inviteText(open)}</p>
      <div class="invite">
        <div class="invite-code">
          <span class="invite-label">{tx("Join code", "Codice")}</span>
          <span class="join-code" data-testid="join-code">
            {lobby.join_code}
          </span>
          <CopyButton text={lobby.join_code} label={tx("Copy code", "Copia il codice")} />
        </div>
        <div class="invite-link">
          <span class="invite-label">{tx("Invite link", "Link d'invito")}</span>
          <a class="link-text" href={link} data-testid="invite-link">
            {link}
          </a>
          <CopyButton text={link} label={tx("Copy link", "Copia il link")} />
        </div>
      </div>
      <h2>{tx("Seats", "Posti")}</h2>
      <p class="helper">
        {open === 0
          ? tx("Every seat is taken: the game is starting.", "Tutti i posti sono presi: la partita sta iniziando.")
          : tx(
              `${open} seat${open === 1 ? "" : "s"} open. Partners sit across from each other: team A is the 1st and 3rd to join, team B the 2nd and 4th.`,
              `${open} post${open === 1 ? "o libero" : "i liberi"}. I compagni siedono uno di fronte all'altro: la squadra A è il 1º e il 3º ad arrivare, la squadra B il 2º e il 4º.`,
            )}
      </p>
      <ul class="seat-list" aria-label={tx("Seats", "Posti")}>
        {[0, 1, 2, 3].map((seat) => {
          const p = lobby.players.find((x) => x.seat === seat);
          const team = seat % 2 === 0 ? "A" : "B";
          return (
            <li key={seat} class={`seat-row team-${team}${p ? "" : " is-open"}`}>
              <span class="seat-team">{tx(`Team ${team}`, `Squadra ${team}`)}</span>
              <span class="seat-name">{p ? `${p.name}${p.is_you ? tx(" (you)", " (tu)") : ""}` : tx("open", "libero")}</span>
            </li>
          );
        })}
      </ul>
      <h2>{tx("Rules of this table", "Regole di questo tavolo")}</h2>
      <OptionsList options={lobby.options} gameType={lobby.game_type} />
    </section>
  );
}
