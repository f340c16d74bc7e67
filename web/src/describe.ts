// Sentences the table shows: where each seat sits, whose turn it is, what the last play did.

import { displayName } from "./bots";
import { cardName, cardPhrase, cardsPhrase, cardList } from "./deck";
import { aItalian, pointsItalian, tx } from "./i18n";
import { paceChoiceText } from "./tables";
import type { GamePlayer, GameView, LastPlay } from "./types";

/**
 * Where each seat sits as seen by `you`. Play goes 0 -> 1 -> 2 -> 3, counter-clockwise as in
 * Italian card games, so the next player sits on your right and the previous on your left.
 */
export function seatsAround(you: number): { bottom: number; right: number; top: number; left: number } {
  return { bottom: you, right: (you + 1) % 4, top: (you + 2) % 4, left: (you + 3) % 4 };
}

export function playerName(view: Pick<GameView, "players">, seat: number): string {
  const p = view.players.find((x) => x.seat === seat);
  return (p && displayName(p)) || tx(`Seat ${seat + 1}`, `Posto ${seat + 1}`);
}

export function whoText(view: GameView, seat: number): string {
  return seat === view.you ? tx("You", "Tu") : playerName(view, seat);
}

/** "bob played 5 of spade and took 2 of coppe, 3 of denari. Scopa!" ("bob ha giocato il 5 di
 * spade e ha preso il 2 di coppe e il 3 di denari. Scopa!"). A card that ended up in the player's
 * pile with no capture listed (an asso pigliatutto on an empty table) says so when ``taken``. */
export function lastPlayText(view: GameView, play: LastPlay | null): string {
  if (!play) return tx("No card has been played yet in this hand.", "In questa mano non è ancora stata giocata nessuna carta.");
  const mine = play.seat === view.you;
  const who = playerName(view, play.seat);
  const en = cardName(play.card);
  const it = cardPhrase(play.card);
  let text: string;
  if (play.auto) {
    text = mine
      ? tx(`Your time ran out: ${en} was auto-played`, `Il tuo tempo è scaduto: ${it} è stato giocato in automatico`)
      : tx(`${who}'s time ran out: ${en} was auto-played`, `Il tempo di ${who} è scaduto: ${it} è stato giocato in automatico`);
  } else {
    text = mine ? tx(`You played ${en}`, `Hai giocato ${it}`) : tx(`${who} played ${en}`, `${who} ha giocato ${it}`);
  }
  text += play.capture.length > 0
    ? tx(` and took ${cardList(play.capture)}.`, ` e ${mine && !play.auto ? "hai" : "ha"} preso ${cardsPhrase(play.capture)}.`)
    : tx(" on the table.", " sul tavolo.");
  if (play.scopa) text += " Scopa!";
  return text;
}

/** A short line for a play in the list of the hand's plays: "bob: 5 of spade, took 2 of coppe"
 * ("bob gioca il 5 di spade e prende il 2 di coppe"). */
export function playLine(view: Pick<GameView, "players" | "you">, play: LastPlay): string {
  const mine = play.seat === view.you;
  const who = mine ? tx("You", "Tu") : playerName(view, play.seat);
  const took = play.capture.length > 0;
  const en = `${who}: ${cardName(play.card)}${took ? `, took ${cardList(play.capture)}` : " on the table"}`;
  const it = mine
    ? `Giochi ${cardPhrase(play.card)}${took ? ` e prendi ${cardsPhrase(play.capture)}` : " sul tavolo"}`
    : `${who} gioca ${cardPhrase(play.card)}${took ? ` e prende ${cardsPhrase(play.capture)}` : " sul tavolo"}`;
  return `${tx(en, it)}${play.scopa ? " · Scopa!" : ""}${play.auto ? tx(" (auto)", " (automatica)") : ""}`;
}

/**
 * The seat that dealt the current hand: the view's `dealer`; a game whose options lack
 * `first_dealer` (made before the first dealer was drawn) follows the old rule, hand 1 led by
 * seat 0 and each hand by the next seat. Null when it cannot be known.
 */
export function dealerOf(view: Pick<GameView, "hand_number" | "options"> & { dealer?: number | null }): number | null {
  if (typeof view.dealer === "number") return view.dealer;
  if (view.options?.first_dealer !== undefined || !(view.hand_number >= 1)) return null;
  return (view.hand_number + 2) % 4;
}

/** The seat that leads the current hand (di mano): the one after the dealer. */
export function leaderOf(view: Parameters<typeof dealerOf>[0]): number | null {
  const dealer = dealerOf(view);
  return dealer === null ? null : (dealer + 1) % 4;
}

/** "dealer" / "mazziere", "leads" / "di mano": a seat's part in the current hand, or "". */
export function seatRoleText(view: Parameters<typeof dealerOf>[0], seat: number): string {
  if (dealerOf(view) === seat) return tx("dealer", "mazziere");
  if (leaderOf(view) === seat) return tx("leads", "di mano");
  return "";
}

export function turnText(view: GameView): string {
  if (view.status !== "playing" || view.turn === null || view.turn === undefined) return "";
  if (view.your_turn || view.turn === view.you) return tx("Your turn", "Tocca a te");
  return tx(`${playerName(view, view.turn)}'s turn`, `Tocca ${aItalian(playerName(view, view.turn))}`);
}

export function relation(view: GameView, player: GamePlayer): string {
  if (player.seat === view.you) return tx("you", "tu");
  return player.team === view.players.find((p) => p.seat === view.you)?.team
    ? tx("partner", "compagno")
    : tx("opponent", "avversario");
}

/**
 * Why the match goes on after a hand: how far each team is from the target, or, when both
 * reached it with the same score (the rules want a clear lead), that another hand decides.
 * Empty when the view carries no target.
 */
