"""Web Push delivery (CONTRACT.md, Turn-based games): queue a payload for a member, send it
to each of their subscriptions in the background.

:func:`push` returns at once: a move's or a request's path never waits for a push service.
"""

from __future__ import annotations

from typing import Any


async def push(app: Any, member_id: str, payload: dict[str, str]) -> None:
    """Queue ``payload`` (``{"type": "your_turn" | "invited", "game", "title", "body",
    "url"}``) for every push subscription of ``member_id``; returns at once. With push
    disabled (no VAPID key), nothing is sent."""
    sender = getattr(app.state, "push", None)
    if sender is not None:
        sender.enqueue(member_id, payload)
