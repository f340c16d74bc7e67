// The table while a hand is played, laid out to fit a phone's screen in either orientation
// without scrolling: a bar with the score, whose turn it is and the time left; your partner
// across, the opponents left and right, the table cards and the hand's last plays in the middle;
// your hand at the bottom. Playable cards and their captures come only from the view's `legal`
// list, so nothing the server would refuse can be sent.
//
// Every play is shown: the card laid comes onto the table from its player's side and stays lit
// until the next play; a capture leaves the cards it took on the table, lit, for a moment; the
// hand's plays are listed, the newest four always in view. At the end of a hand the table stays
// with its last play and the last cards going to the last capture (the "closing" view) before
// the summary.

import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { setSound, useSound } from "../alerts";
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
import { PersonIcon, RobotIcon, SeatMarks, useBotLevels } from "../botmarks";
import { CardBack, CardButton, CardFace } from "../cards";
import { cardName, cardsPhrase, cardList } from "../deck";
import { usingKeyboard } from "../inputmode";
import { PlayerLink } from "../playerlink";
import { lastPlayText, playerName, playLine, relation, seatRoleText, seatsAround, turnText } from "../describe";
import { aItalian, pointsItalian, tx, useLang } from "../i18n";
import { TAKEN_MS } from "../pacing";
import { playsDown, takenBy, type Sweep, type Trail, type TrailPlay } from "../plays";
import { LeaveMatch, TakeBack } from "../seatcontrols";
import type { BotLevel, GamePlayer, GameView } from "../types";
import type { GameConnection } from "../usegame";
import { WatcherCount } from "../chatdrawer";
import { Countdown, LanguageSwitch, SpeakerIcon, TeamBadge, TurnRing } from "../widgets";

interface Choosing {
  card: string;
  captures: string[][];
  picked: string[];
}

type Where = "bottom" | "right" | "top" | "left";

export function ScoreBoard({ view, compact = false }: { view: GameView; compact?: boolean }) {
  const mine = view.players.find((p) => p.seat === view.you)?.team;
  const target = view.options?.target_score;
  const team = (t: "A" | "B") =>
    compact ? (
      <span class={`team-letter team-${t}`}>
        <span aria-hidden="true">{t}</span>
        <span class="visually-hidden">{tx(`Team ${t}`, `Squadra ${t}`)}{mine === t ? tx(" (yours)", " (la tua)") : ""}</span>
      </span>
    ) : (
      <TeamBadge team={t} mine={mine === t} />
    );
  return (
    <div class={`scoreboard${compact ? " is-compact" : ""}`} role="group" aria-label={tx("Match score", "Punteggio della partita")}>
      <span class={`score team-A${mine === "A" ? " is-mine" : ""}`}>
        {team("A")} <strong>{view.scores.A}</strong>
      </span>
      <span class="score-sep" aria-hidden="true">–</span>
      <span class={`score team-B${mine === "B" ? " is-mine" : ""}`}>
        <strong>{view.scores.B}</strong> {team("B")}
      </span>
      <span class="score-meta">
        {tx(`Hand ${view.hand_number}`, `Mano ${view.hand_number}`)}
        {target !== undefined && <> · {tx(`playing to ${String(target)}`, `si gioca ${pointsItalian(Number(target))}`)}</>}
      </span>
    </div>
  );
}

export function Scope({ count }: { count: number }) {
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
  const name = isYou ? tx("You", "Tu") : playerName(view, player.seat);
  const role = seatRoleText(view, player.seat);
  return (
    <div class="seat-info" data-testid="seat-info" data-seat={player.seat}>
      <span class="seat-player">
        {isYou ? (
          <span class="seat-player-name" title={name}>{name}</span>
        ) : (
          // Opens beside the table: the hand goes on while the page is read.
          <PlayerLink who={player} class="seat-player-name" title={name} newTab>{name}</PlayerLink>
        )}
        {role && <span class="seat-role" data-testid="seat-role">{role}</span>}
        <span class={`seat-rel team-${player.team}`}>
          {isYou ? tx(`team ${player.team}`, `squadra ${player.team}`) : tx(`${rel}, team ${player.team}`, `${rel}, squadra ${player.team}`)}
        </span>
        <SeatMarks player={player} levels={levels} yours={isYou} />
      </span>
      <span class="seat-stats">
        <span title={tx("Cards captured this hand", "Carte prese in questa mano")}>{tx(`taken ${player.captured_count}`, `${player.captured_count} carte prese`)}</span>
        <Scope count={player.scope} />
      </span>
    </div>
  );
}

