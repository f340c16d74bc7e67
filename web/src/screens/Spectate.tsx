// /watch/<id>: the spectator's table. The public view (GET /api/games/<id>/watch, then the
// /ws/games/<id>/watch socket) shows every seat's cards from the back with their counts, the table
// cards, the captures and the score, and each play as it comes; between hands the hand's scoring,
// at the end the game over. The spectators talk among themselves (the players do not read them
// until the game is finished). Seat 0 sits at the bottom; nothing here can play.

import type { ComponentChildren } from "preact";
import { useBotLevels, SeatMarks } from "../botmarks";
import { CardBack, CardFace } from "../cards";
import { ChatDrawer, WatcherCount } from "../chatdrawer";
import { cardName } from "../deck";
import { playerIdOf } from "../chat";
import { lastPlayText, matchGoesOnText, playerName, seatRoleText, seatsAround, turnText } from "../describe";
import { tx } from "../i18n";
import { teamNames } from "../live";
import { Failed, Loading } from "../status";
import type { BotLevel, GamePlayer, GameView, Me, PublicGameView, PublicLobby } from "../types";
import { useChat } from "../usechat";
import { useGame } from "../usegame";
import { Countdown, ReconnectBanner, TeamBadge } from "../widgets";
import { usePlayingLayout } from "./Game";
import { HandSummary } from "./HandEnd";
import { Avatar, moveAmongCards, PlayTrail, ScoreBoard, Scope, TableMenu } from "./Table";

/** The seat a spectator "sits" at: none. Text helpers compare seats with it, and no seat matches. */
export const NO_SEAT = -1;

/** The public view as the table's components read a game view: no seat of one's own, no hand. */
export function asWatched(view: PublicGameView): GameView {
  return { ...view, you: NO_SEAT, hand: [], join_code: "" } as unknown as GameView;
}

/** "Team A wins 11–7: alice & carol.": the end of a watched match, naming who won (a spectator
 * knows the players, not which letter their team had). */
export function watchedResult(view: Pick<GameView, "winner" | "scores"> & Partial<Pick<GameView, "players">>): string {
  if (!view.winner) return tx("The match is over.", "La partita è finita.");
  const loser = view.winner === "A" ? "B" : "A";
  const who = view.players?.length ? `: ${teamNames({ players: view.players }, view.winner)}` : "";
  return tx(
    `Team ${view.winner} wins ${view.scores[view.winner]}–${view.scores[loser]}${who}.`,
    `Vince la squadra ${view.winner}, ${view.scores[view.winner]} a ${view.scores[loser]}${who}.`,
  );
}

function WatchedSeat({ view, seat, where, levels }: {
  view: GameView;
  seat: number;
  where: "bottom" | "left" | "top" | "right";
  levels: BotLevel[];
}) {
  const player = view.players.find((p) => p.seat === seat);
  if (!player) return null;
  const onTurn = view.status === "playing" && view.turn === seat;
  const name = playerName(view, seat);
  const role = seatRoleText(view, seat);
  const backs = Math.min(player.card_count, 10);
  return (
    <div class={`seat seat-${where} is-watched${onTurn ? " is-on-turn" : ""}`} data-testid="watched-seat" data-seat={seat}>
      <Avatar view={view} player={player} onTurn={onTurn} />
      <div class="seat-info" data-testid="seat-info" data-seat={seat}>
        <span class="seat-player">
          <span class="seat-player-name" title={name}>{name}</span>
          {role && <span class="seat-role" data-testid="seat-role">{role}</span>}
          <span class={`seat-rel team-${player.team}`}>{tx(`team ${player.team}`, `squadra ${player.team}`)}</span>
          <SeatMarks player={player} levels={levels} />
        </span>
        <span class="seat-stats">
          <span title={tx("Cards captured this hand", "Carte prese in questa mano")} data-testid="captured">
            {tx(`taken ${player.captured_count}`, `${player.captured_count} carte prese`)}
          </span>
          <Scope count={player.scope} />
        </span>
      </div>
      <div
        class="backs"
        role="img"
        aria-label={tx(
          `${name} holds ${player.card_count} card${player.card_count === 1 ? "" : "s"}`,
          `${name} ha ${player.card_count} cart${player.card_count === 1 ? "a" : "e"} in mano`,
        )}
      >
        {Array.from({ length: backs }, (_, i) => (
          <span class="back" key={i}>
            <CardBack />
          </span>
        ))}
        <span class="back-count" aria-hidden="true">{player.card_count}</span>
      </div>
      {onTurn && <span class="on-turn-tag">{tx("to play", "di turno")}</span>}
    </div>
  );
}

