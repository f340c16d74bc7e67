"""Which game replica owns a table: rendezvous hashing of the table id over the replicas.

Every caller that routes by owner (the gateways) computes the same owner from the same list of
replicas, without talking to each other: each replica gets a weight from a hash of its address
and the table id, and the heaviest one owns the table. When a replica goes, only its tables move
(each to its own next heaviest); when one comes, it takes a fair share, taken from every other.

The list comes from the target the game service is reached at (GAME_REPLICAS_ADDR, else
GAME_ADDR): a DNS name is resolved again at most every RESOLVE_SECONDS, when calls come, one
replica per address (a
Kubernetes headless Service gives one per ready pod); ``ipv4:``/``ipv6:`` lists are taken as
they are. gRPC's own balancers cannot do this: grpcio has no hash of a request field to pick a
connection by.

Ownership is a routing choice, never a guard: the revision-checked append keeps two replicas
that both think they own a table (a gateway that has not yet seen a change of the list) from
both landing a move.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import logging
import re
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

# How often, at most, a DNS name is resolved again (in the background of the calls that find
# the answer older): a replica that came or went is routed to, or not, about this long after
# the DNS says so (Kubernetes' DNS answers with a 5 s TTL).
RESOLVE_SECONDS = 5.0


def owner_of(table_id: str, replicas: Sequence[str]) -> str:
    """The replica (an address of ``replicas``) that owns ``table_id``."""
    if not replicas:
        raise ValueError("no game replica to own the table")
    if len(replicas) == 1:
        return replicas[0]
    return max(replicas, key=lambda replica: _weight(replica, table_id))


def _weight(replica: str, table_id: str) -> bytes:
    return hashlib.blake2b(f"{replica}\n{table_id}".encode(), digest_size=8).digest()


@dataclass(frozen=True)
class ReplicaTarget:
    """What a gRPC target says about the replicas behind it: a fixed list (``addresses``), or a
    DNS ``host`` to resolve at ``port``."""

    addresses: tuple[str, ...] = ()
    host: str | None = None
    port: int = 0

    @classmethod
    def parse(cls, target: str) -> ReplicaTarget:
        if target.startswith(("ipv4:", "ipv6:")):
            return cls(addresses=tuple(a for a in target.split(":", 1)[1].split(",") if a))
        # dns:[//authority/]host:port (the authority, a DNS server, is left to the resolver)
        name = re.sub(r"^dns:(//[^/]*/)?", "", target)
        host_port = re.fullmatch(r"\[?([^\[\]/]+?)\]?:(\d+)", name)
        if host_port is None:  # another scheme (unix:, xds:...): one target, whatever is behind
            return cls(addresses=(target,))
        host, port = host_port[1], int(host_port[2])
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return cls(host=host, port=port)
        return cls(addresses=(target,))


async def resolve(host: str, port: int) -> tuple[str, ...]:
    """The addresses ``host`` resolves to, of one family: IPv4 when it has any, else the one
    the resolver gives (a dual-stack name gives each replica once per family; a server bound
    to 127.0.0.1 only is not reached at the ::1 a localhost may resolve to first)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    if not infos:
        return ()
    families = {info[0] for info in infos}
    family = socket.AF_INET if socket.AF_INET in families else infos[0][0]
    found = dict.fromkeys(
        f"[{info[4][0]}]:{port}" if family == socket.AF_INET6 else f"{info[4][0]}:{port}"
        for info in infos if info[0] == family)
    return tuple(sorted(found))


class Replica(Protocol):
    """A connection to one replica, as :class:`Owners` needs it."""

    def reachable(self) -> bool:
        """False while the last attempt to reach it failed and no new one has succeeded."""
        ...

    async def aclose(self) -> None: ...


R = TypeVar("R", bound=Replica)


class Owners(Generic[R]):
    """The replicas behind ``target``, each with its connection (``connect(address)``), and the
    one that owns a table.

    A replica that cannot be reached is passed over, so its tables go to their next owner until
    it answers again (or leaves the DNS answer); when none can be reached, the owner is picked
    among all of them, and the call fails as it would have anyway.
    """

    def __init__(self, target: str, connect: Callable[[str], R],
                 resolve_addresses: Callable[[str, int], Awaitable[tuple[str, ...]]] = resolve,
                 resolve_seconds: float = RESOLVE_SECONDS):
        self._target = ReplicaTarget.parse(target)
        self._fallback = target
        self._connect = connect
        self._resolve = resolve_addresses
        self._resolve_seconds = resolve_seconds
        self._replicas: dict[str, R] = {}
        self._resolved_at = -float("inf")
        self._refresh: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        if self._target.host is None:
            self._use(self._target.addresses)

    @property
    def addresses(self) -> tuple[str, ...]:
        return tuple(self._replicas)

    async def owner(self, table_id: str) -> R:
        """The connection to the replica that owns ``table_id``."""
        if self._target.host is not None:
            await self._keep_resolved()
        if not self._replicas:  # the name resolves to no replica now (a rollout), or closed
            raise ServiceError(Reason.UNAVAILABLE, "no game replica to own the table")
        reachable = [address for address, replica in self._replicas.items()
                     if replica.reachable()]
        return self._replicas[owner_of(table_id, reachable or list(self._replicas))]

    async def _keep_resolved(self) -> None:
        if time.monotonic() - self._resolved_at < self._resolve_seconds:
            return
        if self._refresh is None or self._refresh.done():
            self._refresh = asyncio.create_task(self._resolve_again(), name="game replicas")
        if not self._replicas:  # the first calls wait for the first answer
            await asyncio.shield(self._refresh)

    async def _resolve_again(self) -> None:
        assert self._target.host is not None
        try:
            addresses = await self._resolve(self._target.host, self._target.port)
        except Exception as error:  # noqa: BLE001 - any failure: keep what was known
            addresses = ()
            log.warning("could not resolve the game replicas at %s: %s", self._target.host, error)
        self._resolved_at = time.monotonic()
        if addresses:
            self._use(addresses)
        elif not self._replicas:
            # Nothing known: the target itself, which fails its calls as gRPC would.
            self._use((self._fallback,))

    def _use(self, addresses: Sequence[str]) -> None:
        gone = [address for address in self._replicas if address not in addresses]
        for address in gone:
            # its calls fail as UNAVAILABLE: their callers watch again, at the new owner
            closing = asyncio.get_running_loop().create_task(self._replicas.pop(address).aclose())
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
        new = [address for address in addresses if address not in self._replicas]
        for address in new:
            self._replicas[address] = self._connect(address)
        if gone or new:
            log.info("game replicas: %s", ", ".join(self._replicas))

    async def aclose(self) -> None:
        if self._refresh is not None:
            self._refresh.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._refresh
        for replica in self._replicas.values():
            await replica.aclose()
        self._replicas.clear()
        await asyncio.gather(*self._closing)
