-- Whether a game's table finished (MarkFinished: stats marks it when it records the match), so
-- ListWatchableGames leaves finished games out. Without it a day of finished games (a game lives
-- GAME_TTL_SECONDS) crowded the live ones out of the list. Games that finished before this
-- migration stay unmarked until they expire; the gateway still checks each table's status.
ALTER TABLE lobby_game ADD COLUMN IF NOT EXISTS finished boolean NOT NULL DEFAULT false;

DROP INDEX IF EXISTS lobby_game_watchable;
CREATE INDEX IF NOT EXISTS lobby_game_watchable_unfinished ON lobby_game (game_type)
    WHERE started AND spectators AND NOT finished;
