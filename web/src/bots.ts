// Bots (CONTRACT, Bots): the levels a game type offers and their names, who may seat a bot in
// the waiting room (the creator), who plays each seat, when a practice player may take a card
// back, and the one-click game against the computer.

import { api, errorText } from "./api";
import { lang, tx } from "./i18n";
import type { AnyView, BotLevel, GameType, GameView, LobbyView, Options, SeatOccupant } from "./types";
import { isLobby } from "./types";

/** The level the app offers first, and the one a bot that takes over a seat plays at. */
export const DEFAULT_BOT_LEVEL = "esperto";
/** The level offered to a member who has not finished a match yet: an esperto crushes a newcomer. */
export const FIRST_MATCH_LEVEL = "principiante";

// The server names its levels in English; the ones it has today are said in Italian here (a new
// level shows the server's name until it is added), and in English before the types arrive.
const LEVEL_NAMES: Record<string, { en: string; it: string }> = {
  principiante: { en: "Beginner", it: "Principiante" },
  esperto: { en: "Expert", it: "Esperto" },
  maestro: { en: "Master", it: "Maestro" },
};

/** The type's bot levels, weakest first (none when it offers no bots). */
export function botLevels(type: Pick<GameType, "bot_levels"> | undefined | null): BotLevel[] {
  return type?.bot_levels ?? [];
}

/** The level offered first: `esperto` when offered, else the middle level; for a first match
 * (the member has no finished match) `principiante`, else the weakest. */
export function defaultBotLevel(levels: BotLevel[], firstMatch = false): string {
  const wanted = firstMatch ? FIRST_MATCH_LEVEL : DEFAULT_BOT_LEVEL;
  if (levels.length === 0 || levels.some((l) => l.id === wanted)) return wanted;
  return firstMatch ? levels[0].id : levels[Math.floor((levels.length - 1) / 2)].id;
}

/** Whether the member has not finished a match yet (practice matches count): their first. */
export async function isFirstMatch(client: Pick<typeof api, "matches"> = api): Promise<boolean> {
  const page = await client.matches({ limit: 1 });
  return page.items.length === 0;
}

/** A level's name in the current language: "Expert" / "Esperto". */
export function levelName(id: string, levels: BotLevel[] = []): string {
  const known = LEVEL_NAMES[id];
  const server = levels.find((l) => l.id === id)?.name;
  if (lang() === "it") return known?.it ?? server ?? id;
  return server ?? known?.en ?? id;
}

export function isBot(player: SeatOccupant): boolean {
  return Boolean(player.bot);
}

/**
 * The name a seat shows. A bot is called by the first name the server gave it ("Bruno"), its
 * level shown beside it (BotMark); a game made before bots had names named them by the level's
 * id ("Esperto"): such a bot reads as its level in the current language. A bot standing in for a
 * person keeps that person's name, and so does every person.
 */
export function displayName(player: SeatOccupant & { name: string }, levels: BotLevel[] = []): string {
  if (!player.bot || player.took_over) return personName(player.name);
  const known = LEVEL_NAMES[player.bot] !== undefined || levels.some((l) => l.id === player.bot);
  const namedByLevel = !player.name || (known && player.name.toLowerCase() === player.bot.toLowerCase());
  return namedByLevel ? levelName(player.bot, levels) : player.name;
}

/** The name the server gives an erased account (CONTRACT, Privacy). */
export const DELETED_PLAYER = "deleted player";

/** A person's name as shown: an erased account reads "giocatore eliminato" in Italian. */
export function personName(name: string): string {
  return name === DELETED_PLAYER ? tx("deleted player", "giocatore eliminato") : name;
}

/**
 * The seat of the table's creator, who may seat and remove bots: the lowest-seated person (when
 * the creator leaves the lobby, the next seated person becomes the creator). Null when no person
 * is seated.
 */
export function creatorSeat(players: readonly (SeatOccupant & { seat: number })[]): number | null {
  const people = players.filter((p) => !isBot(p)).map((p) => p.seat);
  return people.length ? Math.min(...people) : null;
}

export function youAreCreator(lobby: Pick<LobbyView, "players">): boolean {
  const you = lobby.players.find((p) => p.is_you);
  return you !== undefined && !isBot(you) && creatorSeat(lobby.players) === you.seat;
}

/** Who plays a seat, as the table marks it. */
export type SeatState =
  | { kind: "person"; offline: boolean }
  | { kind: "bot"; level: string }
  /** A bot plays the seat of `name`, who left (the item keeps the person's name). */
  | { kind: "took_over"; level: string; name: string };

export function seatState(player: SeatOccupant & { name: string; connected?: boolean }): SeatState {
  if (player.bot && player.took_over) return { kind: "took_over", level: player.bot, name: player.name };
  if (player.bot) return { kind: "bot", level: player.bot };
  // Only the game view says who is connected; a lobby item never reads as offline.
  return { kind: "person", offline: player.connected === false };
}

/** "bot for alice" / "bot al posto di alice"; "bot for you" on your own seat. */
export function botForText(name: string, yours: boolean): string {
  return yours ? tx("bot for you", "bot al posto tuo") : tx(`bot for ${name}`, `bot al posto di ${name}`);
}

