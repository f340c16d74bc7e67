// Between hands: the scoring of the hand that ended first (on a phone it is what the screen
// shows), the OK that deals the next hand once all four have pressed it (or the time is up), the
// match score, who has acknowledged; a newcomer's first hand end offers a tip.

import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { isPracticeView, yourSeatTakenOver } from "../bots";
import { SeatMarks, useBotLevels, useFirstMatch } from "../botmarks";
import { firstHandHint, lastPlayText, matchGoesOnText, playerName } from "../describe";
import { usingKeyboard } from "../inputmode";
import type { GameView, LastHand, Team } from "../types";
import { LeaveMatch, TakeBack } from "../seatcontrols";
import type { GameConnection } from "../usegame";
import { Countdown, TeamBadge } from "../widgets";
import { ScoreBoard } from "./Table";
import { LastHandTally } from "../tally";
import { tx } from "../i18n";

// The rows of the scoring, built when drawn (the words follow the language); the categories
// keep their Italian names in both languages.
function rows(): { label: string; award?: string; value: (t: LastHand["teams"]["A"]) => string; help: string }[] {
  return [
    { label: tx("Cards", "Carte"), award: "carte", value: (t) => String(t.cards), help: tx("more than 20 cards", "più di 20 carte") },
    { label: "Denari", award: "denara", value: (t) => String(t.denari), help: tx("more than 5 denari", "più di 5 denari") },
    { label: "Settebello", award: "settebello", value: (t) => (t.settebello ? tx("yes", "sì") : "no"), help: tx("the 7 of denari", "il 7 di denari") },
    { label: "Primiera", award: "primiera", value: (t) => String(t.primiera), help: tx("best card of each suit", "la carta migliore di ogni seme") },
    { label: "Napola", award: "napola", value: (t) => String(t.napola), help: tx("run of denari from the ace", "scala di denari dall'asso") },
    { label: "Scope", value: (t) => String(t.scope), help: tx("one point each", "un punto ciascuna") },
  ];
}

function awardText(team: Team | null | undefined): string {
  if (team === undefined) return "";
  return team ? tx(`Team ${team}`, `Squadra ${team}`) : tx("nobody (tie)", "nessuno (patta)");
}

export function HandSummary({ hand, mine, napola }: { hand: LastHand; mine?: Team; napola: boolean }) {
  const shown = rows().filter((r) => napola || r.award !== "napola");
  return (
    <table class="summary">
      <caption>{tx(`Scoring of hand ${hand.hand}`, `Punteggio della mano ${hand.hand}`)}</caption>
      <thead>
        <tr>
          <th scope="col">{tx("Category", "Categoria")}</th>
          <th scope="col">{tx("Team A", "Squadra A")}{mine === "A" ? tx(" (yours)", " (la tua)") : ""}</th>
          <th scope="col">{tx("Team B", "Squadra B")}{mine === "B" ? tx(" (yours)", " (la tua)") : ""}</th>
          <th scope="col">{tx("Point to", "Punto a")}</th>
        </tr>
      </thead>
      <tbody>
        {shown.map((r) => {
          const award = r.award ? hand.award?.[r.award] : undefined;
          return (
            <tr key={r.label}>
              <th scope="row">
                {r.label}
                <span class="row-help">{r.help}</span>
              </th>
              {(["A", "B"] as const).map((t) => (
                <td key={t} class={award === t ? "is-award" : ""}>
                  {r.value(hand.teams[t])}
                  {award === t && (
                    <>
                      <span class="award-mark" aria-hidden="true"> ✓</span>
                      {/* The "Point to" column is hidden on narrow screens: say it here too. */}
                      <span class="visually-hidden">{tx(` (point to team ${t})`, ` (punto alla squadra ${t})`)}</span>
                    </>
                  )}
                </td>
              ))}
              <td>{r.award ? awardText(award) : tx("each scopa", "ogni scopa")}</td>
            </tr>
          );
        })}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">{tx("Points this hand", "Punti della mano")}</th>
          <td>{hand.teams.A.points}</td>
          <td>{hand.teams.B.points}</td>
          <td></td>
        </tr>
        <tr>
          <th scope="row">{tx("Match score", "Punteggio della partita")}</th>
          <td>{hand.scores.A}</td>
          <td>{hand.scores.B}</td>
          <td></td>
        </tr>
      </tfoot>
    </table>
  );
}