/** A round badge for the seat (a person, or a robot for a bot; nothing to read twice: the name
 * is beside it); the seat on turn wears the ring of its time left. */
export function Avatar({ view, player, onTurn }: { view: GameView; player: GamePlayer; onTurn: boolean }) {
  return (
    <span class={`avatar team-${player.team}${onTurn ? " is-on-turn" : ""}`} aria-hidden="true">
      {player.bot ? <RobotIcon /> : <PersonIcon />}
      {onTurn && <TurnRing deadline={view.turn_deadline} />}
    </span>
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
      <Avatar view={view} player={player} onTurn={onTurn} />
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
          "Prima della prima carta il server ha fissato un seed segreto che decide ogni smazzata di questa partita, e questa è la sua impronta SHA-256. Il seed viene rivelato a fine partita; il tuo browser controlla allora che abbia questa impronta e che distribuisca esattamente le carte giocate.",
        )}
      </p>
      <code class="fingerprint-full">{commitment}</code>
    </details>
  );
}

/** The sound of your turn: off until turned on, remembered. */
export function SoundToggle() {
  const on = useSound();
  return (
    <button
      type="button"
      class="bar-icon"
      aria-pressed={on ? "true" : "false"}
      aria-label={tx("Sound when it is your turn", "Suono quando tocca a te")}
      title={on ? tx("Sound on", "Suono attivo") : tx("Sound off", "Suono spento")}
      onClick={() => setSound(!on)}
    >
      <SpeakerIcon on={on} />
    </button>
  );
}

/** The table's menu: the rules (in a new tab, the table stays open), the language, the deal's
 * fingerprint and leaving the match; the table keeps the whole screen. A spectator's table has it
 * too, without a player's entries. */
export function TableMenu({ children }: { children?: ComponentChildren }) {
  const lang = useLang();
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const close = (e: Event) => {
      if (ref.current?.open && !ref.current.contains(e.target as Node)) ref.current.open = false;
    };
    // Escape closes it, and the keyboard is back on the menu's button.
    const escape = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || !ref.current?.open) return;
      ref.current.open = false;
      ref.current.querySelector<HTMLElement>("summary")?.focus();
    };
    document.addEventListener("pointerdown", close);
    document.addEventListener("keydown", escape);
    return () => {
      document.removeEventListener("pointerdown", close);
      document.removeEventListener("keydown", escape);
    };
  }, []);
  return (
    <details class="table-menu" ref={ref}>
      <summary class="bar-icon" aria-label={tx("Menu", "Menu")}>
        <span aria-hidden="true">☰</span>
      </summary>
      <div class="menu-panel">
        <a href="/rules" target="_blank" rel="noopener">{tx("Rules of scopone", "Regole dello scopone")}</a>
        <a href="/">{tx("Start page", "Pagina iniziale")}</a>
        <LanguageSwitch current={lang} />
        {children}
      </div>
    </details>
  );
}

/** Where a seat sits as the viewer sees it. */
function whereOf(view: GameView, seat: number): Where {
  // A spectator (no seat: `you` is negative) sees seat 0 at the bottom.
  const s = seatsAround(Math.max(0, view.you));
  return seat === s.bottom ? "bottom" : seat === s.right ? "right" : seat === s.top ? "top" : "left";
}

/** Which way a seat sits from the middle of the table. */
const ARROWS: Record<Where, string> = { bottom: "↓", right: "→", top: "↑", left: "←" };

