"""Table talk: the quick phrases, the messages said at tables, mutes and reports (TalkService)."""
