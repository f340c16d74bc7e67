-- The public player id (issue 43, item 1; the lobby's lobby_member): CONTRACT.md puts "player" in
-- match items and leaderboard entries. Stats keeps the id the lobby's seating carried when the
-- match was recorded, on the player's row, and on the rating row as of the member's latest match
-- (like display_name). NULL for a bot, for an erased member (erasure clears it), and for matches
-- recorded before the lobby had player ids: stats cannot ask anyone for them, so a leaderboard
-- entry gets its id at the member's next recorded match.
ALTER TABLE match_player ADD COLUMN IF NOT EXISTS player_id text;
ALTER TABLE player_rating ADD COLUMN IF NOT EXISTS player_id text;
