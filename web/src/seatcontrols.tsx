// What a player does with their seat during a match: leave it to a bot (after a confirmation),
// take it back when a bot took it over, and, alone with bots, take back the card just played.

import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "./api";
import { canTakeBack } from "./bots";
import { tx } from "./i18n";
import { navigate } from "./router";
import type { GameView } from "./types";
import type { GameConnection } from "./usegame";
import { Failed } from "./status";

/** The confirmation's words: what leaving does to the match (a practice match has no rating). */
export function leaveWarning(practice: boolean): string {
  return practice
    ? tx("A bot will play your seat for the rest of the match.", "Un bot giocherà al tuo posto per il resto della partita.")
    : tx(
        "A bot will play your seat for the rest of the match; leaving costs you the match's rating.",
        "Un bot giocherà al tuo posto per il resto della partita; se te ne vai, perdi i punti Elo in palio.",
      );
}

/** "Leave", then "Leave the match" or "Stay"; leaving goes to the start page. */
export function LeaveMatch({ id, practice }: { id: string; practice: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const stayRef = useRef<HTMLButtonElement>(null);
  const leaveRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) stayRef.current?.focus();
  }, [confirming]);

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
  const stay = () => {
    setConfirming(false);
    setError(null);
    setTimeout(() => leaveRef.current?.focus(), 0);
  };

  if (!confirming) {
    return (
      <div class="leave-row">
        <button ref={leaveRef} type="button" class="button secondary" onClick={() => setConfirming(true)}>
          {tx("Leave", "Lascia il tavolo")}
        </button>
      </div>
    );
  }
  return (
    <div class="leave-row leave-confirm" role="group" aria-labelledby="leave-title" aria-describedby="leave-warning">
      <strong id="leave-title">{tx("Leave the match?", "Lasciare la partita?")}</strong>
      <p id="leave-warning">{leaveWarning(practice)}</p>
      <div class="leave-buttons">
        <button type="button" class="button danger" disabled={busy} onClick={() => void leave()}>
          {tx("Leave the match", "Lascia la partita")}
        </button>
        <button ref={stayRef} type="button" class="button secondary" disabled={busy} onClick={stay}>
          {tx("Stay", "Resta")}
        </button>
      </div>
      {error && <Failed error={error} />}
    </div>
  );
}

/** Your own seat is played by a bot: say so, and offer it back. */
export function TakenOverBanner({ id, adopt }: { id: string; adopt: GameConnection["adopt"] }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const takeBack = async () => {
    setBusy(true);
    setError(null);
    try {
      adopt(await api.returnToSeat(id));
    } catch (e) {
      setError(errorText(e));
    }
    setBusy(false);
  };
  return (
    <section class="takeover-banner" data-testid="taken-over" aria-labelledby="taken-over-title">
      <p>
        <strong id="taken-over-title">{tx("A bot is playing your seat.", "Un bot sta giocando al tuo posto.")}</strong>{" "}
        {tx(
          "You left the match, or missed your turns with the table closed. Take your seat back to play on from here.",
          "Hai lasciato la partita, o hai saltato i tuoi turni con il tavolo chiuso. Riprendi il tuo posto per continuare a giocare da qui.",
        )}
      </p>
      <button type="button" class="button big" disabled={busy} onClick={() => void takeBack()}>
        {tx("Take my seat back", "Riprendi il mio posto")}
      </button>
      {error && <Failed error={error} />}
    </section>
  );
}

/** Alone with bots: "Take back" the card you just played, while nobody has played after it. */
export function TakeBack({ view, game }: { view: GameView; game: GameConnection }) {
  if (game.connection !== "open" || !canTakeBack(view, game.state.playedAt)) return null;
  const waiting = game.state.pendingRevision !== null;
  return (
    <div class="takeback-row">
      <button
        type="button"
        class="button secondary"
        disabled={waiting}
        onClick={() => game.send({ action: "takeback", revision: view.revision }, view.revision)}
      >
        {tx("Take back", "Riprendi la carta")}
      </button>
      <span class="takeback-help">
        {tx("Practice: your card comes back to your hand if nobody has played yet.", "Allenamento: la carta torna in mano se nessuno ha ancora giocato.")}
      </span>
    </div>
  );
}
