// Between hands: the scoring of the hand that ended, the match score, who has acknowledged,
// and the OK that deals the next hand once all four have pressed it (or the time is up).

import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { lastPlayText, matchGoesOnText, playerName } from "../describe";
import { usingKeyboard } from "../inputmode";
import type { GameView, LastHand, Team } from "../types";
import type { GameConnection } from "../usegame";
import { Countdown, TeamBadge } from "../widgets";
import { ScoreBoard } from "./Table";

const ROWS: { label: string; award?: string; value: (t: LastHand["teams"]["A"]) => string; help: string }[] = [
  { label: "Cards", award: "carte", value: (t) => String(t.cards), help: "more than 20 cards" },
  { label: "Denari", award: "denara", value: (t) => String(t.denari), help: "more than 5 denari" },
  { label: "Settebello", award: "settebello", value: (t) => (t.settebello ? "yes" : "no"), help: "the 7 of denari" },
  { label: "Primiera", award: "primiera", value: (t) => String(t.primiera), help: "best card of each suit" },
  { label: "Napola", award: "napola", value: (t) => String(t.napola), help: "run of denari from the ace" },
  { label: "Scope", value: (t) => String(t.scope), help: "one point each" },
];

function awardText(team: Team | null | undefined): string {
  if (team === undefined) return "";
  return team ? `Team ${team}` : "nobody (tie)";
}

export function HandSummary({ hand, mine, napola }: { hand: LastHand; mine?: Team; napola: boolean }) {
  const rows = ROWS.filter((r) => napola || r.award !== "napola");
  return (
    <table class="summary">
      <caption>Scoring of hand {hand.hand}</caption>
      <thead>
        <tr>
          <th scope="col">Category</th>
          <th scope="col">Team A{mine === "A" ? " (you)" : ""}</th>
          <th scope="col">Team B{mine === "B" ? " (you)" : ""}</th>
          <th scope="col">Point to</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
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
                      <span class="visually-hidden"> (point to team {t})</span>
                    </>
                  )}
                </td>
              ))}
              <td>{r.award ? awardText(award) : "each scopa"}</td>
            </tr>
          );
        })}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Points this hand</th>
          <td>{hand.teams.A.points}</td>
          <td>{hand.teams.B.points}</td>
          <td></td>
        </tr>
        <tr>
          <th scope="row">Match score</th>
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

  // A keyboard player lands on OK (focus was on a card that is gone); nobody else is moved.
  const okRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (usingKeyboard() && (!active || active === document.body)) okRef.current?.focus();
  }, []);
  return (
    <section class="panel hand-end" data-testid="screen-hand-end">
      <h1>Hand {hand?.hand ?? view.hand_number} is over</h1>
      <p class="helper">
        Here is how the hand scored. Press OK when you have seen it; the next hand is dealt when all
        four players have, or when the time runs out.
      </p>
      <ScoreBoard view={view} />
      {goesOn && <p class="goes-on">{goesOn}</p>}
      {/* The 40th card ends the hand at once: say what it did, nobody saw it on the table. */}
      {view.last_play && <p class="helper">Last card of the hand: {lastPlayText(view, view.last_play)}</p>}
      {alert}
      <div class="ack-row">
        <button
          ref={okRef}
          type="button"
          class="button big"
          disabled={done || !connected || waitingForAck}
          // No revision on an ack: four players pressing OK at once must not refuse each other.
          onClick={() => game.send({ action: "ack" }, view.revision)}
        >
          {done ? "Waiting for the others" : "OK"}
        </button>
        <Countdown deadline={view.hand_end_deadline} label="Next hand in" />
      </div>
      <h2 class="ack-title">Ready for the next hand</h2>
      <ul class="ack-list">
        {view.players.map((p) => {
          const ok = acked.includes(p.seat);
          return (
            <li key={p.seat} class={ok ? "is-acked" : ""}>
              <span class="ack-mark" aria-hidden="true">{ok ? "✓" : "○"}</span>
              <span>{p.seat === view.you ? "You" : playerName(view, p.seat)}</span>
              <TeamBadge team={p.team} />
              <span class="ack-state">{ok ? "ready" : "not yet"}</span>
            </li>
          );
        })}
      </ul>
      {hand && <HandSummary hand={hand} mine={mine} napola={view.options?.napola !== false} />}
    </section>
  );
}
