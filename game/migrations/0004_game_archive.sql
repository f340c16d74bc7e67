-- Log retention (LOG_RETENTION_DAYS, game/retention.py): a finished table's moves, once older
-- than the retention, are compacted into one row of game_archive and their game_move rows
-- deleted, in one transaction; the log reads the archive only when game_move has no row.

-- When the table's moves went to game_archive; NULL while they are rows of game_move.
ALTER TABLE game_table ADD COLUMN IF NOT EXISTS archived_at timestamptz;

-- Finished tables not compacted yet, oldest first: what the retention job takes. Only a match's
-- last move enters it (finished_at is set once); it shrinks as tables are compacted.
CREATE INDEX IF NOT EXISTS game_table_unarchived
    ON game_table (finished_at) WHERE finished_at IS NOT NULL AND archived_at IS NULL;

CREATE TABLE IF NOT EXISTS game_archive (
    table_id uuid     PRIMARY KEY REFERENCES game_table (table_id) ON DELETE CASCADE,
    format   smallint NOT NULL CHECK (format = 1),
    -- format 1: a zlib-compressed JSON array with one array per move, in order:
    -- [number, type, seat, payload_json, auto, random, created_ms, request_id]
    -- (payload_json the move's text, byte for byte; seat and request_id may be null)
    moves    bytea    NOT NULL
);
-- Compressed already: kept out of line, not compressed again.
ALTER TABLE game_archive ALTER COLUMN moves SET STORAGE EXTERNAL;
