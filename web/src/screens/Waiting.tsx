// The waiting room: the join code to share and the seats filling up live (socket `lobby`
// messages). The creator may seat a bot at an open seat, at a level of their choice, and remove
// it again. When the fourth seat fills a `state` arrives and the table opens by itself.

import { useState } from "preact/hooks";
import { api, errorText } from "../api";
import { defaultBotLevel, displayName, levelName, youAreCreator } from "../bots";
import { SeatMarks, useBotLevels } from "../botmarks";
import { inviteText } from "../describe";
import { tx } from "../i18n";
import { navigate } from "../router";
import type { BotLevel, LobbyPlayer, LobbyView } from "../types";
import type { GameConnection } from "../usegame";
import { Failed } from "../status";
import { CopyButton } from "../widgets";
import { OptionsList } from "./Join";

/** "Leave": frees your seat (the game is gone when no person is left) and goes to the start page. */
export function LeaveLobby({ id }: { id: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const leave = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.leave(id);
      navigate("/");
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <div class="leave-row">
      <button type="button" class="button secondary" disabled={busy} onClick={() => void leave()}>
        {tx("Leave", "Lascia il tavolo")}
      </button>
      <span class="helper">{tx("Frees your seat and goes back to the start page.", "Libera il tuo posto e torna alla pagina iniziale.")}</span>
      {error && <Failed error={error} />}
    </div>
  );
}

function OpenSeatControls({ seat, levels, busy, onAdd }: {
  seat: number;
  levels: BotLevel[];
  busy: boolean;
  onAdd: (seat: number, level: string) => void;
}) {
  const [level, setLevel] = useState(defaultBotLevel(levels));
  const n = seat + 1;
  return (
    <span class="seat-controls">
      <select
        aria-label={tx(`Level of the bot for seat ${n}`, `Livello del bot per il posto ${n}`)}
        value={levels.some((l) => l.id === level) ? level : defaultBotLevel(levels)}
        onChange={(e) => setLevel((e.currentTarget as HTMLSelectElement).value)}
        disabled={busy}
      >
        {levels.map((l) => (
          <option key={l.id} value={l.id}>
            {levelName(l.id, levels)}
          </option>
        ))}
      </select>
      <button
        type="button"
        class="button secondary small"
        aria-label={tx(`Add a bot at seat ${n}`, `Aggiungi un bot al posto ${n}`)}
        disabled={busy}
        onClick={() => onAdd(seat, levels.some((l) => l.id === level) ? level : defaultBotLevel(levels))}
      >
        {tx("Add a bot", "Aggiungi un bot")}
      </button>
    </span>
  );
}

function SeatRow({ seat, player, creator, seated, levels, busy, onAdd, onRemove, onSit }: {
  seat: number;
  player: LobbyPlayer | undefined;
  creator: boolean;
  /** You sit at this table (so you may move to an open seat). */
  seated: boolean;
  levels: BotLevel[];
  busy: boolean;
  onAdd: (seat: number, level: string) => void;
  onRemove: (seat: number) => void;
  onSit: (seat: number) => void;
}) {
  const team = seat % 2 === 0 ? "A" : "B";
  const n = seat + 1;
  const name = player ? displayName(player, levels) : "";
  return (
    <li class={`seat-row team-${team}${player ? "" : " is-open"}${player?.bot ? " is-bot" : ""}${player?.is_you ? " is-you" : ""}`}>
      <span class="seat-team">{tx(`Team ${team} · seat\u00a0${n}`, `Squadra ${team} · posto\u00a0${n}`)}</span>
      <span class="seat-name" title={name || undefined}>
        {player ? <><span class="seat-name-text">{name}</span>{player.is_you ? tx(" (you)", " (tu)") : ""}</> : tx("open", "libero")}
      </span>
      {seated && !player && (
        <button
          type="button"
          class="button small sit-here"
          aria-label={tx(`Sit here, seat ${n}`, `Siediti qui, posto ${n}`)}
          disabled={busy}
          onClick={() => onSit(seat)}
        >
          {tx("Sit here", "Siediti qui")}
        </button>
      )}
      {player && <SeatMarks player={player} levels={levels} yours={player.is_you} />}
      {creator && player?.bot && (
        <span class="seat-controls">
          <button
            type="button"
            class="button secondary small"
            aria-label={tx(`Remove the bot at seat ${n}`, `Togli il bot dal posto ${n}`)}
            disabled={busy}
            onClick={() => onRemove(seat)}
          >
            {tx("Remove", "Togli")}
          </button>
        </span>
      )}
      {creator && !player && levels.length > 0 && (
        <OpenSeatControls seat={seat} levels={levels} busy={busy} onAdd={onAdd} />
      )}
    </li>
  );
}

export function WaitingScreen({ lobby, game }: { lobby: LobbyView; game: Pick<GameConnection, "adopt"> }) {
  const link = `${location.origin}/join/${lobby.join_code}`;
  const open = lobby.seats_open;
  const levels = useBotLevels(lobby.game_type);
  const creator = youAreCreator(lobby);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const act = async (call: () => Promise<Parameters<typeof game.adopt>[0]>) => {
    setBusy(true);
    setError(null);
    try {
      game.adopt(await call());
    } catch (e) {
      setError(errorText(e));
    }
    setBusy(false);
  };
  const add = (seat: number, level: string) => void act(() => api.addBot(lobby.id, seat, level));
  const remove = (seat: number) => void act(() => api.removeBot(lobby.id, seat));
  const sit = (seat: number) => void act(() => api.takeSeat(lobby.id, seat));
  const seated = lobby.players.some((p) => p.is_you);

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
              `${open} seat${open === 1 ? "" : "s"} open. Partners sit across from each other: team A has seats 1 and 3, team B seats 2 and 4. "Sit here" moves you to an open seat, to choose your partner.`,
              `${open} post${open === 1 ? "o libero" : "i liberi"}. I compagni siedono uno di fronte all'altro: la squadra A ha i posti 1 e 3, la squadra B i posti 2 e 4. Con "Siediti qui" passi a un posto libero, per scegliere il tuo compagno.`,
            )}
        {creator && levels.length > 0 && open > 0 &&
          tx(
            " You can seat a bot at an open seat; a match with a bot is a practice match, and no rating changes.",
            " Puoi far sedere un bot a un posto libero; una partita con un bot è un allenamento, e il punteggio Elo non cambia.",
          )}
      </p>
      <ul class="seat-list" aria-label={tx("Seats", "Posti")}>
        {[0, 1, 2, 3].map((seat) => (
          <SeatRow
            key={seat}
            seat={seat}
            player={lobby.players.find((x) => x.seat === seat)}
            creator={creator}
            seated={seated}
            levels={levels}
            busy={busy}
            onAdd={add}
            onRemove={remove}
            onSit={sit}
          />
        ))}
      </ul>
      {error && <Failed error={error} />}
      <h2>{tx("Rules of this table", "Regole di questo tavolo")}</h2>
      <OptionsList options={lobby.options} gameType={lobby.game_type} />
      <p>
        <a href="/rules" target="_blank" rel="noopener">{tx("How scopone scientifico is played", "Come si gioca allo scopone scientifico")}</a>
      </p>
      <LeaveLobby id={lobby.id} />
    </section>
  );
}
