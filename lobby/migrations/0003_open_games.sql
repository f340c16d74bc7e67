-- Open games (issue 32): a game its creator opened to anyone is listed and quick-matched; each
-- person's rating for the game type is kept with their seat, to match players by.
ALTER TABLE lobby_game ADD COLUMN IF NOT EXISTS open boolean NOT NULL DEFAULT false;
ALTER TABLE lobby_seat ADD COLUMN IF NOT EXISTS rating integer NOT NULL DEFAULT 0;

-- The open games waiting, newest first, by type: listed and matched without a scan of every game.
CREATE INDEX IF NOT EXISTS lobby_game_open ON lobby_game (game_type, created_at_ms DESC)
    WHERE open AND NOT started;
