-- Players' relations (issue 43): whom a member follows, whom they block, their settings, and
-- the invitations to a game in the lobby (PlayersService). Members are named by their member id
-- (lobby_member's key), never by their public player id, which only the directory holds.
-- Every row references the member directory ON DELETE CASCADE: EraseMember deletes the
-- member's lobby_member row, and with it every follow, block, setting and invitation of and
-- about them, in the same statement. Times are epoch milliseconds from the lobby's clock.
CREATE TABLE IF NOT EXISTS lobby_follow (
    member_id    text   NOT NULL REFERENCES lobby_member (member_id) ON DELETE CASCADE,
    followed_id  text   NOT NULL REFERENCES lobby_member (member_id) ON DELETE CASCADE,
    followed_at_ms bigint NOT NULL,
    PRIMARY KEY (member_id, followed_id),
    CHECK (member_id <> followed_id)
);
-- A member's followers, so that erasing them deletes those rows without a scan.
CREATE INDEX IF NOT EXISTS lobby_follow_followed ON lobby_follow (followed_id);

CREATE TABLE IF NOT EXISTS lobby_block (
    member_id    text   NOT NULL REFERENCES lobby_member (member_id) ON DELETE CASCADE,
    blocked_id   text   NOT NULL REFERENCES lobby_member (member_id) ON DELETE CASCADE,
    blocked_at_ms bigint NOT NULL,
    PRIMARY KEY (member_id, blocked_id),
    CHECK (member_id <> blocked_id)
);
-- Who blocked a member: read by every join and quick match (the two never sit together).
CREATE INDEX IF NOT EXISTS lobby_block_blocked ON lobby_block (blocked_id);

-- A member's settings; no row: the defaults.
CREATE TABLE IF NOT EXISTS lobby_settings (
    member_id   text    PRIMARY KEY REFERENCES lobby_member (member_id) ON DELETE CASCADE,
    show_online boolean NOT NULL DEFAULT true
);

-- One row per game and invitee: the first invitation's time, the latest inviter. It goes with
-- its game (deleted when its last person leaves, or purged a week after it expired) and with
-- either member; one older than INVITATION_HOURS no longer holds and is written over when the
-- invitee is invited again.
CREATE TABLE IF NOT EXISTS lobby_invitation (
    game_id       uuid   NOT NULL REFERENCES lobby_game (id) ON DELETE CASCADE,
    invitee_id    text   NOT NULL REFERENCES lobby_member (member_id) ON DELETE CASCADE,
    inviter_id    text   NOT NULL REFERENCES lobby_member (member_id) ON DELETE CASCADE,
    invited_at_ms bigint NOT NULL,
    PRIMARY KEY (game_id, invitee_id)
);
CREATE INDEX IF NOT EXISTS lobby_invitation_invitee ON lobby_invitation (invitee_id, invited_at_ms DESC);
CREATE INDEX IF NOT EXISTS lobby_invitation_inviter ON lobby_invitation (inviter_id);