function WatchBar({ view, talk }: { view: GameView; talk: ComponentChildren }) {
  const turn = turnText(view);
  return (
    <div class="table-bar">
      <a href="/watch" class="bar-home" aria-label={tx("Stop watching: the tables being played", "Smetti di guardare: i tavoli in corso")}>
        <span aria-hidden="true">♦</span>
      </a>
      <ScoreBoard view={view} compact />
      <div class="turn">
        <span class="turn-text" data-testid="turn-indicator">{turn}</span>
        {view.status === "playing" && <Countdown deadline={view.turn_deadline} label={tx("Time left:", "Tempo rimasto:")} />}
      </div>
      <WatcherCount count={view.spectators} />
      {talk}
      <TableMenu />
    </div>
  );
}

/** The table while a hand is played, as a spectator sees it. */
export function SpectatorTable({ view, trail, talk }: {
  view: GameView;
  trail: Parameters<typeof PlayTrail>[0]["trail"];
  talk: ComponentChildren;
}) {
  const levels = useBotLevels(view.game_type);
  const seats = seatsAround(0);
  const last = view.last_play;
  const count = view.table.length;
  return (
    <section class="table-screen is-watching" data-testid="screen-watch-table">
      <div class="table-play">
        <h1 class="visually-hidden">
          {tx(`Watching: the table, hand ${view.hand_number}`, `Da spettatore: il tavolo, mano ${view.hand_number}`)}
        </h1>
        <WatchBar view={view} talk={talk} />
        <div class="felt">
          <WatchedSeat view={view} seat={seats.top} where="top" levels={levels} />
          <WatchedSeat view={view} seat={seats.left} where="left" levels={levels} />
          <div class="table-middle">
            <div class={`table-cards${count > 8 ? " is-crowded" : ""}${count > 12 ? " is-packed" : ""}`} role="region"
              aria-label={tx("Table", "Tavolo")} onKeyDown={moveAmongCards}>
              {count === 0 && <p class="table-empty">{tx("The table is empty", "Il tavolo è vuoto")}</p>}
              {view.table.map((card) => (
                <span key={card} class={`card${last?.card === card ? " is-last" : ""}`} data-card={card} role="img"
                  aria-label={cardName(card)}>
                  <CardFace code={card} />
                </span>
              ))}
            </div>
            <p class={`last-play${last?.scopa ? " is-scopa" : ""}`} data-testid="last-play" aria-live="polite">
              {lastPlayText(view, last)}
            </p>
            <PlayTrail view={view} trail={trail} />
          </div>
          <WatchedSeat view={view} seat={seats.right} where="right" levels={levels} />
          <WatchedSeat view={view} seat={seats.bottom} where="bottom" levels={levels} />
        </div>
      </div>
    </section>
  );
}

