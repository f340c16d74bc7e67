// The table while a hand is played: your hand at the bottom, your partner across, the opponents
// left and right, the table cards in the middle. Playable cards and their captures come only
// from the view's `legal` list, so nothing the server would refuse can be sent.

import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import {
  candidateCards,
  captureLabel,
  intentFor,
  playableCards,
  playMessage,
  pickTableCard,
  type PlayMessage,
} from "../captures";
import { isPracticeView, yourSeatTakenOver } from "../bots";
import { SeatMarks, useBotLevels } from "../botmarks";
import { CardBack, CardButton } from "../cards";
import { cardName } from "../deck";
import { usingKeyboard } from "../inputmode";
import { lastPlayText, playerName, relation, seatsAround, turnText } from "../describe";
import { tx } from "../i18n";
import { LeaveMatch, TakeBack } from "../seatcontrols";
import type { BotLevel, GamePlayer, GameView } from "../types";
import type { GameConnection } from "../usegame";
import { Countdown, TeamBadge } from "../widgets";

interface Choosing {
  card: string;
  captures: string[][];
  picked: string[];
}

export function ScoreBoard({ view }: { view: GameView }) {
  const mine = view.players.find((p) => p.seat === view.you)?.team;
  const target = view.options?.target_score;
  return (
    <div class="scoreboard" role="group" aria-label={tx("Match score", "Punteggio della partita")}>
      <span class={`score team-A${mine === "A" ? " is-mine" : ""}`}>
        <TeamBadge team="A" mine={mine === "A"} /> <strong>{view.scores.A}</strong>
      </span>
      <span class="score-sep" aria-hidden="true">–</span>
      <span class={`score team-B${mine === "B" ? " is-mine" : ""}`}>
        <strong>{view.scores.B}</strong> <TeamBadge team="B" mine={mine === "B"} />
      </span>
      <span class="score-meta">
        {tx(`Hand ${view.hand_number}`, `Mano ${view.hand_number}`)}
        {target !== undefined && <> · {tx(`playing to ${String(target)}`, `si gioca a ${String(target)}`)}</>}
      </span>
    </div>
  );
}

function Scope({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span class="scope" title={`${count} scop${count === 1 ? "a" : "e"}`}>
      <span aria-hidden="true">{"★".repeat(Math.min(count, 6))}</span>
      <span class="visually-hidden">{count} scop{count === 1 ? "a" : "e"}</span>
      {count > 6 && <span aria-hidden="true">+{count - 6}</span>}
    </span>
  );
}

export function SeatInfo({ view, player, levels }: { view: GameView; player: GamePlayer; levels?: BotLevel[] }) {
  const rel = relation(view, player);
  const isYou = player.seat === view.you;
  return (
    <div class="seat-info" data-testid="seat-info" data-seat={player.seat}>
      <span class="seat-player">
        <span class="seat-player-name">{isYou ? tx("You", "Tu") : playerName(view, player.seat)}</span>
        <span class={`seat-rel team-${player.team}`}>
          {isYou ? tx(`team ${player.team}`, `squadra ${player.team}`) : tx(`${rel}, team ${player.team}`, `${rel}, squadra ${player.team}`)}
        </span>
        <SeatMarks player={player} levels={levels} yours={isYou} />
      </span>
      <span class="seat-stats">
        <span title={tx("Cards captured this hand", "Carte prese in questa mano")}>{tx(`taken ${player.captured_count}`, `prese ${player.captured_count}`)}</span>
        <Scope count={player.scope} />
      </span>
    </div>
  );
}

function Opponent({ view, seat, where, levels }: {
  view: GameView;
  seat: number;
  where: "left" | "top" | "right";
  levels: BotLevel[];
}) {
  const player = view.players.find((p) => p.seat === seat);
  if (!player) return null;
  const onTurn = view.turn === seat;
  const backs = Math.min(player.card_count, 10);
  return (
    <div class={`seat seat-${where}${onTurn ? " is-on-turn" : ""}`}>
      <SeatInfo view={view} player={player} levels={levels} />
      <div
        class="backs"
        role="img"
        aria-label={tx(
          `${playerName(view, seat)} holds ${player.card_count} card${player.card_count === 1 ? "" : "s"}`,
          `${playerName(view, seat)} ha ${player.card_count} cart${player.card_count === 1 ? "a" : "e"} in mano`,
        )}
      >
        {Array.from({ length: backs }, (_, i) => (
          <span class="back" key={i} style={{ "--i": i }}>
            <CardBack />
          </span>
        ))}
        <span class="back-count" aria-hidden="true">{player.card_count}</span>
      </div>
      {onTurn && <span class="on-turn-tag">{tx("to play", "di turno")}</span>}
    </div>
  );
}

