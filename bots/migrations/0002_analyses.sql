-- The analyses members asked for (bots.analysis.store): one per table and member, queued until
-- a worker claims it (status 'running', a lease its owner renews), kept once 'done' with its
-- result (the plays and the summary, as CONTRACT's JSON). A queued analysis whose last attempt
-- failed waits until not_before; a running one whose lease lapsed is claimed again.
CREATE TABLE IF NOT EXISTS bot_analysis (
    table_id    text        NOT NULL,
    member_id   text        NOT NULL,
    seat_index  integer     NOT NULL CHECK (seat_index BETWEEN 0 AND 3),
    status      text        NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done')),
    result      jsonb,
    owner       text        NOT NULL DEFAULT '',
    not_before  timestamptz NOT NULL DEFAULT '-infinity',
    attempts    integer     NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    PRIMARY KEY (table_id, member_id)
);

-- The claim takes the oldest that is not done; the per-member limit counts those of a member.
CREATE INDEX IF NOT EXISTS bot_analysis_pending ON bot_analysis (created_at) WHERE status <> 'done';
CREATE INDEX IF NOT EXISTS bot_analysis_member ON bot_analysis (member_id);
