-- The move log of the game service: one row per table, one row per move. The log is the truth
-- of a table; the Redis snapshot is a cache rebuilt from it. JSON is kept as text, byte for
-- byte, so that key order and floats come back exactly as the engine wrote them.

CREATE TABLE IF NOT EXISTS game_table (
    table_id        uuid        PRIMARY KEY,
    game_type       text        NOT NULL,
    engine_version  text        NOT NULL,
    seed            bytea       NOT NULL,               -- secret until the match is finished
    seed_commitment text        NOT NULL,               -- hex SHA-256 of the seed, public
    seats           text[]      NOT NULL,               -- opaque seat ids, in seat order
    options_json    text        NOT NULL,
    move_count      bigint      NOT NULL DEFAULT 0 CHECK (move_count >= 0),
    revision        bigint      NOT NULL DEFAULT 0 CHECK (revision >= 0),  -- never goes down
    status          text        NOT NULL,
    created_at      timestamptz NOT NULL,
    finished_at     timestamptz,
    recorded_at     timestamptz                          -- when stats accepted the result
);

-- Finished matches not yet handed to stats: what a restarted service resumes.
CREATE INDEX IF NOT EXISTS game_table_unrecorded
    ON game_table (finished_at) WHERE finished_at IS NOT NULL AND recorded_at IS NULL;

CREATE TABLE IF NOT EXISTS game_move (
    table_id     uuid        NOT NULL REFERENCES game_table (table_id) ON DELETE CASCADE,
    number       bigint      NOT NULL CHECK (number >= 1),
    type         text        NOT NULL,
    seat         smallint,                              -- the seat's index; NULL for a system move
    payload_json text        NOT NULL,
    auto         boolean     NOT NULL DEFAULT false,     -- made because a deadline passed
    random       boolean     NOT NULL DEFAULT false,     -- drew randomness from the seed
    created_at   timestamptz NOT NULL,                   -- the now_ms the engine applied it at
    PRIMARY KEY (table_id, number)
);
