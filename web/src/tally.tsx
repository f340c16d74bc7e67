// What each team took in a hand, suit by suit, and the primiera card by card: worked out from
// the move log (a seated player may read it at any time), checked against the server's scoring
// of the hand before it is shown.

import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import { cardName, SUIT_NAMES, SUITS, type Suit } from "./deck";
import { tx } from "./i18n";
import { countBySuit, lastHandPiles, primieraBySuit, primieraTotal } from "./replay";
import type { LastHand, Team } from "./types";

const TEAMS: Team[] = ["A", "B"];

/** "7", "asso"/"ace", "re": a rank as players say it. */
function rankWord(card: string): string {
  const rank = Number(card.slice(0, 2));
  if (rank === 1) return tx("ace", "asso");
  return { 8: "fante", 9: "cavallo", 10: "re" }[rank] ?? String(rank);
}

/** Whether the piles agree with the server's scoring of the hand (cards, denari, primiera). */
export function pilesMatch(piles: Record<Team, string[]>, hand: LastHand): boolean {
  return TEAMS.every((t) => {
    const team = hand.teams[t];
    return piles[t].length === team.cards && countBySuit(piles[t]).D === team.denari && primieraTotal(piles[t]) === team.primiera;
  });
}

/** The cards each team took, by suit, and the primiera by suit, for a hand's piles. */
export function HandTally({ piles, mine }: { piles: Record<Team, string[]>; mine?: Team }) {
  const counts = { A: countBySuit(piles.A), B: countBySuit(piles.B) };
  const best = { A: primieraBySuit(piles.A), B: primieraBySuit(piles.B) };
  const head = (t: Team) => (
    <th scope="col" key={t}>
      {tx(`Team ${t}`, `Squadra ${t}`)}
      {mine === t ? tx(" (yours)", " (la tua)") : ""}
    </th>
  );
  return (
    <div class="tally" data-testid="hand-tally">
      <table class="summary tally-table">
        <caption>{tx("Cards taken, by suit", "Carte prese, per seme")}</caption>
        <thead>
          <tr>
            <th scope="col">{tx("Suit", "Seme")}</th>
            {TEAMS.map(head)}
          </tr>
        </thead>
        <tbody>
          {SUITS.map((s: Suit) => (
            <tr key={s}>
              <th scope="row" class={`suit suit-${s}`}>{SUIT_NAMES[s]}</th>
              {TEAMS.map((t) => (
                <td key={t} class={counts[t][s] > counts[t === "A" ? "B" : "A"][s] ? "is-more" : ""}>{counts[t][s]}</td>
              ))}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">{tx("All cards", "Totale carte")}</th>
            {TEAMS.map((t) => <td key={t}>{piles[t].length}</td>)}
          </tr>
        </tfoot>
      </table>
      <table class="summary tally-table">
        <caption>{tx("Primiera, by suit", "Primiera, per seme")}</caption>
        <thead>
          <tr>
            <th scope="col">{tx("Suit", "Seme")}</th>
            {TEAMS.map(head)}
          </tr>
        </thead>
        <tbody>
          {SUITS.map((s: Suit) => (
            <tr key={s}>
              <th scope="row" class={`suit suit-${s}`}>{SUIT_NAMES[s]}</th>
              {TEAMS.map((t) => {
                const b = best[t][s];
                return (
                  <td key={t}>
                    {b.card ? (
                      <>
                        <span aria-hidden="true">{rankWord(b.card)} · </span>
                        <span class="visually-hidden">{cardName(b.card)}: </span>
                        <strong>{b.value}</strong>
                      </>
                    ) : (
                      <span class="tally-none">{tx("none", "nessuna")}</span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">{tx("Primiera", "Primiera")}</th>
            {TEAMS.map((t) => {
              const total = primieraTotal(piles[t]);
              return <td key={t}>{total > 0 ? total : tx("0 (a suit is missing)", "0 (manca un seme)")}</td>;
            })}
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

/** The tally of the game's last hand, read from its log; nothing when the log cannot be read or
 * does not agree with the scoring. */
export function LastHandTally({ id, hand, mine }: { id: string; hand: LastHand; mine?: Team }) {
  const [piles, setPiles] = useState<Record<Team, string[]> | null>(null);
  useEffect(() => {
    let live = true;
    setPiles(null);
    api.log(id).then(
      (log) => {
        const found = lastHandPiles(log);
        if (live && found && pilesMatch(found, hand)) setPiles(found);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [id, hand.hand]);
  if (!piles) return null;
  return <HandTally piles={piles} mine={mine} />;
}