export function HandEndScreen({ view, game, alert }: { view: GameView; game: GameConnection; alert: ComponentChildren }) {
  const hand = view.last_hand;
  const acked = view.acknowledged ?? [];
  const done = acked.includes(view.you);
  const mine = view.players.find((p) => p.seat === view.you)?.team;
  const connected = game.connection === "open";
  const waitingForAck = game.state.pendingRevision !== null;
  const goesOn = matchGoesOnText(view);
  const levels = useBotLevels(view.game_type);
  // A bot plays your seat: it acknowledges for you, until you take the seat back.
  const takenOver = yourSeatTakenOver(view);
  const handNumber = hand?.hand ?? view.hand_number;
  const firstMatch = useFirstMatch();

  // A keyboard player lands on OK (focus was on a card that is gone); nobody else is moved.
  const okRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (usingKeyboard() && (!active || active === document.body)) okRef.current?.focus();
  }, []);
  return (
    <section class="panel hand-end" data-testid="screen-hand-end">
      <h1>{tx(`Hand ${handNumber} is over`, `La mano ${handNumber} è finita`)}</h1>
      {hand && <HandSummary hand={hand} mine={mine} napola={view.options?.napola !== false} />}
      {goesOn && <p class="goes-on">{goesOn}</p>}
      {alert}
      <div class="ack-row">
        <button
          ref={okRef}
          type="button"
          class="button big"
          disabled={done || !connected || waitingForAck || takenOver}
          // No revision on an ack: four players pressing OK at once must not refuse each other.
          onClick={() => game.send({ action: "ack" }, view.revision)}
        >
          {done ? tx("Waiting for the others", "In attesa degli altri") : "OK"}
        </button>
        <Countdown deadline={view.hand_end_deadline} label={tx("Next hand in", "Prossima mano tra")} />
      </div>
      {firstMatch === true && handNumber === 1 && (
        <p class="hint" data-testid="first-hand-hint">{firstHandHint()}</p>
      )}
      <TakeBack view={view} game={game} />
      <p class="helper">
        {tx(
          "Press OK when you have seen the scoring; the next hand is dealt when all four players have, or when the time runs out.",
          "Premi OK quando hai visto il punteggio; la mano successiva viene distribuita quando l'hanno premuto tutti e quattro, o allo scadere del tempo.",
        )}
      </p>
      <ScoreBoard view={view} />
      {/* The 40th card ends the hand at once: say what it did, nobody saw it on the table. */}
      {view.last_play && <p class="helper">{tx("Last card of the hand: ", "Ultima carta della mano: ")}{lastPlayText(view, view.last_play)}</p>}
      <h2 class="ack-title">{tx("Ready for the next hand", "Pronti per la prossima mano")}</h2>
      <ul class="ack-list">
        {view.players.map((p) => {
          const ok = acked.includes(p.seat);
          return (
            <li key={p.seat} class={ok ? "is-acked" : ""}>
              <span class="ack-mark" aria-hidden="true">{ok ? "✓" : "○"}</span>
              <span class="ack-name">{p.seat === view.you ? tx("You", "Tu") : playerName(view, p.seat)}</span>
              <TeamBadge team={p.team} />
              <SeatMarks player={p} levels={levels} yours={p.seat === view.you} />
              <span class="ack-state">{ok ? tx("ready", "pronto") : tx("not yet", "non ancora")}</span>
            </li>
          );
        })}
      </ul>
      {hand && <LastHandTally id={view.id} hand={hand} mine={mine} />}
      {!takenOver && <LeaveMatch id={view.id} practice={isPracticeView(view)} />}
    </section>
  );
}