function WatchedLobby({ lobby }: { lobby: PublicLobby }) {
  return (
    <section class="panel" data-testid="screen-watch-lobby">
      <h1>{tx("Waiting for players", "In attesa dei giocatori")}</h1>
      <p>{tx("The match starts when all four seats are taken; this page follows it.", "La partita comincia quando i quattro posti sono occupati; questa pagina la segue.")}</p>
      <ul class="seat-list">
        {[0, 1, 2, 3].map((seat) => {
          const p = lobby.players.find((x) => x.seat === seat);
          return (
            <li key={seat} class={`seat-row team-${seat % 2 === 0 ? "A" : "B"}${p ? "" : " is-open"}`}>
              <span class="seat-name">{p ? p.name : tx("open", "libero")}</span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function WatchedBetweenHands({ view, title }: { view: GameView; title: string }) {
  const hand = view.last_hand;
  const goesOn = view.status === "hand_end" ? matchGoesOnText(view) : "";
  return (
    <section class="panel hand-end" data-testid={view.status === "finished" ? "screen-watch-over" : "screen-watch-hand-end"}>
      <h1>{title}</h1>
      <p class="last-play" data-testid="last-play" aria-live="polite">{lastPlayText(view, view.last_play ?? null)}</p>
      {view.status === "finished" && <p class="watch-result" data-testid="watch-result">{watchedResult(view)}</p>}
      {hand && <HandSummary hand={hand} napola={view.options?.napola !== false} />}
      {goesOn && <p class="goes-on">{goesOn}</p>}
      {view.status === "hand_end" && (
        <p>
          {tx(
            `The next hand is dealt when the four players are ready (${(view.acknowledged ?? []).length} of 4).`,
            `La mano seguente si distribuisce quando i quattro giocatori sono pronti (${(view.acknowledged ?? []).length} su 4).`,
          )}{" "}
          <Countdown deadline={view.hand_end_deadline} label={tx("At the latest in:", "Al più tardi tra:")} />
        </p>
      )}
      <ul class="watch-players">
        {view.players.map((p: GamePlayer) => (
          <li key={p.seat}>
            <TeamBadge team={p.team} /> {playerName(view, p.seat)}
          </li>
        ))}
      </ul>
      <p>
        <a href="/watch">{tx("Watch another table", "Guarda un altro tavolo")}</a>
      </p>
    </section>
  );
}

export function SpectateScreen({ id, onUnauthenticated, me }: { id: string; onUnauthenticated: () => void; me?: Me | null }) {
  const player = playerIdOf(me);
  const chat = useChat(id, () => ({ seat: null, player }));
  const game = useGame(id, onUnauthenticated, { watch: true, listener: chat.listener });
  const { state, connection, fatal } = game;
  const view = state.view;
  const watched = view && view.status !== "lobby" ? asWatched(view as unknown as PublicGameView) : null;
  usePlayingLayout(!fatal && (!view || watched?.status === "playing"));

  if (fatal) {
    return (
      <section class="panel" data-testid="screen-game-error">
        <h1>{tx("This game cannot be watched", "Questa partita non si può guardare")}</h1>
        <Failed error={fatal} />
        <p>
          <a href="/watch" class="button secondary">{tx("The tables being played", "I tavoli in corso")}</a>
        </p>
      </section>
    );
  }
  const banner = <ReconnectBanner show={connection === "reconnecting" && view?.status !== "finished"} />;
  if (!view) {
    return (
      <>
        {banner}
        <Loading>{tx("Opening the table…", "Apertura del tavolo…")}</Loading>
      </>
    );
  }
  const talk = (placement: "bar" | "float") => (
    <ChatDrawer chat={chat} reader={{ seat: null, player }} status={view.status} send={game.send} spectator
      watchers={watched?.spectators} placement={placement} />
  );
  let screen;
  let talkInScreen = false;
  if (!watched) {
    screen = <WatchedLobby lobby={view as unknown as PublicLobby} />;
  } else if (watched.status === "seeding") {
    screen = (
      <section class="panel" data-testid="screen-watch-seeding">
        <h1>{tx("The players shuffle together", "I giocatori mescolano insieme")}</h1>
        <p>{tx("Each seat adds its own random bytes to the deal; the first hand follows in a moment.", "Ogni posto aggiunge i suoi byte casuali alla smazzata; la prima mano segue tra un momento.")}</p>
      </section>
    );
  } else if (watched.status === "playing") {
    screen = <SpectatorTable view={watched} trail={state.trail} talk={talk("bar")} />;
    talkInScreen = true;
  } else if (watched.status === "hand_end") {
    const n = watched.last_hand?.hand ?? watched.hand_number;
    screen = <WatchedBetweenHands view={watched} title={tx(`Hand ${n} is over`, `La mano ${n} è finita`)} />;
  } else {
    screen = <WatchedBetweenHands view={watched} title={tx("Game over", "Partita finita")} />;
  }
  return (
    <>
      {banner}
      {screen}
      {!talkInScreen && talk("float")}
    </>
  );
}
