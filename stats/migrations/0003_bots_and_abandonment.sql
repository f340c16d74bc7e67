-- Bots and abandonment (CONTRACT.md, Bots): a match a bot played from the start is practice,
-- one a person abandoned is unrated; both are kept and listed like any other.

-- Whether the match moved ratings as a whole (stats/standings.py decides it from the players).
ALTER TABLE match ADD COLUMN IF NOT EXISTS rated boolean NOT NULL DEFAULT true;

-- A bot's seat: its level, and no member (NULL: never a rating, never anyone's history; the
-- unique key on (match_id, member_id) admits any number of NULLs).
ALTER TABLE match_player ADD COLUMN IF NOT EXISTS bot_level text;
-- A bot took this person's seat over and they did not take it back.
ALTER TABLE match_player ADD COLUMN IF NOT EXISTS abandoned boolean NOT NULL DEFAULT false;
ALTER TABLE match_player ALTER COLUMN member_id DROP NOT NULL;

-- A row is a person's (a member id, no level) or a bot's (a level, no member id); a bot from
-- the start abandons nothing. Dropped and added again, so that running this file twice is harmless.
ALTER TABLE match_player DROP CONSTRAINT IF EXISTS match_player_bot_check;
ALTER TABLE match_player ADD CONSTRAINT match_player_bot_check CHECK (
    CASE WHEN bot_level IS NULL THEN member_id IS NOT NULL
         ELSE member_id IS NULL AND bot_level <> '' AND NOT abandoned END);
