// The waiting room: the join code to share and the seats filling up live (socket `lobby`
// messages). The creator may open the table to anyone (listed on the Play page) or close it, seat
// a bot at an open seat, at a level of their choice, and remove it again, or fill every empty
// seat with bots at once; a person left alone for a minute is offered that. When the fourth seat
// fills a `state` arrives and the table opens by itself.

import { useState } from "preact/hooks";
import { api, errorText } from "../api";
import { aloneInLobby, defaultBotLevel, displayName, fillWithBots, youAreCreator } from "../bots";
import { browserClock, type Clock } from "../clock";
import { BotLevelOptions, SeatMarks, useBotLevels, useFirstMatch } from "../botmarks";
import { inviteText } from "../describe";
import { tx } from "../i18n";
import { navigate } from "../router";
import type { BotLevel, LobbyPlayer, LobbyView } from "../types";
import type { GameConnection } from "../usegame";
import { findTableError } from "../opentables";
import { Failed } from "../status";
import { CopyButton, useWaited } from "../widgets";
import { OptionsList } from "./Join";
import { InvitePlayers } from "../invite";
import { PlayerLink } from "../playerlink";

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

function OpenSeatControls({ seat, levels, preferred, busy, onAdd }: {
  seat: number;
  levels: BotLevel[];
  /** The level offered first (principiante before a first finished match). */
  preferred: string;
  busy: boolean;
  onAdd: (seat: number, level: string) => void;
}) {
  const [picked, setLevel] = useState<string | null>(null);
  const level = picked ?? preferred;
  const n = seat + 1;
  return (
    <span class="seat-controls">
      <select
        aria-label={tx(`Level of the bot for seat ${n}`, `Livello del bot per il posto ${n}`)}
        value={levels.some((l) => l.id === level) ? level : preferred}
        onChange={(e) => setLevel((e.currentTarget as HTMLSelectElement).value)}
        disabled={busy}
      >
        <BotLevelOptions levels={levels} />
      </select>
      <button
        type="button"
        class="button secondary small"
        aria-label={tx(`Add a bot at seat ${n}`, `Aggiungi un bot al posto ${n}`)}
        disabled={busy}
        onClick={() => onAdd(seat, levels.some((l) => l.id === level) ? level : preferred)}
      >
        {tx("Add a bot", "Aggiungi un bot")}
      </button>
    </span>
  );
}

function SeatRow({ seat, player, creator, seated, levels, preferred, busy, onAdd, onRemove, onSit }: {
  seat: number;
  preferred: string;
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
        {player ? <><PlayerLink who={player} class="seat-name-text">{name}</PlayerLink>{player.is_you ? tx(" (you)", " (tu)") : ""}</> : tx("open", "libero")}
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
        <OpenSeatControls seat={seat} levels={levels} preferred={preferred} busy={busy} onAdd={onAdd} />
      )}
    </li>
  );
}

/** How long a person waits alone before bots are offered for the empty seats. */
export const OFFER_BOTS_AFTER_MS = 60_000;

/** The creator's switch: the table listed on the Play page for anyone, or for the code only. */
function OpenToAnyone({ open, busy, onChange }: { open: boolean; busy: boolean; onChange: (open: boolean) => void }) {
  return (
    <div class="field field-check open-toggle">
      <input
        id="lobby-open"
        type="checkbox"
        checked={open}
        disabled={busy}
        aria-describedby="lobby-open-help"
        onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for="lobby-open">{tx("Open to anyone", "Aperto a tutti")}</label>
      <p id="lobby-open-help" class="field-help" data-testid="open-state">
        {open
          ? tx(
              "This table is listed under Open tables on the Play page: anyone can take a seat.",
              "Questo tavolo compare tra i Tavoli aperti nella pagina Gioca: chiunque può sedersi.",
            )
          : tx(
              "Only people with the code or the link can join.",
              "Possono unirsi solo le persone che hanno il codice o il link.",
            )}
      </p>
    </div>
  );
}

/** "Fill with bots": a bot at every empty seat, at the level chosen here. Offered (bigger, with
 * why) to a person who has waited alone. */
