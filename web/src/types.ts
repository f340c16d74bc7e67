// The contract's JSON shapes, by the names the app uses. They are generated (`make contract`): the
// gateway's models (gateway/contract) make docs/openapi.json, and openapi-typescript makes
// ./api-types.ts from it; only the names and the few types the app derives are written here.
// Fields the server may add are ignored; optional ones are present only in the phases the
// contract names.

import type { components } from "./api-types";

type Schemas = components["schemas"];

export type Team = Schemas["Team"];
export type Scores = Schemas["Scores"];

export type Me = Schemas["Me"];
export type Provider = Schemas["Provider"];

/** One option of a game type's `options_schema`: the app makes a form field of it. */
export type JsonSchemaProperty = Schemas["OptionSchema"];
export type OptionsSchema = Schemas["OptionsSchema"];

/** A strength of bot the server offers for a game type (`bot_levels`, weakest first). */
export type BotLevel = Schemas["BotLevel"];
export type GameType = Schemas["GameType"];

/** A game's options: each game type's are its own (its `options_schema`), so the app reads them by name. */
export type Options = Record<string, unknown>;

/** What every `players` item may carry about who plays the seat (CONTRACT, Games). */
export interface SeatOccupant {
  /** A bot plays the seat, at this level (an id of the type's `bot_levels`). */
  bot?: string;
  /** That bot replaced a human who left; the item keeps the human's name. */
  took_over?: boolean;
}

export type LobbyPlayer = Schemas["LobbyPlayer"];
export type LobbyView = Schemas["Lobby"];
export type Preview = Schemas["Preview"];

export type GamePlayer = Schemas["Player"];
export type LastPlay = Schemas["LastPlay"];
export type LegalPlay = Schemas["LegalPlay"];
export type TeamHand = Schemas["TeamHand"];
export type LastHand = Schemas["LastHand"];
export type GameStatus = Schemas["GameView"]["status"];
export type GameView = Schemas["GameView"];

export type AnyView = LobbyView | GameView;

export type MyGame = Schemas["MyGame"];

/** A game in the lobby that anyone may join (GET /api/games/open): a MyGame with its options and
 * the mean rating of the people seated. */
export type OpenGame = Schemas["OpenGame"];
export type OpenGames = Schemas["OpenGames"];
/** POST /api/games/quick ("Play now"): every field optional. */
export type QuickMatchRequest = Schemas["QuickMatchRequest"];

/** POST /api/games/{id}/leave. */
export type LeaveAnswer = Schemas["Left"];

export type LogMove = Schemas["LoggedMove"];
/** The app replays a log whatever its status. */
export type GameLog = Omit<Schemas["MoveLog"], "status"> & Partial<Pick<Schemas["MoveLog"], "status">>;

/** A scopone match always has teams (the contract's `team` is null for a game without); the app
 * reads a match without a delta too. */
export type MatchPlayer = Omit<Schemas["MatchPlayer"], "team" | "elo_delta"> & {
  team: Team;
  elo_delta?: number | null;
};
/** The engine's result of a finished match (scopone: the final scores and the per-hand audit). */
export type MatchResult = Schemas["MatchResult"];
export type MatchItem = Omit<Schemas["Match"], "players"> & { players: MatchPlayer[] };
export type MatchPage = Omit<Schemas["MatchPage"], "items"> & { items: MatchItem[] };

export type Rating = Schemas["Rating"];
export type LeaderboardEntry = Schemas["LeaderboardEntry"];
export type Leaderboard = Schemas["Leaderboard"];

/** A player of a finished game created its rematch (docs/websocket.md, `rematch`). */
export type RematchNotice = Omit<Schemas["WsRematch"], "type">;

export type ServerMessage = Schemas["WsServerMessage"];

/** Table talk (CONTRACT, Table talk): a quick phrase of the catalogue, a message of the table. */
export type Phrase = Schemas["Phrase"];
export type ChatMessage = Schemas["ChatMessage"];
export type MutedPlayer = Schemas["MutedPlayer"];

/** Spectators (CONTRACT, Spectators): the public view of a started game and of its lobby, and the
 * live games anyone may watch. */
export type PublicGameView = Schemas["PublicGameView"];
export type PublicLobby = Schemas["PublicLobby"];
export type WatchedView = PublicLobby | PublicGameView;
export type LiveGame = Schemas["LiveGame"];

export function isLobby(view: AnyView): view is LobbyView {
  return view.status === "lobby";
}

// Players, following, invitations, blocking (CONTRACT, Players).
/** A player's public page; its last matches read as the history's items. */
export type PlayerPage = Omit<Schemas["PlayerPage"], "recent"> & { recent: MatchItem[] };
export type Settings = Schemas["Settings"];
export type FollowedPlayer = Schemas["FollowedPlayer"];
export type PlayerName = Schemas["PlayerName"];
export type Invitation = Schemas["Invitation"];
/** The member socket /ws/me's messages. */
export type WsInvited = Schemas["WsInvited"];
export type WsOnline = Schemas["WsOnline"];
export type MemberMessage = Schemas["WsMemberMessage"];

// Web Push (CONTRACT, Turn-based games).
export type PushKey = Schemas["PushKey"];
export type PushSubscriptionBody = Schemas["PushSubscribeRequest"];

// The analysis of a finished match (CONTRACT, Analysis of a finished match): the member's plays,
// each with its verdict, the best play and the points lost (absent for an auto-play).
export type Analysis = Schemas["Analysis"];
export type AnalysedPlay = Schemas["AnalysedPlay"];
export type AnalysedMove = Schemas["AnalysedMove"];
export type AnalysisSummary = Schemas["AnalysisSummary"];
export type Verdict = NonNullable<AnalysedPlay["verdict"]>;
