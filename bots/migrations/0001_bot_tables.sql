-- The tables whose seats bots play, as the lobby last said (seats: a JSON array of
-- [seat_index, level] pairs), and which bots replica drives each: a lease that its owner
-- renews every few seconds and any replica may take once it lapsed (a replica that died).
CREATE TABLE IF NOT EXISTS bot_table (
    table_id    text        PRIMARY KEY,
    seats       jsonb       NOT NULL,
    owner       text        NOT NULL DEFAULT '',
    lease_until timestamptz NOT NULL DEFAULT '-infinity'
);

-- The claim looks for lapsed leases without a scan of the live ones.
CREATE INDEX IF NOT EXISTS bot_table_lease ON bot_table (lease_until);
