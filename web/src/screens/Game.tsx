// /games/<id>: one live game. The view's status picks the screen: the waiting room, the table,
// the hand-end summary or the game over. The socket keeps it current.

import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { useTurnAlerts } from "../alerts";
import type { Ending } from "../gamestate";
import { useHold } from "../pacing";
import { playsDown } from "../plays";
import { errorText } from "../gamestate";
import { tx } from "../i18n";
import type { AnyView, GameView, LobbyView, Me } from "../types";
import { ChatDrawer } from "../chatdrawer";
import { playerIdOf } from "../chat";
import { useChat } from "../usechat";
import { yourSeatTakenOver } from "../bots";
import { TakenOverBanner } from "../seatcontrols";
import { useGame } from "../usegame";
import { SinceLeftNotice, useSinceLeft } from "../sinceleftnotice";
import { Failed, Loading } from "../status";
import { Alert, ReconnectBanner } from "../widgets";
import { GameOverScreen } from "./GameOver";
import { HandEndScreen } from "./HandEnd";
import { TableScreen } from "./Table";
import { WaitingScreen } from "./Waiting";
import { SeedingScreen } from "./Seeding";
import { isSeeding, useEntropy, type SeedingView } from "../entropy";

/**
 * The table as it stands right after the hand's last play, before the summary: the view before
 * that play with the play made (its card gone from the hand, the last cards on the table), no
 * turn, the match score not yet counted.
 */
export function closingView(closing: Ending): GameView {
  const { before, after, sweep } = closing;
  const play = after.last_play;
  return {
    ...before,
    revision: after.revision,
    players: after.players.map((p) => ({ ...p, card_count: 0 })),
    hand: before.hand.filter((c) => c !== play?.card),
    table: sweep.cards,
    turn: null,
    your_turn: undefined,
    legal: undefined,
    turn_deadline: undefined,
    last_play: play,
  };
}

/** While a hand is played the site's header, sections and footer give the table the screen; a
 * game's page starts without them and shows them for the other phases (before the paint, so
 * nothing jumps). */
export function usePlayingLayout(playing: boolean): void {
  useLayoutEffect(() => {
    document.body.classList.toggle("with-chrome", !playing);
    return () => document.body.classList.remove("with-chrome");
  }, [playing]);
}

/** Who reads the talk at this game: the member's seat (the lobby's `is_you`, the view's `you`). */
export function readerSeat(view: AnyView | null): number | null {
  if (!view) return null;
  if (view.status === "lobby") return (view as LobbyView).players.find((p) => p.is_you)?.seat ?? null;
  return (view as GameView).you ?? null;
}

