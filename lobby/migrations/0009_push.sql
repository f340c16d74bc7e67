-- Web Push subscriptions (issue 44): where the gateway pushes `your_turn` and `invited` to a
-- member. The endpoint names one browser, so it is the key: a browser subscribed again by
-- another member becomes theirs (lobby.push_subscriptions). At most 10 a member, kept by the
-- lobby. Rows reference the member directory ON DELETE CASCADE: erasing the member
-- (EraseMember deletes their lobby_member row) deletes their subscriptions.
CREATE TABLE IF NOT EXISTS lobby_push_subscription (
    endpoint      text   PRIMARY KEY,
    member_id     text   NOT NULL REFERENCES lobby_member (member_id) ON DELETE CASCADE,
    p256dh        text   NOT NULL,
    auth          text   NOT NULL,
    created_at_ms bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS lobby_push_subscription_member
    ON lobby_push_subscription (member_id, created_at_ms DESC);