/** The seed commitment, shown during play so the deal check at the end has something to match. */
function Fingerprint({ commitment }: { commitment: string }) {
  if (!commitment) return null;
  return (
    <details class="fingerprint">
      <summary>
        {tx("Fair deal · fingerprint", "Smazzata equa · impronta")} <code>{commitment.slice(0, 12)}…</code>
      </summary>
      <p>
        {tx(
          "Before the first card, the server fixed a secret seed that decides every deal of this match, and this is its SHA-256 fingerprint (the seed commitment). The seed is revealed when the game ends; your browser then checks that it has this fingerprint and that it deals exactly the cards that were played.",
          "Prima della prima carta il server ha fissato un seed segreto che decide ogni smazzata di questa partita, e questa è la sua impronta SHA-256 (l'impegno del seed). Il seed viene rivelato a fine partita; il tuo browser controlla allora che abbia questa impronta e che distribuisca esattamente le carte giocate.",
        )}
      </p>
      <code class="fingerprint-full">{commitment}</code>
    </details>
  );
}

export function TableScreen({ view, game, alert }: { view: GameView; game: GameConnection; alert: ComponentChildren }) {
  const [choosing, setChoosing] = useState<Choosing | null>(null);
  const chooserRef = useRef<HTMLDivElement>(null);
  const handRef = useRef<HTMLDivElement>(null);
  const levels = useBotLevels(view.game_type);

  // A new view (any change at the table) ends a choice that was made for the old one.
  useEffect(() => setChoosing(null), [view.revision]);

  // When the choice opens, put the keyboard on its first option.
  const choosingCard = choosing?.card;
  useEffect(() => {
    if (choosingCard) chooserRef.current?.querySelector<HTMLButtonElement>("button")?.focus();
  }, [choosingCard]);

  const connected = game.connection === "open";
  const waiting = game.state.pendingRevision !== null;
  // While a bot plays your seat the cards are its to play, until you take the seat back.
  const takenOver = yourSeatTakenOver(view);
  const canAct = connected && !waiting && !takenOver && Boolean(view.your_turn);

  // Your turn comes round: a keyboard player's focus goes to the first playable card, unless
  // it is somewhere else on purpose (a link, the chooser).
  useEffect(() => {
    if (!canAct || !usingKeyboard()) return;
    const active = document.activeElement;
    if (active && active !== document.body && !handRef.current?.contains(active)) return;
    handRef.current?.querySelector<HTMLButtonElement>("button.is-enabled")?.focus();
  }, [canAct, view.revision]);

  // Closing the chooser gives the keyboard back to the card it was opened for.
  const cancel = () => {
    const card = choosing?.card;
    setChoosing(null);
    if (card) handRef.current?.querySelector<HTMLButtonElement>(`[data-card="${card}"]`)?.focus();
  };

  useEffect(() => {
    if (!choosing) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") cancel();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [choosing]);

  const playable = canAct ? playableCards(view) : new Set<string>();
  const candidates = choosing ? candidateCards(choosing.captures) : new Set<string>();

  const send = (message: PlayMessage) => {
    setChoosing(null);
    game.send(message, view.revision);
  };

  const pickHand = (card: string) => {
    if (choosing?.card === card) return cancel();
    const intent = intentFor(view, card);
    if (intent.kind === "play") send(intent.message);
    else if (intent.kind === "choose") setChoosing({ card, captures: intent.captures, picked: [] });
  };

  const pickTable = (card: string) => {
    if (!choosing) return;
    const { picked, chosen } = pickTableCard(choosing.captures, choosing.picked, card);
    if (chosen) send(playMessage(choosing.card, chosen, view.revision));
    else setChoosing({ ...choosing, picked });
  };

  const seats = seatsAround(view.you);
  const me = view.players.find((p) => p.seat === view.you);
  const turn = turnText(view);
  const yourTurn = Boolean(view.your_turn);

  let help: string;
  if (takenOver) help = tx("A bot is playing your seat: take it back to play your cards.", "Un bot sta giocando al tuo posto: riprendilo per giocare le tue carte.");
  else if (!connected) help = tx("Not connected: your cards wake up again as soon as the table is back.", "Non connesso: le tue carte si riattivano appena il tavolo torna.");
  else if (waiting) help = tx("Sending your card…", "Invio della carta…");
  else if (choosing)
    help = tx(
      `Your ${cardName(choosing.card)} can take more than one set: choose one below, or tap the highlighted table cards.`,
      `Il tuo ${cardName(choosing.card)} può prendere più di una combinazione: scegline una qui sotto, o tocca le carte evidenziate sul tavolo.`,
    );
  else if (yourTurn)
    help = tx(
      "Pick a card to play. A card that can capture takes its cards; if it can take different sets, you choose which.",
      "Scegli una carta da giocare. Una carta che può prendere prende le sue carte; se può prendere combinazioni diverse, scegli tu quale.",
    );
  else
    help = tx(
      `Waiting for ${playerName(view, view.turn ?? 0)} to play. Your playable cards light up when it is your turn.`,
      `In attesa che giochi ${playerName(view, view.turn ?? 0)}. Le carte che puoi giocare si illuminano quando tocca a te.`,
    );

  return (
    <section class="table-screen" data-testid="screen-table">
      <div class="table-top">
        <ScoreBoard view={view} />
        <div class={`turn${yourTurn ? " is-yours" : ""}`}>
          <span class="turn-text" data-testid="turn-indicator" aria-live="polite">
            {turn}
          </span>
          <Countdown deadline={view.turn_deadline} label={tx("Time left:", "Tempo rimasto:")} />
        </div>
      </div>
      {alert}
      <div class="felt">
        <Opponent view={view} seat={seats.top} where="top" levels={levels} />
        <Opponent view={view} seat={seats.left} where="left" levels={levels} />
        <div class="table-middle">
          <div class="table-cards" role="region" aria-label={tx("Table", "Tavolo")}>
            {view.table.length === 0 && <p class="table-empty">{tx("The table is empty", "Il tavolo è vuoto")}</p>}
            {view.table.map((card) => (
              <CardButton
                key={card}
                code={card}
                enabled={candidates.has(card)}
                highlighted={candidates.has(card)}
                selected={choosing?.picked.includes(card)}
                pressed={candidates.has(card) ? Boolean(choosing?.picked.includes(card)) : undefined}
                onPick={pickTable}
              />
            ))}
          </div>
          <p class={`last-play${view.last_play?.scopa ? " is-scopa" : ""}`} data-testid="last-play" aria-live="polite">
            {lastPlayText(view, view.last_play)}
          </p>
        </div>
        <Opponent view={view} seat={seats.right} where="right" levels={levels} />
        <div class={`seat seat-bottom${view.turn === view.you ? " is-on-turn" : ""}`}>
          {me && <SeatInfo view={view} player={me} levels={levels} />}
          {choosing && (
            <div class="chooser" role="group" aria-label={tx("Choose a capture", "Scegli una presa")} ref={chooserRef}>
              <span class="chooser-title">{tx(`Capture with your ${cardName(choosing.card)}:`, `Prendi con il tuo ${cardName(choosing.card)}:`)}</span>
              {choosing.captures.map((capture) => (
                <button
                  type="button"
                  class="button"
                  key={capture.join(",")}
                  onClick={() => send(playMessage(choosing.card, capture, view.revision))}
                >
                  {captureLabel(capture)}
                </button>
              ))}
              <button type="button" class="button secondary" onClick={cancel}>
                {tx("Cancel", "Annulla")}
              </button>
            </div>
          )}
          <div class={`hand${canAct ? " is-your-turn" : ""}`} role="region" aria-label={tx("Your hand", "La tua mano")} ref={handRef}>
            {view.hand.length === 0 && <p class="table-empty">{tx("No cards left in your hand", "Non hai più carte in mano")}</p>}
            {view.hand.map((card) => (
              <CardButton
                key={card}
                code={card}
                enabled={playable.has(card)}
                selected={choosing?.card === card}
                onPick={pickHand}
              />
            ))}
          </div>
          {/* Under the hand, so its coming and going never moves a card from under a finger. */}
          <TakeBack view={view} game={game} />
        </div>
      </div>
      <p class="helper table-help">{help}</p>
      <Fingerprint commitment={view.seed_commitment} />
      {!takenOver && <LeaveMatch id={view.id} practice={isPracticeView(view)} />}
    </section>
  );
}
