"""Why the gateway closes a WebSocket: each close code and reason of docs/websocket.md, once."""

from __future__ import annotations

from typing import NamedTuple


class Close(NamedTuple):
    code: int
    reason: str


GAME_GONE = Close(1000, "Game not found")      # a game that expired before it started
NOT_SEATED = Close(1000, "Not seated at this game")  # the member left the seat (the waiting room)
SESSION_ENDED = Close(1008, "Session ended")   # policy violation: the socket's session is gone
MESSAGE_TOO_BIG = Close(1009, "Message too big")
TOO_SLOW = Close(1013, "Too slow")             # Try Again Later: reconnect, the next view is whole
SERVICE_RESTART = Close(1012, "Service Restart")  # the gateway stops (a rollout): reconnect soon
