-- The stats schema: finished matches, their players, and each member's rating per game type.
-- Member ids and game types sort byte-wise (COLLATE "C"), the same everywhere, so leaderboard
-- ties and lock order never depend on the server's locale.

CREATE TABLE IF NOT EXISTS match (
    id          uuid        PRIMARY KEY,            -- the table id (= the lobby game id)
    game_type   text        COLLATE "C" NOT NULL,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    result      jsonb       NOT NULL,               -- the engine's result, as reported
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS match_game_type_finished_idx
    ON match (game_type, finished_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS match_player (
    match_id     uuid     NOT NULL REFERENCES match (id) ON DELETE CASCADE,
    member_id    text     COLLATE "C" NOT NULL,      -- the OIDC sub; a random one once erased
    display_name text     NOT NULL,
    seat         smallint NOT NULL CHECK (seat >= 0),
    team         text,                               -- NULL when the game has no teams
    won          boolean  NOT NULL,
    points       integer  NOT NULL,
    elo_delta    integer  NOT NULL,
    details      jsonb    NOT NULL DEFAULT '{}',
    erased       boolean  NOT NULL DEFAULT false,   -- anonymized: never rated again
    -- Copies of the (immutable) match columns, so a member's history page is one index range.
    game_type    text        COLLATE "C" NOT NULL,
    finished_at  timestamptz NOT NULL,
    CONSTRAINT match_player_member_key UNIQUE (match_id, member_id),
    CONSTRAINT match_player_seat_key UNIQUE (match_id, seat)
);
CREATE INDEX IF NOT EXISTS match_player_history_idx
    ON match_player (member_id, finished_at DESC, match_id DESC);
CREATE INDEX IF NOT EXISTS match_player_history_by_type_idx
    ON match_player (member_id, game_type, finished_at DESC, match_id DESC);

CREATE TABLE IF NOT EXISTS player_rating (
    member_id        text        COLLATE "C" NOT NULL,
    game_type        text        COLLATE "C" NOT NULL,
    rating           integer     NOT NULL DEFAULT 1500,
    matches          integer     NOT NULL DEFAULT 0,  -- rated matches played
    wins             integer     NOT NULL DEFAULT 0,
    points           bigint      NOT NULL DEFAULT 0,
    display_name     text        NOT NULL DEFAULT '', -- as of the latest match
    last_finished_at timestamptz,
    PRIMARY KEY (member_id, game_type)
);
CREATE INDEX IF NOT EXISTS player_rating_leaderboard_idx
    ON player_rating (game_type, rating DESC, wins DESC, member_id);
