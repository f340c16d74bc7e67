-- The lobby's games and seatings: the truth of who sits where (DESIGN: Redis holds nothing that
-- cannot be rebuilt from Postgres). A game is live until expires_at, which every change and
-- read by id pushes GAME_TTL_SECONDS ahead; its join code is unique among live games.
CREATE TABLE IF NOT EXISTS lobby_game (
    id            uuid        PRIMARY KEY,
    game_type     text        NOT NULL,
    join_code     text        NOT NULL,
    options_json  text        NOT NULL,
    seats_total   integer     NOT NULL CHECK (seats_total > 0),
    created_at_ms bigint      NOT NULL,
    updated_at_ms bigint      NOT NULL,
    started       boolean     NOT NULL DEFAULT false,
    expires_at    timestamptz NOT NULL
);

-- A code's live game (codes are reused once their game expired).
CREATE INDEX IF NOT EXISTS lobby_game_join_code ON lobby_game (join_code, expires_at);
CREATE INDEX IF NOT EXISTS lobby_game_expires_at ON lobby_game (expires_at);

CREATE TABLE IF NOT EXISTS lobby_seat (
    game_id      uuid    NOT NULL REFERENCES lobby_game (id) ON DELETE CASCADE,
    seat_index   integer NOT NULL CHECK (seat_index >= 0),
    member_id    text    NOT NULL,
    display_name text    NOT NULL,
    erased       boolean NOT NULL DEFAULT false,
    PRIMARY KEY (game_id, seat_index),
    UNIQUE (game_id, member_id)
);

-- A member's games (ListMemberGames, EraseMember) without a scan.
CREATE INDEX IF NOT EXISTS lobby_seat_member ON lobby_seat (member_id);
