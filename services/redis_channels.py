"""Redis pub/sub, the same on every deployment: sharded pub/sub (SPUBLISH, SSUBSCRIBE; Redis 7).

A sharded channel lives in the slot of its name, like a key (services.stores.Keys tags each
channel with the keys it goes with). On one server or a Sentinel-watched master that changes
nothing; on a Cluster a message goes only to the node of its channel's slot instead of to every
node, a script may publish on a channel of its own keys' slot, and SPUBLISH counts every
subscriber of the channel (PUBLISH on a Cluster counts only those of the node it reached).

:class:`Subscription` is one process's subscriptions, with the message dicts of redis-py's
classic pub/sub (``subscribe``, ``unsubscribe``, ``message``), whichever deployment it is on.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, cast

from redis.asyncio.client import PubSub
from redis.asyncio.cluster import ClusterPubSub, RedisCluster
from redis.exceptions import RedisError

from services.stores import RedisClient

# How long a Cluster node's reader blocks before it checks that it still has subscriptions.
_NODE_READ_SECONDS = 1.0
# The classic names of the sharded message types.
_TYPES = {"ssubscribe": "subscribe", "sunsubscribe": "unsubscribe", "smessage": "message"}


async def publish(client: RedisClient, channel: str, message: str | int) -> int:
    """Send ``message`` to every subscriber of ``channel``: how many there were."""
    return int(await client.spublish(channel, message))


class Subscription:
    """The channels one process listens to: one connection to each server they live on.

    Each confirmation of a subscription, including the ones redis-py makes when it connects
    again after a lost connection, is a ``subscribe`` message: messages sent meanwhile are lost.
    """

    def __init__(self, client: RedisClient) -> None:
        self._client = client
        self._pubsub: PubSub | ClusterPubSub = client.pubsub()
        # A Cluster: one reader per node with subscriptions, all feeding the inbox.
        self._inbox: asyncio.Queue[dict[str, Any] | BaseException] = asyncio.Queue()
        self._readers: dict[str, tuple[PubSub, asyncio.Task[None]]] = {}  # by node name

    async def subscribe(self, *channels: str) -> None:
        if isinstance(self._client, RedisCluster):
            await self._client.initialize()  # the map of slots, which routes the channels
        await self._pubsub.ssubscribe(*channels)
        if isinstance(self._pubsub, ClusterPubSub):
            self._read_every_node()  # the confirmation of a new node's first channel

    async def unsubscribe(self, *channels: str) -> None:
        await self._pubsub.sunsubscribe(*channels)

    async def get_message(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None after ``timeout`` seconds without one; raises what the
        connection raised when it was lost (the next call connects again)."""
        if not isinstance(self._pubsub, ClusterPubSub):
            message = await self._pubsub.get_message(timeout=timeout)
        else:
            self._read_every_node()
            try:
                item = await asyncio.wait_for(self._inbox.get(), timeout)
            except TimeoutError:
                return None
            if isinstance(item, BaseException):
                raise item
            message = item
        if message is None:
            return None
        kind = str(message["type"])
        return {**message, "type": _TYPES.get(kind, kind)}

    def _read_every_node(self) -> None:
        """A reader for each node that holds subscriptions of ours (new nodes come with new
        channels, and when the Cluster moves a slot elsewhere)."""
        assert isinstance(self._pubsub, ClusterPubSub)
        for name, node_pubsub in self._pubsub.node_pubsub_mapping.items():
            read, reader = self._readers.get(name, (None, None))
            if read is not node_pubsub or reader is None or reader.done():
                task = asyncio.create_task(self._read_node(name, node_pubsub),
                                           name=f"redis channels {name}")
                self._readers[name] = (node_pubsub, task)

    async def _read_node(self, name: str, node_pubsub: PubSub) -> None:
        cluster = cast(ClusterPubSub, self._pubsub)
        client = cast(RedisCluster, self._client)
        while cluster.node_pubsub_mapping.get(name) is node_pubsub:
            node = client.get_node(node_name=name)
            try:
                if node is not None:  # its sunsubscribe confirmations settle its bookkeeping
                    message = await cluster.get_sharded_message(target_node=node,
                                                                timeout=_NODE_READ_SECONDS)
                else:  # no longer in the Cluster: its channels move to their new node
                    message = await node_pubsub.get_message(timeout=_NODE_READ_SECONDS)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                self._inbox.put_nowait(error)
                await asyncio.sleep(0.5)
                continue
            if message is not None:
                self._inbox.put_nowait(message)

    async def aclose(self) -> None:
        readers = [reader for _, reader in self._readers.values()]
        self._readers.clear()
        for reader in readers:
            reader.cancel()
        for reader in readers:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
        with contextlib.suppress(RedisError, OSError):
            await self._pubsub.aclose()
