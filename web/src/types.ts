// The contract's JSON shapes (CONTRACT.md), as the app reads them. Fields the server may add are
// ignored; optional ones are present only in the phases the contract names.

export type Team = "A" | "B";
export type Scores = Record<Team, number>;

export interface Me {
  sub: string;
  name: string;
  provider: string;
}

export interface Provider {
  name: string;
  login_url: string;
}

export interface JsonSchemaProperty {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

export interface OptionsSchema {
  type?: string;
  properties?: Record<string, JsonSchemaProperty>;
}

/** A strength of bot the server offers for a game type (`bot_levels`, weakest first). */
export interface BotLevel {
  id: string;
  name: string;
}

export interface GameType {
  id: string;
  name: string;
  description: string;
  players: number;
  options_schema: OptionsSchema;
  bot_levels: BotLevel[];
}

export type Options = Record<string, unknown>;

/** What every `players` item may carry about who plays the seat (CONTRACT, Games). */
export interface SeatOccupant {
  /** A bot plays the seat, at this level (an id of the type's `bot_levels`). */
  bot?: string;
  /** That bot replaced a human who left; the item keeps the human's name. */
  took_over?: boolean;
}

export interface LobbyPlayer extends SeatOccupant {
  seat: number;
  name: string;
  team: Team;
  is_you?: boolean;
}

export interface LobbyView {
  id: string;
  game_type: string;
  join_code: string;
  status: "lobby";
  options: Options;
  players: LobbyPlayer[];
  seats_open: number;
  created_at: string;
}

export interface Preview {
  id: string;
  game_type: string;
  name: string;
  description: string;
  status: string;
  players: LobbyPlayer[];
  seats_open: number;
  options: Options;
}

export interface GamePlayer extends SeatOccupant {
  seat: number;
  name: string;
  team: Team;
  card_count: number;
  captured_count: number;
  scope: number;
  is_you: boolean;
  /** A bot plays the seat, or its player has a socket open at this table. */
  connected: boolean;
}

export interface LastPlay {
  seat: number;
  card: string;
  capture: string[];
  scopa: boolean;
  auto: boolean;
}

export interface LegalPlay {
  card: string;
  captures: string[][];
}

export interface TeamHand {
  cards: number;
  denari: number;
  settebello: boolean;
  primiera: number;
  scope: number;
  napola: number;
  points: number;
}

export interface LastHand {
  hand: number;
  teams: Record<Team, TeamHand>;
  award: Record<string, Team | null>;
  scores: Scores;
}

export type GameStatus = "playing" | "hand_end" | "finished";

export interface GameView {
  id: string;
  game_type: string;
  join_code: string;
  status: GameStatus;
  options: Options;
  players: GamePlayer[];
  you: number;
  hand: string[];
  table: string[];
  turn: number | null;
  hand_number: number;
  scores: Scores;
  turn_deadline?: string;
  last_play: LastPlay | null;
  seed_commitment: string;
  revision: number;
  your_turn?: boolean;
  legal?: LegalPlay[];
  last_hand?: LastHand;
  acknowledged?: number[];
  hand_end_deadline?: string;
  winner?: Team;
  seed?: string;
}

export type AnyView = LobbyView | GameView;

export interface MyGame {
  id: string;
  game_type: string;
  join_code: string;
  status: string;
  players: LobbyPlayer[];
  seats_open: number;
  your_turn: boolean;
  updated_at: string;
}

/** POST /api/games/{id}/leave. */
export interface LeaveAnswer {
  left: boolean;
}

export interface LogMove {
  number: number;
  type: string;
  seat: string | null;
  payload: Record<string, unknown>;
  auto: boolean;
}

export interface GameLog {
  id: string;
  game_type: string;
  options: Options;
  seats: string[];
  seed_commitment: string | null;
  seed?: string;
  moves: LogMove[];
  revision: number;
  status?: string;
}

export interface MatchPlayer {
  seat: number;
  name: string;
  team: Team;
  won: boolean;
  points: number;
  /** Absent (or null) for a bot, which has no rating. */
  elo_delta?: number | null;
  /** A bot played this seat, at this level. */
  bot?: string;
  /** The player's seat was taken over by a bot and not taken back. */
  abandoned?: boolean;
}

/** The engine's result of a finished match (scopone: the final scores and the per-hand audit). */
export interface MatchResult {
  scores?: Scores;
  winner?: Team;
  target_score?: number;
  hands?: number;
  audit?: LastHand[];
}

export interface MatchItem {
  id: string;
  game_type: string;
  started_at: string;
  finished_at: string;
  /** False for a practice match (a bot sat from the start) and for one a person left. */
  rated: boolean;
  result: MatchResult;
  players: MatchPlayer[];
}

export interface MatchPage {
  items: MatchItem[];
  next_cursor: string | null;
}

export interface Rating {
  game_type: string;
  rating: number;
  matches: number;
}

export interface LeaderboardEntry {
  rank: number;
  name: string;
  rating: number;
  wins: number;
  matches: number;
  points: number;
}

export interface Leaderboard {
  game_type: string;
  entries: LeaderboardEntry[];
}

/** A player of a finished game created its rematch (docs/websocket.md, `rematch`). */
export interface RematchNotice {
  game_id: string;
  join_code: string;
  by: string;
}

export type ServerMessage =
  | { type: "lobby"; game: LobbyView }
  | { type: "state"; game: GameView }
  | { type: "game_over"; scores: Scores; winner: Team }
  | ({ type: "rematch" } & RematchNotice)
  | { type: "presence"; connected: number[] }
  | { type: "error"; code: string; message: string };

export function isLobby(view: AnyView): view is LobbyView {
  return view.status === "lobby";
}