/** A bot that sat from the start makes a practice match (CONTRACT, Bots). */
export function isPracticeView(view: Pick<GameView, "players">): boolean {
  return view.players.some((p) => isBot(p) && !p.took_over);
}

/** Every other seat is played by a bot that sat from the start: nobody else is at the table. */
export function aloneWithBots(view: Pick<GameView, "players" | "you">): boolean {
  const others = view.players.filter((p) => p.seat !== view.you);
  return others.length === 3 && others.every((p) => isBot(p) && !p.took_over);
}

/** A bot plays your own seat: you left, or missed your turns with the page closed. */
export function yourSeatTakenOver(view: Pick<GameView, "players" | "you">): boolean {
  return Boolean(view.players.find((p) => p.seat === view.you)?.took_over);
}

/**
 * Whether "Take back" is offered: you are alone with bots, the last play is your own (not an
 * automatic one), and nobody has played after it: it is now a bot's turn, or the view is the one
 * right after your play (`playedAt`, the revision you played at; your card may have ended the hand).
 */
export function canTakeBack(view: GameView, playedAt: number | null): boolean {
  if (view.status === "finished" || !aloneWithBots(view) || yourSeatTakenOver(view)) return false;
  const last = view.last_play;
  if (!last || last.seat !== view.you || last.auto) return false;
  const botsTurn = view.status === "playing" && view.turn !== null && view.turn !== undefined && view.turn !== view.you;
  return botsTurn || (playedAt !== null && view.revision === playedAt + 1);
}

/** Against the computer: you and three bots, or you and a friend against two bots. */
export type ComputerGame = "alone" | "with-friend";

/** The open seats the bots take: every one, or the other team's (the friend takes the seat across). */
export function botSeatsFor(mode: ComputerGame, lobby: Pick<LobbyView, "players">): number[] {
  const you = lobby.players.find((p) => p.is_you)?.seat ?? 0;
  const open = [0, 1, 2, 3].filter((seat) => !lobby.players.some((p) => p.seat === seat));
  return mode === "alone" ? open : open.filter((seat) => seat % 2 !== you % 2);
}

export interface ComputerGameStarted {
  /** The new game: open it at /games/<id>. */
  id: string;
  /** The last answer: the lobby, or the game view once the bots filled the table. */
  view: AnyView;
  /** Why a bot could not be seated (the game exists; its waiting room can seat it). */
  error: string | null;
}

type BotClient = Pick<typeof api, "createGame" | "addBot">;
type RematchClient = Pick<typeof api, "rematch" | "addBot">;

/**
 * "Play against the computer": create the game with the chosen options, then seat the bots one
 * after the other at the chosen level. A failed creation throws; a failed bot stops there and
 * says why, with the game already made.
 */
export async function playAgainstComputer(
  gameType: string,
  options: Options,
  mode: ComputerGame,
  level: string,
  client: BotClient = api,
): Promise<ComputerGameStarted> {
  const lobby = await client.createGame(gameType, options);
  let view: AnyView = lobby;
  for (const seat of botSeatsFor(mode, lobby)) {
    try {
      view = await client.addBot(lobby.id, seat, level);
    } catch (e) {
      return { id: lobby.id, view, error: errorText(e) };
    }
  }
  return { id: lobby.id, view, error: null };
}

/**
 * "Play again" after a practice match: the rematch (the same rules; the people are invited),
 * then, when you are its creator, the same bots at the same seats. A bot that cannot sit there
 * stops the seating: the waiting room shows what is missing and can seat it.
 */
export async function playAgainWithBots(finished: GameView, client: RematchClient = api): Promise<AnyView> {
  let view: AnyView = await client.rematch(finished.id);
  if (!isLobby(view) || !youAreCreator(view)) return view;
  for (const player of finished.players) {
    if (!player.bot || player.took_over || !isLobby(view)) continue;
    if (view.players.some((p) => p.seat === player.seat)) continue;
    try {
      view = await client.addBot(view.id, player.seat, player.bot);
    } catch {
      break;
    }
  }
  return view;
}

/**
 * "Fill with bots" in the waiting room: a bot at ``level`` at every seat that is empty, one after
 * the other, each answer handed to ``onView`` (the bot that fills the last seat starts the game:
 * its answer is the game view). A seat someone took meanwhile is skipped; the first refusal stops
 * the filling, and its reason is returned (null when every seat was filled).
 */
export async function fillWithBots(
  lobby: LobbyView,
  level: string,
  onView: (view: AnyView) => void,
  client: Pick<typeof api, "addBot"> = api,
): Promise<string | null> {
  let view: AnyView = lobby;
  for (const seat of botSeatsFor("alone", lobby)) {
    if (!isLobby(view)) break;
    if (view.players.some((p) => p.seat === seat)) continue;
    try {
      view = await client.addBot(lobby.id, seat, level);
    } catch (e) {
      return errorText(e);
    }
    onView(view);
  }
  return null;
}

/** No other person sits at the table (bots may): nobody has joined you. */
export function aloneInLobby(lobby: Pick<LobbyView, "players">): boolean {
  return lobby.players.some((p) => p.is_you) && lobby.players.every((p) => p.is_you || isBot(p));
}