function FillWithBots({ levels, preferred, busy, offered, onFill }: {
  levels: BotLevel[];
  preferred: string;
  busy: boolean;
  offered: boolean;
  onFill: (level: string) => void;
}) {
  const [level, setLevel] = useState<string | null>(null);
  const chosen = level !== null && levels.some((l) => l.id === level) ? level : preferred;
  return (
    <div class={`fill-bots${offered ? " is-offered" : ""}`} data-testid="fill-with-bots">
      {offered && (
        <p class="fill-bots-why">
          <strong>{tx("Nobody has joined you for a minute.", "Da un minuto non si è seduto nessuno.")}</strong>{" "}
          {tx(
            "Bots can play the empty seats so the game starts now; a match with bots is practice, and no rating changes.",
            "I bot possono giocare ai posti liberi, così la partita inizia subito; una partita con i bot è un allenamento, e il punteggio Elo non cambia.",
          )}
        </p>
      )}
      <div class="fill-bots-controls">
        <span class="field fill-bots-level">
          <label for="fill-bots-level">{tx("Level of the bots", "Livello dei bot")}</label>
          <select id="fill-bots-level" value={chosen} disabled={busy}
            onChange={(e) => setLevel((e.currentTarget as HTMLSelectElement).value)}>
            <BotLevelOptions levels={levels} />
          </select>
        </span>
        <button type="button" class={`button${offered ? " big" : " secondary"}`} disabled={busy} onClick={() => onFill(chosen)}>
          {tx("Fill with bots", "Riempi con i bot")}
        </button>
      </div>
    </div>
  );
}

export function WaitingScreen({ lobby, game, clock = browserClock }: {
  lobby: LobbyView;
  game: Pick<GameConnection, "adopt">;
  /** The minute before bots are offered is timed by it (a test's own clock). */
  clock?: Clock;
}) {
  const link = `${location.origin}/join/${lobby.join_code}`;
  const open = lobby.seats_open;
  const levels = useBotLevels(lobby.game_type);
  const firstMatch = useFirstMatch();
  const preferred = defaultBotLevel(levels, firstMatch === true);
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
  const listed = lobby.open ?? false;
  const setOpen = async (next: boolean) => {
    setBusy(true);
    setError(null);
    try {
      game.adopt(await api.setOpen(lobby.id, next));
    } catch (e) {
      setError(findTableError(e));
    }
    setBusy(false);
  };
  const fill = async (level: string) => {
    setBusy(true);
    setError(null);
    const failed = await fillWithBots(lobby, level, game.adopt);
    if (failed) setError(failed);
    setBusy(false);
  };
  const canFill = creator && levels.length > 0 && open > 0;
  // Timed from when this page first showed the waiting room.
  const waited = useWaited(OFFER_BOTS_AFTER_MS, clock);
  const offerBots = canFill && waited && aloneInLobby(lobby);
  const fillControls = (offered: boolean) => (
    <FillWithBots levels={levels} preferred={preferred} busy={busy} offered={offered} onFill={(level) => void fill(level)} />
  );

  return (
    <section class="panel waiting" data-testid="screen-waiting">
      <h1>{tx("Waiting for players", "In attesa dei giocatori")}</h1>
      {/* The offer is said when it appears, and takes no focus. */}
      <div aria-live="polite">{offerBots && fillControls(true)}</div>
      <p class="helper" data-testid="invite-text">{inviteText(open, lobby.open ?? false)}</p>
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
      {creator ? (
        <OpenToAnyone open={listed} busy={busy} onChange={(next) => void setOpen(next)} />
      ) : (
        listed && (
          <p class="helper open-note" data-testid="open-state">
            {tx("This table is open to anyone: it is listed on the Play page.", "Questo tavolo è aperto a tutti: compare nella pagina Gioca.")}
          </p>
        )
      )}
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
            " You can seat a bot at an open seat, or at every one with Fill with bots; a match with a bot is a practice match, and no rating changes.",
            " Puoi far sedere un bot a un posto libero, o a tutti con Riempi con i bot; una partita con un bot è un allenamento, e il punteggio Elo non cambia.",
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
            preferred={preferred}
            busy={busy}
            onAdd={add}
            onRemove={remove}
            onSit={sit}
          />
        ))}
      </ul>
      {canFill && !offerBots && fillControls(false)}
      {error && <Failed error={error} />}
      {seated && open > 0 && <InvitePlayers lobby={lobby} />}
      <h2>{tx("Rules of this table", "Regole di questo tavolo")}</h2>
      <OptionsList options={lobby.options} gameType={lobby.game_type} />
      <p>
        <a href="/rules" target="_blank" rel="noopener">{tx("How scopone scientifico is played", "Come si gioca allo scopone scientifico")}</a>
      </p>
      <LeaveLobby id={lobby.id} />
    </section>
  );
}