export function matchGoesOnText(view: GameView): string {
  const target = Number(view.options?.target_score);
  if (!Number.isFinite(target) || target <= 0) return "";
  const scores = view.last_hand?.scores ?? view.scores;
  if (scores.A >= target || scores.B >= target) {
    if (scores.A === scores.B) {
      return tx(
        `Both teams have ${scores.A}, and the target is ${target}: a team needs a clear lead to win, so another hand decides.`,
        `Le due squadre sono pari a ${pointsWord(scores.A)} e si gioca ${pointsItalian(target)}: per vincere bisogna essere in vantaggio, quindi decide un'altra mano.`,
      );
    }
    return "";
  }
  const mine = view.players.find((p) => p.seat === view.you)?.team;
  const need = (team: "A" | "B") => target - scores[team];
  const part = (team: "A" | "B") =>
    mine === team
      ? tx(`your team needs ${need(team)} more`, `alla tua squadra ${missing(need(team))}`)
      : tx(`team ${team} needs ${need(team)} more`, `alla squadra ${team} ${missing(need(team))}`);
  const first: "A" | "B" = mine === "B" ? "B" : "A";
  const second: "A" | "B" = first === "A" ? "B" : "A";
  return tx(`The match goes on to ${target} points: ${part(first)}, ${part(second)}.`,
    `La partita continua fino ${pointsItalian(target)}: ${part(first)}, ${part(second)}.`);
}

/** "1 punto", "12 punti". */
function pointsWord(n: number): string {
  return n === 1 ? "1 punto" : `${n} punti`;
}

/** "manca 1 punto", "mancano 4 punti". */
function missing(n: number): string {
  return n === 1 ? "manca 1 punto" : `mancano ${n} punti`;
}

/** The one-line tip a newcomer is offered at the end of their first hand. */
export function firstHandHint(): string {
  return tx(
    "Tip: before you lay a card, add up the table. If one card can take everything there, the next player may sweep it for a scopa.",
    "Consiglio: prima di calare una carta, somma quelle sul tavolo. Se una sola carta può prenderle tutte, il prossimo giocatore può fare scopa.",
  );
}

/** The waiting room's invitation: as many friends as there are open seats; at a table open to
 * anyone (quick match seats strangers there) the seats fill from the Play page, a friend too. */
export function inviteText(seatsOpen: number, open = false): string {
  if (seatsOpen <= 0) return tx("Every seat is taken: the table is opening.", "Tutti i posti sono occupati: la partita sta per cominciare.");
  if (open) {
    const seats = seatsOpen === 1 ? tx("the open seat", "il posto libero") : tx(`one of the ${seatsOpen} open seats`, `uno dei ${seatsOpen} posti liberi`);
    return tx(
      `This table is open to anyone: a player can take ${seats} from the Play page, and the table opens by itself as soon as the fourth player sits down. You can also send the code or the link to a friend.`,
      `Questo tavolo è aperto a tutti: chiunque può prendere ${seats} dalla pagina Gioca, e la partita comincia da sola appena si siede il quarto giocatore. Puoi anche mandare il codice o il link a un amico.`,
    );
  }
  const who = tx(
    ["one more friend", "two more friends", "three friends"][seatsOpen - 1] ?? `${seatsOpen} friends`,
    ["un altro amico", "altri due amici", "tre amici"][seatsOpen - 1] ?? `${seatsOpen} amici`,
  );
  return tx(
    `Send the code or the link to ${who}. The table opens by itself as soon as the fourth player sits down; you can keep this page open or come back to it from the start page.`,
    `Manda il codice o il link ${aItalian(who)}. La partita comincia da sola appena si siede il quarto giocatore; puoi tenere aperta questa pagina o tornarci dalla pagina iniziale.`,
  );
}

// How the known options read in a sentence; any other reads by its title (see rulesText).
const OPTION_WORDS: Record<string, { on: [string, string]; off: [string, string] }> = {
  napola: { on: ["with napola", "con la napola"], off: ["without napola", "senza napola"] },
  asso_pigliatutto: {
    on: ["with asso pigliatutto", "con l'asso pigliatutto"],
    off: ["without asso pigliatutto", "senza asso pigliatutto"],
  },
};

/**
 * A table's rules in words: "To 11 points · with napola · without asso pigliatutto" ("Agli 11
 * punti · con la napola · senza asso pigliatutto"). ``titles`` names the options of the game type
 * this page does not know (from its options_schema).
 */
export function rulesText(options: Record<string, unknown>, titles: Record<string, string> = {}): string {
  const parts: string[] = [];
  const target = options.target_score;
  if (typeof target === "number") parts.push(tx(`to ${target} point${target === 1 ? "" : "s"}`, pointsItalian(target)));
  for (const [key, value] of Object.entries(options)) {
    if (key === "target_score") continue;
    if (key === "pace") {
      parts.push(paceChoiceText(value === "daily" ? "daily" : "live"));
      continue;
    }
    const known = OPTION_WORDS[key];
    const title = titles[key] ?? key.replace(/_/g, " ");
    if (typeof value === "boolean") {
      if (known) parts.push(tx(...(value ? known.on : known.off)));
      else parts.push(value ? tx(`with ${title}`, `con ${title}`) : tx(`without ${title}`, `senza ${title}`));
    } else {
      parts.push(`${title}: ${String(value)}`);
    }
  }
  const text = parts.join(" · ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "1 seat open", "3 seats open" ("1 posto libero", "3 posti liberi"). */
export function seatsOpenText(n: number): string {
  return n === 1 ? tx("1 seat open", "1 posto libero") : tx(`${n} seats open`, `${n} posti liberi`);
}
