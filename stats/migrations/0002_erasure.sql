-- Erasure without a pseudonym, and without a race against recording.

-- A mark per erasure, kept about an hour (stats/repository.py, "An erasure racing a
-- recording"): a recording that read the lobby's seating before a member's erasure writes that
-- member as erased. Only a SHA-256 of the member id is kept, never the id.
CREATE TABLE IF NOT EXISTS erased_member (
    seq         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    member_hash bytea       NOT NULL,
    erased_at   timestamptz NOT NULL DEFAULT now()
);

-- Erasures used to give all of a member's rows one replacement id, which kept the erased
-- history linkable as one pseudonym: give every erased row an id of its own (gen_random_uuid()
-- is evaluated per row). Nothing refers to these ids: erased members have no rating, and the
-- backfill takes a match with an erased player as recorded.
UPDATE match_player SET member_id = 'deleted-' || replace(gen_random_uuid()::text, '-', '')
WHERE erased;
