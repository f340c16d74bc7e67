// The replay of a finished match on its history page: hand by hand and play by play, with all
// four hands face up (the revealed seed deals them again, as the deal check does) and the table
// after each play. The buttons step, and so do the keyboard's arrows: left and right a play,
// up and down (or shift with left and right) a hand.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { markOf, mistakeSpots, nextMistake, playsByNumber, playsOfHand, previousMistake, type ReplaySpot } from "../analysis";
import { PlayVerdict } from "../analysisview";
import { displayName } from "../bots";
import { ShownCard } from "../cards";
import { cardName, cardList, cardsPhrase, cardPhrase } from "../deck";
import { seatsAround } from "../describe";
import { tx } from "../i18n";
import { CARDS_PER_HAND, handsAfter, playHand, replayHands, teamPiles, type ReplayHand } from "../replay";
import { HandTally } from "../tally";
import type { Analysis, BotLevel, MatchItem, MatchPlayer } from "../types";
import { Failed, Loading } from "../status";

/** A bar and a triangle: to the start or the end of the hand. */
function StepIcon({ to }: { to: "start" | "end" }) {
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      <g fill="currentColor" transform={to === "end" ? "rotate(180 8 8)" : undefined}>
        <rect x="2.5" y="3" width="2" height="10" />
        <path d="M13.5 3v10L5.5 8Z" />
      </g>
    </svg>
  );
}

function nameOf(players: MatchPlayer[], seat: number, me: string, levels: BotLevel[]): string {
  const p = players.find((x) => x.seat === seat);
  if (!p) return tx(`Seat ${seat + 1}`, `Posto ${seat + 1}`);
  if (!p.bot && p.name === me) return tx("You", "Tu");
  return displayName(p, levels);
}

/** What play `k` (1..40) of a hand did, in words. */
function playText(hand: ReplayHand, k: number, who: (seat: number) => string, asso: boolean): string {
  if (k === 0) return tx("The cards are dealt; the table is empty.", "Le carte sono distribuite; il tavolo è vuoto.");
  const play = hand.plays[k - 1];
  const before = playHand(hand.plays, k - 1, asso);
  const after = playHand(hand.plays, k, asso);
  const took = after.piles[play.seat].length > before.piles[play.seat].length;
  const name = who(play.seat);
  const mine = name === tx("You", "Tu");
  const it = (rest: string) => (mine ? `Giochi ${cardPhrase(play.card)}${rest.replace(" prende ", " prendi ")}` : `${name} gioca ${cardPhrase(play.card)}${rest}`);
  let text = took
    ? play.capture.length > 0
      ? tx(`${name} played ${cardName(play.card)} and took ${cardList(play.capture)}.`, it(` e prende ${cardsPhrase(play.capture)}.`))
      : tx(`${name} played ${cardName(play.card)} and took the table.`, it(" e prende tutto il tavolo."))
    : tx(`${name} played ${cardName(play.card)} on the table.`, it(" sul tavolo."));
  if (after.scope[play.seat] > before.scope[play.seat]) text += " Scopa!";
  if (play.auto) text += tx(" (auto-played)", " (giocata in automatico)");
  if (k === CARDS_PER_HAND && after.sweep.length > 0 && after.lastCapturer !== null) {
    text += tx(
      ` The last cards (${cardList(after.sweep)}) go to ${who(after.lastCapturer)}, who made the last capture.`,
      ` Le ultime carte (${cardsPhrase(after.sweep)}) vanno a chi ha fatto l'ultima presa: ${who(after.lastCapturer)}.`,
    );
  }
  return text;
}

