-- The request ids of the lobby's calls that change a seating (issue 34): a call sent again with
-- the same request_id by the same member answers what the first one did and does nothing
-- again. The row is written in the transaction of the change it records, so the two commit
-- together; a racing call with the same id waits on the primary key until the first ends.
-- Kept until expires_at (24 hours), then purged; EraseMember deletes a member's rows.
CREATE TABLE IF NOT EXISTS lobby_request (
    member_id   text        NOT NULL,
    method      text        NOT NULL,
    request_id  text        NOT NULL,
    game_id     uuid,                           -- the game it made or changed; null: it deleted it
    created     boolean     NOT NULL DEFAULT false,  -- it made the game
    filled      boolean     NOT NULL DEFAULT false,  -- it took the game's last seat
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (member_id, method, request_id)
);

CREATE INDEX IF NOT EXISTS lobby_request_expires_at ON lobby_request (expires_at);
