-- Tables still being played: a restarted service hands their pending deadlines to the queue again.
CREATE INDEX IF NOT EXISTS game_table_unfinished
    ON game_table (table_id) WHERE finished_at IS NULL;