export function GameScreen({ id, onUnauthenticated, me }: { id: string; onUnauthenticated: () => void; me?: Me | null }) {
  const viewRef = useRef<AnyView | null>(null);
  const player = playerIdOf(me);
  const chat = useChat(id, () => ({ seat: readerSeat(viewRef.current), player }));
  const game = useGame(id, onUnauthenticated, { listener: chat.listener });
  const { state, connection, fatal } = game;
  viewRef.current = state.view;
  // Once the game is finished the players read the spectators' talk too: the history has it.
  const finished = state.view?.status === "finished";
  useEffect(() => {
    if (finished) chat.refresh();
  }, [finished]);
  const hold = useHold(state.ending);
  // A daily table: the plays made while the player was away.
  const sinceLeft = useSinceLeft(id, state.view);
  // Player entropy: the browser commits and reveals its seat's value by itself.
  const own = useEntropy(state.view, game.send);
  const current = state.view && state.view.status !== "lobby" ? (state.view as GameView) : null;
  // The end of the hand stays on the table while the view is that hand's end (not the next hand).
  const closing = current && current.status !== "playing" && hold.closing?.after.hand_number === current.hand_number
    ? hold.closing
    : null;
  // Until the view is known the page keeps the table's layout (the usual case on a reload).
  usePlayingLayout(!current ? !fatal && state.view?.status !== "lobby" : current.status === "playing" || Boolean(closing));
  useTurnAlerts(
    current?.status === "playing" && current.your_turn ? `${current.id}:${current.hand_number}:${playsDown(current)}` : null,
  );

  // A refused move is shown for a few seconds; the next view is already on its way.
  const error = state.error;
  useEffect(() => {
    if (!error) return;
    const t = setTimeout(game.dismissError, 6000);
    return () => clearTimeout(t);
  }, [error?.serial]);

  if (fatal) {
    return (
      <section class="panel" data-testid="screen-game-error">
        <h1>{tx("This game cannot be shown", "Questa partita non si può mostrare")}</h1>
        <Failed error={fatal} />
        <p>
          <a href="/" class="button secondary">{tx("Back to the start page", "Torna alla pagina iniziale")}</a>
        </p>
      </section>
    );
  }
  const view = state.view;
  // At a finished game the socket only waits for a rematch invitation: no banner for it.
  const banner = <ReconnectBanner show={connection === "reconnecting" && state.view?.status !== "finished"} />;
  if (!view) {
    return (
      <>
        {banner}
        <Loading>{tx("Opening the table…", "Apertura del tavolo…")}</Loading>
      </>
    );
  }
  // Over the page rather than in its flow: a refused move must not push the cards down. A new
  // alert element for each refusal, so a screen reader says the same words again when a second
  // move is refused the same way (an alert whose text does not change is not read again).
  const alert = error ? (
    <div class="toast" key={error.serial}>
      <Alert onClose={game.dismissError}>{errorText(error)}</Alert>
    </div>
  ) : null;
  // A bot plays your seat (you left, or missed your turns with the page closed): say so first,
  // above the table in its flow, so it covers none of the cards.
  const takenOver = view.status !== "lobby" && view.status !== "finished" && yourSeatTakenOver(view as GameView);
  const takenOverBanner = takenOver ? <TakenOverBanner id={view.id} adopt={game.adopt} /> : null;
  const missedNotice = sinceLeft.missed && view.status !== "lobby" ? (
    <SinceLeftNotice view={view as GameView} missed={sinceLeft.missed} onDismiss={sinceLeft.dismiss} />
  ) : null;
  const seat = readerSeat(view);
  const watchers = view.status === "lobby" ? null : (view as GameView).spectators;
  const talk = (placement: "bar" | "float") => (
    <ChatDrawer chat={chat} reader={{ seat, player }} status={view.status} send={game.send}
      watchers={watchers} placement={placement} />
  );
  let screen;
  let bannerInScreen = false;
  let talkInScreen = false;
  if (view.status === "lobby") {
    screen = <WaitingScreen lobby={view as LobbyView} game={game} />;
  } else if (isSeeding(view)) {
    screen = <SeedingScreen view={view as SeedingView} own={own} alert={alert} />;
  } else if (view.status === "playing" || closing) {
    screen = (
      <TableScreen
        view={closing ? closingView(closing) : (view as GameView)}
        game={game}
        alert={alert}
        trail={state.trail}
        closing={closing ? { sweep: closing.sweep, skip: hold.skip } : null}
        notice={takenOverBanner || missedNotice ? <>{takenOverBanner}{missedNotice}</> : null}
        talk={talk("bar")}
      />
    );
    bannerInScreen = true;
    talkInScreen = true;
  } else if (view.status === "hand_end") {
    screen = <HandEndScreen view={view as GameView} game={game} alert={alert} />;
  } else {
    screen = (
      <GameOverScreen view={view as GameView} commitment={state.commitment} rematch={state.rematch} connection={connection} />
    );
  }
  return (
    <>
      {banner}
      {!bannerInScreen && takenOverBanner}
      {!bannerInScreen && missedNotice}
      {screen}
      {!talkInScreen && talk("float")}
    </>
  );
}