/** Your plays of the hand as marks (their verdicts' symbols over their cards): a tap steps there. */
function HandMarks({ hands, h, k, analysis, go }: {
  hands: ReplayHand[];
  h: number;
  k: number;
  analysis: Analysis;
  go: (spot: ReplaySpot) => void;
}) {
  const entries = playsOfHand(hands, h, analysis);
  if (entries.length === 0) return null;
  return (
    <ol class="analysis-marks" aria-label={tx("Your plays in this hand", "Le tue giocate in questa mano")} data-testid="analysis-marks">
      {entries.map(({ play, k: at }) => {
        const mark = markOf(play);
        return (
          <li key={play.number}>
            <button
              type="button"
              class={`analysis-mark ${mark?.className ?? ""}`}
              aria-current={at === k ? "step" : undefined}
              aria-label={tx(`Play ${at}: ${cardName(play.played.card)}, ${mark?.word ?? ""}`, `Giocata ${at}: ${cardName(play.played.card)}, ${mark?.word ?? ""}`)}
              onClick={() => go({ h, k: at })}
            >
              <ShownCard code={play.played.card} />
              <span class="verdict-symbol" aria-hidden="true">{mark?.symbol}</span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}

export function Replay({ match, me, levels, analysis }: {
  match: MatchItem;
  me: string;
  levels: BotLevel[];
  /** The caller's analysis of the match, once done: each of their plays is marked. */
  analysis?: Analysis | null;
}) {
  const [hands, setHands] = useState<ReplayHand[] | null>(null);
  const [asso, setAsso] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [h, setH] = useState(0);
  const [k, setK] = useState(0);
  const boxRef = useRef<HTMLElement>(null);
  // After a jump to a marked play, its words and verdict are brought into view (on a phone they
  // may sit below the buttons); stepping play by play leaves the page where it is.
  const saidRef = useRef<HTMLDivElement>(null);
  const [jumped, setJumped] = useState(0);
  useEffect(() => {
    if (jumped) saidRef.current?.scrollIntoView?.({ block: "nearest" });
  }, [jumped]);

  useEffect(() => {
    let live = true;
    api.log(match.id).then(
      async (log) => {
        try {
          const found = await replayHands(log);
          if (!live) return;
          setAsso(Boolean(log.options?.asso_pigliatutto));
          setHands(found);
        } catch (e) {
          if (live) setError(e instanceof Error ? e.message : String(e));
        }
      },
      (e) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [match.id]);

  const spots = useMemo(() => (hands && analysis ? mistakeSpots(hands, analysis) : []), [hands, analysis]);
  const judged = useMemo(() => playsByNumber(analysis), [analysis]);
  const total = hands?.length ?? 0;
  const plays = hands?.[h]?.plays.length ?? 0;
  const stepPlay = (d: number) => setK((x) => Math.max(0, Math.min(plays, x + d)));
  const stepHand = (d: number) => {
    setH((x) => Math.max(0, Math.min(total - 1, x + d)));
    setK(0);
  };

  // The arrows step anywhere on the page (unless a form field has them); up and down only inside
  // the replay, so they still scroll the page elsewhere. One listener from the first render on,
  // reading the current hand through a ref.
  const onKey = useRef<(e: KeyboardEvent) => void>(() => undefined);
  onKey.current = (e: KeyboardEvent) => {
    if (!hands) return;
    const target = e.target as HTMLElement | null;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const inside = Boolean(boxRef.current && target && boxRef.current.contains(target));
    if (e.key === "ArrowRight") e.shiftKey ? stepHand(1) : stepPlay(1);
    else if (e.key === "ArrowLeft") e.shiftKey ? stepHand(-1) : stepPlay(-1);
    else if (inside && e.key === "ArrowDown") stepHand(1);
    else if (inside && e.key === "ArrowUp") stepHand(-1);
    else if (inside && e.key === "Home") setK(0);
    else if (inside && e.key === "End") setK(plays);
    else return;
    e.preventDefault();
  };
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKey.current(e);
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, []);

  if (error) {
    return (
      <section class="replay" aria-labelledby="replay-title">
        <h2 id="replay-title">{tx("Replay", "Rivedi la partita")}</h2>
        <Failed what={tx("The replay cannot be shown: ", "La partita non si può rivedere: ")} error={error} />
      </section>
    );
  }
  if (!hands) {
    return (
      <section class="replay" aria-labelledby="replay-title">
        <h2 id="replay-title">{tx("Replay", "Rivedi la partita")}</h2>
        <Loading>{tx("Dealing the hands again…", "Ridistribuzione delle carte…")}</Loading>
      </section>
    );
  }
  if (total === 0) return null;

  const hand = hands[h];
  const state = playHand(hand.plays, k, asso);
  const held = handsAfter(hand, k);
  const play = k > 0 ? hand.plays[k - 1] : null;
  const next = k < hand.plays.length ? hand.plays[k].seat : null;
  const mine = match.players.find((p) => !p.bot && p.name === me);
  const around = seatsAround(analysis?.seat ?? mine?.seat ?? 0);
  const here = { h, k };
  const nextSpot = nextMistake(spots, here);
  const previousSpot = previousMistake(spots, here);
  const go = (spot: ReplaySpot) => {
    setH(spot.h);
    setK(spot.k);
    setJumped((n) => n + 1);
  };
  const verdict = play ? judged.get(play.number) : undefined;
  const who = (seat: number) => nameOf(match.players, seat, me, levels);
  const piles = teamPiles(state);
  const taken = new Set(play?.capture ?? []);

  const seatBox = (seat: number, where: string) => {
    const team = seat % 2 === 0 ? "A" : "B";
    return (
      <div class={`replay-seat replay-${where}${next === seat ? " is-next" : ""}${play?.seat === seat ? " is-last" : ""}`} key={seat}>
        <p class="replay-name">
          <span class={`team-letter team-${team}`} aria-hidden="true">{team}</span>{" "}
          <span class="name-text">{who(seat)}</span>
          <span class="visually-hidden">{tx(`, team ${team}`, `, squadra ${team}`)}</span>
          {next === seat && <span class="replay-next"> {tx("to play", "di turno")}</span>}
        </p>
        <div
          class="replay-cards"
          role="list"
          aria-label={seat === mine?.seat ? tx("Your cards", "Le tue carte") : tx(`${who(seat)}'s cards`, `Le carte di ${who(seat)}`)}
        >
          {held[seat].length === 0 && <span class="replay-empty" role="listitem">{tx("no cards", "nessuna carta")}</span>}
          {held[seat].map((c) => (
            <span role="listitem" key={c}>
              <ShownCard code={c} />
            </span>
          ))}
        </div>
      </div>
    );
  };

  return (
    <section class="replay" aria-labelledby="replay-title" data-testid="replay" ref={boxRef} tabIndex={-1}>
      <h2 id="replay-title">{tx("Replay", "Rivedi la partita")}</h2>
      <p class="helper">
        {tx(
          "Every hand dealt again from the revealed seed, with all four hands face up. Step with the buttons or the arrow keys: left and right a play, shift+arrow (or up and down here) a hand.",
          "Ogni mano ridistribuita dal seed rivelato, con tutte e quattro le mani scoperte. Vai avanti e indietro con i pulsanti o con le frecce: destra e sinistra una giocata, maiusc+freccia (o su e giù qui) una mano.",
        )}
      </p>
      <div class="replay-controls">
        <div class="replay-step" role="group" aria-label={tx("Hand", "Mano")}>
          <span class="replay-where" data-testid="replay-hand" aria-live="polite">
            {tx(`Hand ${hand.number} of ${total}`, `Mano ${hand.number} di ${total}`)}
          </span>
          <span class="replay-buttons">
            <button type="button" class="button secondary small" onClick={() => stepHand(-1)} disabled={h === 0}>
              {tx("Previous hand", "Mano precedente")}
            </button>
            <button type="button" class="button secondary small" onClick={() => stepHand(1)} disabled={h >= total - 1}>
              {tx("Next hand", "Mano successiva")}
            </button>
          </span>
        </div>
        <div class="replay-step" role="group" aria-label={tx("Play", "Giocata")}>
          <span class="replay-where" data-testid="replay-play">
            {tx(`Play ${k} of ${hand.plays.length}`, `Giocata ${k} di ${hand.plays.length}`)}
          </span>
          <span class="replay-buttons">
            <button type="button" class="button secondary small icon-button" onClick={() => setK(0)} disabled={k === 0} aria-label={tx("Start of the hand", "Inizio della mano")}>
              <StepIcon to="start" />
            </button>
            <button type="button" class="button small" onClick={() => stepPlay(-1)} disabled={k === 0}>
              {tx("Previous play", "Giocata precedente")}
            </button>
            <button type="button" class="button small" onClick={() => stepPlay(1)} disabled={k >= hand.plays.length}>
              {tx("Next play", "Giocata successiva")}
            </button>
            <button type="button" class="button secondary small icon-button" onClick={() => setK(hand.plays.length)} disabled={k >= hand.plays.length} aria-label={tx("End of the hand", "Fine della mano")}>
              <StepIcon to="end" />
            </button>
          </span>
        </div>
      </div>
      {analysis && (
        <div class="replay-step analysis-step" role="group" aria-label={tx("Your plays", "Le tue giocate")}>
          <span class="replay-where">{tx("Your plays", "Le tue giocate")}</span>
          <span class="replay-buttons">
            <button type="button" class="button secondary small" onClick={() => previousSpot && go(previousSpot)} disabled={!previousSpot}>
              {tx("Previous mistake", "Errore precedente")}
            </button>
            <button type="button" class="button small" onClick={() => nextSpot && go(nextSpot)} disabled={!nextSpot} data-testid="next-mistake">
              {spots.length === 0 ? tx("No mistakes to show", "Nessun errore da mostrare") : tx("Next mistake", "Errore successivo")}
            </button>
          </span>
          <HandMarks hands={hands} h={h} k={k} analysis={analysis} go={go} />
        </div>
      )}
      <div class="replay-said" aria-live="polite" ref={saidRef}>
        <p class="replay-text" data-testid="replay-text">
          {playText(hand, k, who, asso)}
        </p>
        {verdict && <PlayVerdict play={verdict} />}
      </div>
      <div class="replay-board">
        {seatBox(around.top, "top")}
        {seatBox(around.left, "left")}
        <div class="replay-middle">
          {play && (
            <div class="replay-play">
              <ShownCard code={play.card} mark="played" />
              {play.capture.length > 0 && <span class="replay-arrow" aria-hidden="true">→</span>}
              {play.capture.map((c) => <ShownCard key={c} code={c} mark="taken" />)}
            </div>
          )}
          <div class="replay-table" role="list" aria-label={tx("Table", "Tavolo")}>
            {state.table.length === 0 && <span class="replay-empty" role="listitem">{tx("The table is empty", "Il tavolo è vuoto")}</span>}
            {state.table.map((c) => (
              <span role="listitem" key={c}>
                <ShownCard code={c} mark={c === play?.card && !taken.has(c) ? "played" : undefined} />
              </span>
            ))}
          </div>
          <p class="replay-piles">
            {tx(`Taken: team A ${piles.A.length}, team B ${piles.B.length}`, `Prese: squadra A ${piles.A.length}, squadra B ${piles.B.length}`)}
            {(state.scope[0] + state.scope[2] > 0 || state.scope[1] + state.scope[3] > 0) &&
              tx(` · scope A ${state.scope[0] + state.scope[2]}, B ${state.scope[1] + state.scope[3]}`, ` · scope A ${state.scope[0] + state.scope[2]}, B ${state.scope[1] + state.scope[3]}`)}
          </p>
        </div>
        {seatBox(around.right, "right")}
        {seatBox(around.bottom, "bottom")}
      </div>
      {k === hand.plays.length && hand.plays.length === CARDS_PER_HAND && <HandTally piles={piles} mine={mine?.team} />}
    </section>
  );
}