/** The hand's plays, the newest last: the newest four always shown, every one on a tap. */
export function PlayTrail({ view, trail }: { view: GameView; trail: Trail | null }) {
  const plays = trail && trail.hand === view.hand_number ? trail.plays : [];
  if (plays.length === 0) return null;
  const recent = plays.slice(-4);
  const item = (p: TrailPlay) => {
    const player = view.players.find((x) => x.seat === p.seat);
    const name = p.seat === view.you ? tx("You", "Tu") : playerName(view, p.seat);
    const where = whereOf(view, p.seat);
    return (
      <li key={p.n} class={`trail-play team-${player?.team ?? "A"}${p.scopa ? " is-scopa" : ""}`}>
        <span class="mini-card" aria-hidden="true">
          <CardFace code={p.card} />
        </span>
        <span class="trail-who" aria-hidden="true">
          <span class="trail-dir">{ARROWS[where]}</span>
          <span class="trail-name">{name}</span>
          {p.capture.length > 0 && <span class="trail-took">+{p.capture.length}</span>}
          {p.scopa && <span class="trail-scopa">★</span>}
          {p.auto && <span class="trail-auto" title={tx("Time ran out: played automatically", "Tempo scaduto: giocata in automatico")}>auto</span>}
        </span>
        <span class="visually-hidden">{playLine(view, p)}</span>
      </li>
    );
  };
  return (
    <div class="trail-box">
      <ol class="trail" aria-label={tx("Last plays", "Ultime giocate")} start={recent[0].n}>
        {recent.map(item)}
      </ol>
      {plays.length > 4 && (
        <details class="trail-all">
          <summary>
            <span aria-hidden="true">≡ {plays.length}</span>
            <span class="visually-hidden">{tx(`All ${plays.length} plays`, `Tutte le ${plays.length} giocate`)}</span>
          </summary>
          <ol class="trail-list" aria-label={tx("Plays of this hand", "Giocate di questa mano")}>
            {[...plays].reverse().map((p) => (
              <li key={p.n}>
                <span class="trail-n">{p.n}.</span> {playLine(view, p)}
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

/** The arrow keys move the focus from card to card in a row of cards (the hand, the table);
 * Home and End go to the first and the last. */
export function moveAmongCards(e: KeyboardEvent): void {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
  if (step === undefined && e.key !== "Home" && e.key !== "End") return;
  const row = e.currentTarget as HTMLElement;
  const cards = [...row.querySelectorAll<HTMLButtonElement>("button[data-card]")];
  const at = cards.indexOf(document.activeElement as HTMLButtonElement);
  if (at < 0 || cards.length === 0) return;
  const next = e.key === "Home" ? 0 : e.key === "End" ? cards.length - 1 : (at + (step ?? 0) + cards.length) % cards.length;
  e.preventDefault();
  cards[next].focus();
}

/** A card lit on the table for a moment: taken by a capture, or swept at the end of the hand. */
function GhostCard({ code, kind, to }: { code: string; kind: "taken" | "swept"; to: Where }) {
  return (
    <span class={`card ghost is-${kind} to-${to}`} aria-hidden="true">
      <CardFace code={code} />
    </span>
  );
}

/** What the end of a hand shows while it is held on the table. */
export interface ClosingShow {
  sweep: Sweep;
  skip: () => void;
}

function sweepText(view: GameView, sweep: Sweep): string {
  if (sweep.cards.length === 0 || sweep.seat === null) {
    return tx("Hand over: no cards were left on the table.", "Mano finita: sul tavolo non è rimasta nessuna carta.");
  }
  const who = sweep.seat === view.you ? tx("you", "te") : playerName(view, sweep.seat);
  const n = sweep.cards.length;
  return tx(
    `Hand over: the last ${n === 1 ? "card" : `${n} cards`} (${cardList(sweep.cards)}) go to ${who}, who made the last capture.`,
    `Mano finita: ${n === 1 ? "l'ultima carta" : `le ultime ${n} carte`} (${cardsPhrase(sweep.cards)}) ${n === 1 ? "va" : "vanno"} ${sweep.seat === view.you ? "a te" : aItalian(who)}, che ha fatto l'ultima presa.`,
  );
}

export function TableScreen({ view, game, alert, trail = null, closing = null, notice = null, talk = null }: {
  view: GameView;
  game: GameConnection;
  alert: ComponentChildren;
  trail?: Trail | null;
  closing?: ClosingShow | null;
  /** Shown between the bar and the felt, in the flow (the felt makes room): a bot plays your seat. */
  notice?: ComponentChildren;
  /** The table talk's button (and its drawer), in the bar beside the sound. */
  talk?: ComponentChildren;
}) {
  const [choosing, setChoosing] = useState<Choosing | null>(null);
  const chooserRef = useRef<HTMLDivElement>(null);
  const handRef = useRef<HTMLDivElement>(null);
  const levels = useBotLevels(view.game_type);

  // A new view (any change at the table) ends a choice that was made for the old one.
  useEffect(() => setChoosing(null), [view.revision]);

  // A capture: the cards it took stay on the table, lit, for a moment (only for a play seen
  // arriving, not on the first view of a page).
  const [taken, setTaken] = useState<{ cards: string[]; seat: number } | null>(null);
  const lastDown = useRef<number | null>(null);
  useEffect(() => {
    const down = playsDown(view);
    const before = lastDown.current;
    lastDown.current = down;
    if (before === null || down !== before + 1 || !view.last_play) return;
    const cards = takenBy(view.last_play, view.table);
    if (cards.length > 0) setTaken({ cards, seat: view.last_play.seat });
  }, [view.revision]);
  useEffect(() => {
    if (!taken) return;
    const t = setTimeout(() => setTaken(null), TAKEN_MS);
    return () => clearTimeout(t);
  }, [taken]);

  // When the choice opens, put the keyboard on its first option.
  const choosingCard = choosing?.card;
  useEffect(() => {
    if (choosingCard) chooserRef.current?.querySelector<HTMLButtonElement>("button")?.focus();
  }, [choosingCard]);

  const connected = game.connection === "open";
  const waiting = game.state.pendingRevision !== null;
  // While a bot plays your seat the cards are its to play, until you take the seat back.
  const takenOver = yourSeatTakenOver(view);
  const canAct = !closing && connected && !waiting && !takenOver && Boolean(view.your_turn);

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
  const turn = closing ? tx("Hand over", "Mano finita") : turnText(view);
  const yourTurn = !closing && Boolean(view.your_turn);
  const last = view.last_play;
  const lastFrom = last ? whereOf(view, last.seat) : "bottom";

  let help: string;
  if (closing) help = sweepText(view, closing.sweep);
  else if (takenOver) help = tx("A bot is playing your seat: take it back to play your cards.", "Un bot sta giocando al tuo posto: riprendilo per giocare le tue carte.");
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
      "Scegli una carta da giocare. Se la carta può fare una presa, la fa; se le prese possibili sono più di una, scegli tu quale.",
    );
  else
    help = tx(
      `Waiting for ${playerName(view, view.turn ?? 0)} to play. Your playable cards light up when it is your turn.`,
      `In attesa che giochi ${playerName(view, view.turn ?? 0)}. Le carte che puoi giocare si illuminano quando tocca a te.`,
    );

  // The table as drawn: its cards, with the cards a capture just took (or the last cards of the
  // hand, when it is closing) lit among them in their sorted places.
  const ghosts = new Map<string, "taken" | "swept">();
  if (taken) taken.cards.forEach((c) => ghosts.set(c, "taken"));
  const tableCards = [...new Set([...view.table, ...ghosts.keys()])].sort();
  const sweptTo = closing?.sweep.seat !== null && closing?.sweep.seat !== undefined ? whereOf(view, closing.sweep.seat) : "bottom";
  const takenTo = taken ? whereOf(view, taken.seat) : "bottom";
  const count = tableCards.length;

  return (
    <section
      class={`table-screen${closing ? " is-closing" : ""}`}
      data-testid="screen-table"
      onClick={closing ? closing.skip : undefined}
    >
      <div class="table-play">
      {/* The page's heading and what to do now, for a screen reader (the table shows it). */}
      <h1 class="visually-hidden">{tx(`The table, hand ${view.hand_number}`, `Il tavolo, mano ${view.hand_number}`)}</h1>
      <p class="visually-hidden">{help}</p>
      <div class="table-bar">
        <a href="/" class="bar-home" aria-label={tx("tavolo, start page", "tavolo, pagina iniziale")}>
          <span aria-hidden="true">♦</span>
        </a>
        <ScoreBoard view={view} compact />
        <div class={`turn${yourTurn ? " is-yours" : ""}`}>
          <span class="turn-text" data-testid="turn-indicator" aria-live="polite">
            {turn}
          </span>
          {!closing && <Countdown deadline={view.turn_deadline} label={tx("Time left:", "Tempo rimasto:")} />}
        </div>
        {talk}
        <SoundToggle />
        <TableMenu>
          <Fingerprint commitment={view.seed_commitment} />
          {!takenOver && !closing && <LeaveMatch id={view.id} practice={isPracticeView(view)} />}
        </TableMenu>
      </div>
      {alert}
      {notice}
      <div class="felt">
        <Opponent view={view} seat={seats.top} where="top" levels={levels} />
        <Opponent view={view} seat={seats.left} where="left" levels={levels} />
        <div class="table-middle">
          <div class={`table-cards${count > 8 ? " is-crowded" : ""}${count > 12 ? " is-packed" : ""}`} role="region" aria-label={tx("Table", "Tavolo")}
            onKeyDown={moveAmongCards}>
            {count === 0 && <p class="table-empty">{tx("The table is empty", "Il tavolo è vuoto")}</p>}
            {tableCards.map((card) => {
              const ghost = ghosts.get(card);
              if (ghost && !view.table.includes(card)) return <GhostCard key={`g${card}`} code={card} kind={ghost} to={takenTo} />;
              const isLast = !taken && last?.card === card && !closing;
              const swept = Boolean(closing && closing.sweep.cards.includes(card));
              return (
                <CardButton
                  key={card}
                  code={card}
                  enabled={candidates.has(card)}
                  highlighted={candidates.has(card)}
                  selected={choosing?.picked.includes(card)}
                  pressed={candidates.has(card) ? Boolean(choosing?.picked.includes(card)) : undefined}
                  onPick={pickTable}
                  extraClass={isLast ? `is-last from-${lastFrom}` : swept ? `is-swept to-${sweptTo}` : undefined}
                />
              );
            })}
          </div>
          <p class={`last-play${last?.scopa ? " is-scopa" : ""}`} data-testid="last-play" aria-live="polite">
            {lastPlayText(view, last)}
          </p>
          <PlayTrail view={view} trail={trail} />
        </div>
        <Opponent view={view} seat={seats.right} where="right" levels={levels} />
        <div class={`seat seat-bottom${view.turn === view.you ? " is-on-turn" : ""}`}>
          <div class="seat-bottom-line">
            {me && <Avatar view={view} player={me} onTurn={view.turn === view.you && !closing} />}
            {me && <SeatInfo view={view} player={me} levels={levels} />}
            <TakeBack view={view} game={game} />
            <WatcherCount count={view.spectators} />
          </div>
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
          <div class={`hand${canAct ? " is-your-turn" : ""}`} role="region" aria-label={tx("Your hand", "La tua mano")} ref={handRef}
            onKeyDown={moveAmongCards}>
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
        </div>
        {closing && (
          <div class="closing-note" role="status">
            <p>{sweepText(view, closing.sweep)}</p>
            <button type="button" class="button" onClick={closing.skip}>
              {tx("See the hand's scoring", "Vedi il punteggio della mano")}
            </button>
          </div>
        )}
      </div>
      </div>
    </section>
  );
}
