-- The member directory (issue 43, item 1): every member's public player id, the name CONTRACT.md
-- shows for them everywhere ("player" in GET /api/me, in every human players item, in chat).
-- member_id is the key lobby_seat.member_id holds (the gateway's OIDC subject); player_id is
-- opaque and stable, drawn at random (never derived from the member id), at least 16 characters
-- of [A-Za-z0-9_-]; display_name is the name the member last logged in with. EraseMember
-- deletes the row: the player id then names nobody, and a seat of an erased member (member_id a
-- fresh random id) joins to no row, so it carries no player id.
CREATE TABLE IF NOT EXISTS lobby_member (
    member_id    text PRIMARY KEY,
    player_id    text NOT NULL UNIQUE CHECK (player_id ~ '^[A-Za-z0-9_-]{16,}$'),
    display_name text NOT NULL
);

-- Every member already seated (and not erased, and not a bot: "bot:<seat>" is no member) gets
-- an id now, with the name of their newest seating. 32 hex characters of a random uuid.
INSERT INTO lobby_member (member_id, player_id, display_name)
SELECT DISTINCT ON (s.member_id) s.member_id, replace(gen_random_uuid()::text, '-', ''),
       s.display_name
FROM lobby_seat s JOIN lobby_game g ON g.id = s.game_id
WHERE NOT s.erased AND (s.bot_level = '' OR s.took_over) AND s.member_id NOT LIKE 'bot:%'
ORDER BY s.member_id, g.updated_at_ms DESC
ON CONFLICT (member_id) DO NOTHING;
