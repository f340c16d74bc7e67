"""gateway.abandonment: N auto-plays in a row of a person's seat, while they are away, and a bot
takes the seat over; a play of their own, a socket open or a bot in the seat, and it does not."""

from __future__ import annotations

import asyncio

from game.view_parts import Facts
from gateway.abandonment import Abandonment
from lobby.models import Game, Seat
from services.rpc.errors import Reason, ServiceError
from testing.waiting import eventually

GAME = Game(id="t1", game_type="scopone_scientifico", join_code="K7QX2M", options_json="{}",
            seats_total=4, created_at_ms=0, started=True,
            seats=(Seat(0, "alice", "alice"), Seat(1, "bob", "bob"), Seat(2, "carol", "carol"),
                   Seat(3, "bot-3", "Bot", bot="esperto")))


def play(seat: int, auto: bool) -> Facts:
    return Facts(last_play_seat=seat, last_play_auto=auto, last_play_scopa=False, hand_number=1,
                 scores_json="", winner="")


class Lobby:
    """Takes seats over when told to; ``refuse`` makes the next call fail as the lobby would."""

    def __init__(self) -> None:
        self.taken: list[tuple[str, int]] = []
        self.answered = asyncio.Event()
        self.refuse = False

    async def take_over(self, table_id: str, seat: int) -> None:
        try:
            if self.refuse:
                self.refuse = False
                raise ServiceError(Reason.BAD_REQUEST, "not now", field="")
            self.taken.append((table_id, seat))
        finally:
            self.answered.set()


def nobody() -> set[int]:
    return set()


async def test_the_limit_of_auto_plays_in_a_row_of_an_away_person_takes_the_seat_over():
    lobby = Lobby()
    abandonment = Abandonment("t1", 2, lobby.take_over)
    abandonment.saw(play(1, auto=True), GAME, nobody)
    assert not abandonment.taking_over
    abandonment.saw(play(1, auto=True), GAME, nobody)
    assert abandonment.taking_over == {1}
    abandonment.saw(play(1, auto=True), GAME, nobody)  # asked once, however many follow
    await lobby.answered.wait()
    assert lobby.taken == [("t1", 1)]


async def test_a_play_of_their_own_starts_the_count_again():
    abandonment = Abandonment("t1", 2, Lobby().take_over)
    for auto in (True, False, True):
        abandonment.saw(play(1, auto=auto), GAME, nobody)
    assert not abandonment.taking_over
    abandonment.saw(play(1, auto=True), GAME, nobody)
    assert abandonment.taking_over == {1}


async def test_a_connected_person_a_bot_or_no_limit_is_never_taken_over():
    connected = Abandonment("t1", 2, Lobby().take_over)
    bot = Abandonment("t1", 2, Lobby().take_over)
    never = Abandonment("t1", 0, Lobby().take_over)
    for _ in range(3):
        connected.saw(play(1, auto=True), GAME, lambda: {1})
        bot.saw(play(3, auto=True), GAME, nobody)
        never.saw(play(1, auto=True), GAME, nobody)
        never.saw(None, GAME, nobody)  # a revision that showed no seat anything
    assert not connected.taking_over and not bot.taking_over and not never.taking_over


async def test_a_refused_take_over_counts_again_from_nothing():
    lobby = Lobby()
    lobby.refuse = True
    abandonment = Abandonment("t1", 2, lobby.take_over)
    abandonment.saw(play(2, auto=True), GAME, nobody)
    abandonment.saw(play(2, auto=True), GAME, nobody)
    await lobby.answered.wait()

    async def settled() -> bool:
        return not abandonment.taking_over
    await eventually(settled, timeout=5, interval=0.01, what="the refused take-over never settled")
    assert lobby.taken == []
    abandonment.saw(play(2, auto=True), GAME, nobody)
    assert not abandonment.taking_over  # one in a row, not three
    abandonment.saw(play(2, auto=True), GAME, nobody)
    assert abandonment.taking_over == {2}
