-- The caller's id of a move (ActRequest.request_id): an Act retried with the same id finds its
-- move here instead of playing it again. Unique per table; moves without one stay NULL.
ALTER TABLE game_move ADD COLUMN IF NOT EXISTS request_id text;

CREATE UNIQUE INDEX IF NOT EXISTS game_move_request
    ON game_move (table_id, request_id) WHERE request_id IS NOT NULL;
