-- Bots at the table: a seat a bot plays names its level; a seat a bot took over from a person
-- who left keeps the person's member id and name (took_over), so they may take it back.
ALTER TABLE lobby_seat ADD COLUMN IF NOT EXISTS bot_level text NOT NULL DEFAULT '';
ALTER TABLE lobby_seat ADD COLUMN IF NOT EXISTS took_over boolean NOT NULL DEFAULT false;
