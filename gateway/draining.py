"""How a gateway stops without dropping anyone: it drains before it exits.

Kubernetes stops routing to a pod it deletes, but the endpoints controller and the ingress
controllers learn of it a moment later, and a game socket lives for a whole match. So the
gateway, told to stop (SIGTERM; Ctrl-C), drains (gateway.server starts it):

1. ``/api/health`` answers 503 and new game sockets are refused (503), so a readiness probe
   takes the pod out of its Service if it is still in one, and nothing new starts here;
2. it waits SHUTDOWN_DRAIN_SECONDS, serving everything else as before (with the chart, the
   preStop hook made that wait before the signal came: there it is 0);
3. every game socket closes with 1012 "Service Restart" once the message it is handling (a move
   on its way) is answered and what was queued for it is written (gateway.ws); the app reconnects
   soon, to another replica, and its first ``state`` is whole. The open games' event streams end
   (EventSource reconnects by itself);
4. uvicorn finishes the HTTP requests under way and the process exits 0.

From the signal to the exit takes at most the pause plus :data:`EXIT_SECONDS`
(charts/tavolo sizes terminationGracePeriodSeconds from it).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.applications import Starlette

log = logging.getLogger(__name__)

# How long the sockets get to close cleanly (a move being answered, the messages queued for a
# slow reader) before uvicorn's own shutdown drops those left with a bare 1012.
SOCKETS_CLOSE_SECONDS = 5.0
# How long uvicorn then waits for the HTTP requests under way (uvicorn's timeout_graceful_shutdown).
REQUESTS_FINISH_SECONDS = 10
# From the end of the pause to the exit, at most: the sockets, the requests, closing the clients.
EXIT_SECONDS = 20


class Drain:
    """Whether this gateway is stopping, and its drain."""

    def __init__(self, pause_seconds: float = 0.0):
        self.pause_seconds = pause_seconds
        self.started = False

    async def run(self, app: Starlette) -> None:
        """Refuse what is new, wait the pause, then restart every socket and end the event
        streams; returns once no socket is open (or SOCKETS_CLOSE_SECONDS passed)."""
        self.started = True
        sockets = app.state.sockets
        log.info("gateway stopping: new sockets refused; %d open close in %g s",
                 len(sockets), self.pause_seconds)
        if self.pause_seconds > 0:
            await asyncio.sleep(self.pause_seconds)
        sockets.restart_all()
        app.state.open_games.end_streams()
        if not await sockets.closed(SOCKETS_CLOSE_SECONDS):
            log.warning("gateway stopping: %d socket(s) did not close within %g s",
                        len(sockets), SOCKETS_CLOSE_SECONDS)
