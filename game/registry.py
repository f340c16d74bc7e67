"""The catalogue of engines the game service hosts, looked up by game type id."""

from __future__ import annotations

from game.dummy import DummyEngine
from game.engine import Engine
from game.scopone import ScoponeEngine
from game.scopone.engine import DAY_MS


class UnknownGameType(KeyError):
    """No engine has this id; ``str()`` is CONTRACT's "Unknown game type: <id>"."""

    def __init__(self, game_id: str):
        super().__init__(game_id)
        self.game_id = game_id

    def __str__(self) -> str:
        return f"Unknown game type: {self.game_id}"


class Registry:
    """Engines by id, listed in registration order (the catalogue's order)."""

    def __init__(self) -> None:
        self._engines: dict[str, Engine] = {}

    def register(self, engine: Engine) -> None:
        if engine.id in self._engines:
            raise ValueError(f"an engine {engine.id!r} is already registered")
        self._engines[engine.id] = engine

    def get(self, game_id: str) -> Engine:
        try:
            return self._engines[game_id]
        except (KeyError, TypeError):
            raise UnknownGameType(game_id) from None

    def list(self) -> list[Engine]:
        return list(self._engines.values())

    def __contains__(self, game_id: object) -> bool:
        return isinstance(game_id, str) and game_id in self._engines


def default_registry(turn_timeout_ms: int = 30000, hand_ack_timeout_ms: int = 30000,
                     entropy_timeout_ms: int = 10000, *, daily_timeout_ms: int = DAY_MS,
                     dummy: bool = False) -> Registry:
    """Scopone scientifico (the default game type); with ``dummy``, the platform's test game too.

    The dummy game is for tests (DUMMY_GAME); offered to players it would only be a way to farm
    ratings and to run tables nobody means to finish. ``daily_timeout_ms`` is every deadline of a
    daily game (DAILY_TURN_HOURS); the others are a live game's.
    """
    registry = Registry()
    registry.register(ScoponeEngine(turn_timeout_ms=turn_timeout_ms, hand_ack_timeout_ms=hand_ack_timeout_ms,
                                    entropy_timeout_ms=entropy_timeout_ms, daily_timeout_ms=daily_timeout_ms))
    if dummy:
        registry.register(DummyEngine(turn_timeout_ms=turn_timeout_ms))
    return registry
