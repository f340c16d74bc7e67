"""What a bot is called at the table (bots.catalogue.bot_name): a first name, the same for a seat
of a game every time it is asked, another at each seat of one table, and never a name already
seated there."""

from __future__ import annotations

import uuid

from bots.catalogue import BOT_NAMES, LEVELS, bot_name


def test_the_bots_of_one_table_have_a_name_each_and_it_is_stable():
    for _ in range(200):
        game_id = str(uuid.uuid4())
        names = [bot_name(game_id, seat) for seat in range(4)]
        assert len(set(names)) == 4, names
        assert names == [bot_name(game_id, seat) for seat in range(4)]  # stable per seat and game
        assert set(names) <= set(BOT_NAMES)


def test_a_bot_is_named_by_a_first_name_not_by_its_level():
    levels = {name for level in LEVELS for name in (level.id.capitalize(), level.name)}
    assert not levels & set(BOT_NAMES)
    # Short enough for a phone's side seat, and none the start of another (told apart when cut).
    assert all(len(name) <= 6 for name in BOT_NAMES)
    assert not any(a != b and b.startswith(a[:3]) for a in BOT_NAMES for b in BOT_NAMES)


def test_different_games_get_different_names():
    seen = {bot_name(str(uuid.uuid4()), 1) for _ in range(200)}
    assert len(seen) > len(BOT_NAMES) // 2


def test_a_bot_never_takes_a_name_seated_at_its_table():
    game_id = str(uuid.uuid4())
    first = bot_name(game_id, 2)
    other = bot_name(game_id, 2, [first.lower(), "Alice"])
    assert other != first and other in BOT_NAMES
    # Every name taken but one: that one.
    left = BOT_NAMES[5]
    assert bot_name(game_id, 3, [n for n in BOT_NAMES if n != left]) == left
