// Sentences the table shows: where each seat sits, whose turn it is, what the last play did.

import { cardList, cardName } from "./deck";
import type { GamePlayer, GameView, LastPlay } from "./types";

/**
 * Where each seat sits as seen by `you`. Play goes 0 -> 1 -> 2 -> 3, counter-clockwise as in
 * Italian card games, so the next player sits on your right and the previous on your left.
 */
export function seatsAround(you: number): { bottom: number; right: number; top: number; left: number } {
  return { bottom: you, right: (you + 1) % 4, top: (you + 2) % 4, left: (you + 3) % 4 };
}

export function playerName(view: GameView, seat: number): string {
  const p = view.players.find((x) => x.seat === seat);
  return p?.name || `Seat ${seat + 1}`;
}

export function whoText(view: GameView, seat: number): string {
  return seat === view.you ? "You" : playerName(view, seat);
}

/** "bob played 5 of spade and took 2 of coppe, 3 of denari. Scopa!" */
export function lastPlayText(view: GameView, play: LastPlay | null): string {
  if (!play) return "No card has been played yet in this hand.";
  const who = whoText(view, play.seat);
  let text = play.auto
    ? `${who === "You" ? "Your" : `${who}'s`} time ran out: ${cardName(play.card)} was auto-played`
    : `${who} played ${cardName(play.card)}`;
  text += play.capture.length > 0 ? ` and took ${cardList(play.capture)}.` : " on the table.";
  if (play.scopa) text += " Scopa!";
  return text;
}

export function turnText(view: GameView): string {
  if (view.status !== "playing" || view.turn === null || view.turn === undefined) return "";
  if (view.your_turn || view.turn === view.you) return "Your turn";
  return `${playerName(view, view.turn)}'s turn`;
}

export function relation(view: GameView, player: GamePlayer): string {
  if (player.seat === view.you) return "you";
  return player.team === view.players.find((p) => p.seat === view.you)?.team ? "partner" : "opponent";
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
      return `Both teams have ${scores.A}, and the target is ${target}: a team needs a clear lead to win, so another hand decides.`;
    }
    return "";
  }
  const mine = view.players.find((p) => p.seat === view.you)?.team;
  const need = (team: "A" | "B") => target - scores[team];
  const part = (team: "A" | "B") =>
    `${mine === team ? "your team" : `team ${team}`} needs ${need(team)} more`;
  const first: "A" | "B" = mine === "B" ? "B" : "A";
  const second: "A" | "B" = first === "A" ? "B" : "A";
  return `The match goes on to ${target} points: ${part(first)}, ${part(second)}.`;
}

/** The waiting room's invitation: as many friends as there are open seats. */
export function inviteText(seatsOpen: number): string {
  if (seatsOpen <= 0) return "Every seat is taken: the table is opening.";
  const who = ["one more friend", "two more friends", "three friends"][seatsOpen - 1] ?? `${seatsOpen} friends`;
  return `Send the code or the link to ${who}. The table opens by itself as soon as the fourth player sits down; you can keep this page open or come back to it from the start page.`;
}
