-- Table talk (talk.postgres_store): messages, mutes, reports.

CREATE TABLE IF NOT EXISTS talk_message (
    seq           bigint  GENERATED ALWAYS AS IDENTITY,  -- the order messages were stored in
    id            text    PRIMARY KEY,
    table_id      text    NOT NULL,
    member_id     text    NOT NULL,            -- the author
    player        text    NOT NULL,            -- the author's public player id ('' for a bot)
    display_name  text    NOT NULL,
    spectator     boolean NOT NULL,
    seat_index    integer NOT NULL,            -- -1 for a spectator
    phrase        text    NOT NULL,            -- '' for a free text
    body          text    NOT NULL,            -- '' for a phrase
    said_at_ms    bigint  NOT NULL,
    request_id    text    NOT NULL             -- '' when the call gave none
);
-- A table's history, newest first; retention's newest message per table (said_at_ms grows with seq).
CREATE INDEX IF NOT EXISTS talk_message_table ON talk_message (table_id, seq DESC);
-- Erasure, and a retried Say.
CREATE INDEX IF NOT EXISTS talk_message_member ON talk_message (member_id);
CREATE UNIQUE INDEX IF NOT EXISTS talk_message_request ON talk_message (member_id, request_id)
    WHERE request_id <> '';
-- A mute's name: the name a player last talked under.
CREATE INDEX IF NOT EXISTS talk_message_player ON talk_message (player, said_at_ms DESC);

CREATE TABLE IF NOT EXISTS talk_mute (
    member_id     text   NOT NULL,
    player        text   NOT NULL,
    display_name  text   NOT NULL,
    muted_at_ms   bigint NOT NULL,
    PRIMARY KEY (member_id, player)
);

CREATE TABLE IF NOT EXISTS talk_report (
    id                 text    PRIMARY KEY,
    message_id         text    NOT NULL,
    table_id           text    NOT NULL,
    author_member_id   text    NOT NULL,       -- '' once the author was erased
    player             text    NOT NULL,
    display_name       text    NOT NULL,
    spectator          boolean NOT NULL,
    seat_index         integer NOT NULL,
    phrase             text    NOT NULL,
    body               text    NOT NULL,       -- '' once the author was erased
    said_at_ms         bigint  NOT NULL,
    reporter_member_id text    NOT NULL,
    reason             text    NOT NULL,
    reported_at_ms     bigint  NOT NULL,
    closed_at_ms       bigint,
    note               text    NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS talk_report_open ON talk_report (reported_at_ms, id) WHERE closed_at_ms IS NULL;
CREATE INDEX IF NOT EXISTS talk_report_author ON talk_report (author_member_id);
