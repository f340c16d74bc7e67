"""The lobby's domain, one method per LobbyService call: a facade over its use cases.

It knows no gRPC and no Redis: it works on a :class:`~lobby.store.LobbyStore` and on a
:class:`GameService` (the game service's API: game.client.GameClient satisfies it). Each use
case is a module of its own, and the rules they keep are written there:

- ``lobby.seating``: creating a game, joining, moving, leaving and returning, the reads of a
  game; blocking;
- ``lobby.matchmaking``: open games, the quick match, the rematch, the games to watch;
- ``lobby.bot_seats``: bots seated, unseated and taking a seat over (``lobby.bot_driver``
  tells the bots service);
- ``lobby.starts``: creating the table of a full game, and a start that failed;
- ``lobby.membership``: player ids and erasure;
- ``lobby.game_records``: what they share: looking games up, changing and creating them, and
  a retried call (request ids).
"""

from __future__ import annotations

from collections.abc import Callable

from lobby.bot_driver import BotDriver, BotsService
from lobby.bot_seats import BotSeats
from lobby.codes import generate_code
from lobby.game_records import CODE_ATTEMPTS, GameRecords, blocked, new_game_id
from lobby.invitations import InvitationStore, invitations_for
from lobby.matchmaking import OPEN_GAMES_LIMIT, Matchmaking, rematch_id
from lobby.members import MemberDirectory, directory_for
from lobby.membership import Membership, new_member_id
from lobby.models import GameType
from lobby.push_subscriptions import PushSubscriptionStore, push_subscriptions_for
from lobby.relations import RelationStore, relations_for
from lobby.seating import MEMBER_GAMES_LIMIT, Seating
from lobby.starts import GameService, Starts
from lobby.store import LobbyStore
from services.timeutil import now_ms

__all__ = ["MEMBER_GAMES_LIMIT", "OPEN_GAMES_LIMIT", "BotsService", "GameService", "Lobby",
           "blocked", "rematch_id"]


class Lobby:
    """The lobby's use cases, one method per LobbyService call, each the use case's own."""

    def __init__(self, store: LobbyStore, games: GameService, bots: BotsService | None = None, *,
                 members: MemberDirectory | None = None,
                 relations: RelationStore | None = None,
                 invitations: InvitationStore | None = None,
                 push_subscriptions: PushSubscriptionStore | None = None,
                 new_code: Callable[[], str] = generate_code,
                 new_game_id: Callable[[], str] = new_game_id,
                 new_member_id: Callable[[], str] = new_member_id,
                 clock: Callable[[], int] = now_ms,
                 code_attempts: int = CODE_ATTEMPTS):
        self.store = store
        self.games = games
        self.bots = bots
        self.clock = clock
        # The member directory (lobby.members): beside the store, on its database when it has one.
        self.members = members if members is not None else directory_for(store)
        # Follows, blocks, settings and invitations (lobby.relations, lobby.invitations): beside
        # the store too. Seating reads the blocks; lobby.players serves the rest.
        self.relations = relations if relations is not None else relations_for(store)
        self.invitations = invitations if invitations is not None else invitations_for(store)
        # Web Push subscriptions (lobby.push_subscriptions): member data, beside the store.
        self.push_subscriptions = (push_subscriptions if push_subscriptions is not None
                                   else push_subscriptions_for(store))

        self.driver = BotDriver(bots)
        starts = Starts(store, games, self.driver, clock)
        records = GameRecords(store, games, starts, new_code=new_code, new_game_id=new_game_id,
                              clock=clock, code_attempts=code_attempts)
        bot_seats = BotSeats(records, self.driver)
        seating = Seating(records, self.relations, bot_seats)
        matchmaking = Matchmaking(records, self.relations)
        membership = Membership(store, self.members, self.relations, self.invitations,
                                self.push_subscriptions, new_member_id)

        self.create_game = seating.create_game
        self.join_game = seating.join_game
        self.change_seat = seating.change_seat
        self.leave_game = seating.leave_game
        self.return_seat = seating.return_seat
        self.preview_game = seating.preview_game
        self.get_game = seating.get_game
        self.watch_game = seating.watch_game
        self.list_member_games = seating.list_member_games
        self.get_seating = seating.get_seating
        self.find_seat = seating.find_seat

        self.list_open_games = matchmaking.list_open_games
        self.watch_open_games = matchmaking.watch_open_games
        self.set_open = matchmaking.set_open
        self.quick_match = matchmaking.quick_match
        self.rematch = matchmaking.rematch
        self.list_watchable_games = matchmaking.list_watchable_games
        self.mark_finished = matchmaking.mark_finished

        self.add_bot = bot_seats.add_bot
        self.remove_bot = bot_seats.remove_bot
        self.take_over_seat = bot_seats.take_over_seat

        self.ensure_member = membership.ensure_member
        self.get_players = membership.get_players
        self.with_players = membership.with_players
        self.with_seat_players = membership.with_seat_players
        self.erase_member = membership.erase_member

    async def list_game_types(self) -> list[GameType]:
        return list(await self.games.list_game_types())

    async def close(self) -> None:
        await self.driver.close()
