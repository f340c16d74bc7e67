-- Spectators (issue 42): a game's creator may forbid watching it; fixed at creation. The started
-- games that allow spectators are listed by ListWatchableGames, by type.
ALTER TABLE lobby_game ADD COLUMN IF NOT EXISTS spectators boolean NOT NULL DEFAULT true;

CREATE INDEX IF NOT EXISTS lobby_game_watchable ON lobby_game (game_type)
    WHERE started AND spectators;
