// /games/<id>: one live game. The view's status picks the screen: the waiting room, the table,
// the hand-end summary or the game over. The socket keeps it current.

import { useEffect } from "preact/hooks";
import { errorText } from "../gamestate";
import { tx } from "../i18n";
import type { GameView, LobbyView } from "../types";
import { yourSeatTakenOver } from "../bots";
import { TakenOverBanner } from "../seatcontrols";
import { useGame } from "../usegame";
import { Alert, ReconnectBanner } from "../widgets";
import { GameOverScreen } from "./GameOver";
import { HandEndScreen } from "./HandEnd";
import { TableScreen } from "./Table";
import { WaitingScreen } from "./Waiting";

export function GameScreen({ id, onUnauthenticated }: { id: string; onUnauthenticated: () => void }) {
  const game = useGame(id, onUnauthenticated);
  const { state, connection, fatal } = game;

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
        <Alert>{fatal}</Alert>
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
        <p class="loading">{tx("Opening the table…", "Apertura del tavolo…")}</p>
      </>
    );
  }
  // Over the page rather than in its flow: a refused move must not push the cards down.
  const alert = error ? (
    <div class="toast">
      <Alert onClose={game.dismissError}>{errorText(error)}</Alert>
    </div>
  ) : null;
  let screen;
  if (view.status === "lobby") {
    screen = <WaitingScreen lobby={view as LobbyView} game={game} />;
  } else if (view.status === "playing") {
    screen = <TableScreen view={view as GameView} game={game} alert={alert} />;
  } else if (view.status === "hand_end") {
    screen = <HandEndScreen view={view as GameView} game={game} alert={alert} />;
  } else {
    screen = (
      <GameOverScreen view={view as GameView} commitment={state.commitment} rematch={state.rematch} connection={connection} />
    );
  }
  // A bot plays your seat (you left, or missed your turns with the page closed): say so first.
  const takenOver = view.status !== "lobby" && view.status !== "finished" && yourSeatTakenOver(view as GameView);
  return (
    <>
      {banner}
      {takenOver && <TakenOverBanner id={view.id} adopt={game.adopt} />}
      {screen}
    </>
  );
}
