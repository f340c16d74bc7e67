"""A table's moves and watches go to the game replica that owns it (game.owners): the same
owner for every caller, a fair share for each replica, and the next owner while a replica
cannot be reached."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import pytest

from game.client import GameClient
from game.live_link import LiveLink
from game.owners import Owners, ReplicaTarget, owner_of
from game.servicer import GameServicer
from services.config import GrpcSecurity
from services.rpc.errors import Reason, ServiceError
from services.rpc.transport_security import ClientCredentials
from testing.certificates import CertificateAuthority
from testing.waiting import eventually
from tests.game_service.conftest import SEATS, serving, start_service

ADD = {"action": "add", "n": 1}
REPLICAS = ("10.0.0.1:50052", "10.0.0.2:50052", "10.0.0.3:50052")


def test_every_table_has_one_owner_and_each_replica_a_fair_share():
    tables = [str(uuid.uuid4()) for _ in range(3000)]
    owners = [owner_of(table, REPLICAS) for table in tables]
    assert owners == [owner_of(table, tuple(reversed(REPLICAS))) for table in tables]
    shares = Counter(owners)
    assert set(shares) == set(REPLICAS)
    assert all(800 <= share <= 1200 for share in shares.values()), shares


def test_a_replica_that_goes_takes_only_its_own_tables_with_it():
    tables = [str(uuid.uuid4()) for _ in range(1000)]
    before = {table: owner_of(table, REPLICAS) for table in tables}
    after = {table: owner_of(table, REPLICAS[:2]) for table in tables}
    moved = [table for table in tables if before[table] != after[table]]
    assert moved and all(before[table] == REPLICAS[2] for table in moved)
    # and one that comes takes tables from every other, and nothing moves between them
    grown = {table: owner_of(table, (*REPLICAS, "10.0.0.4:50052")) for table in tables}
    changed = [table for table in tables if grown[table] != before[table]]
    assert {before[table] for table in changed} == set(REPLICAS)
    assert all(grown[table] == "10.0.0.4:50052" for table in changed)


def test_no_replica_owns_nothing():
    with pytest.raises(ValueError):
        owner_of("t", ())


@pytest.mark.parametrize(("target", "parsed"), [
    ("127.0.0.1:50052", ReplicaTarget(addresses=("127.0.0.1:50052",))),
    ("[::1]:50052", ReplicaTarget(addresses=("[::1]:50052",))),
    ("ipv4:10.0.0.1:1,10.0.0.2:1", ReplicaTarget(addresses=("10.0.0.1:1", "10.0.0.2:1"))),
    ("ipv6:[::1]:1,[::2]:1", ReplicaTarget(addresses=("[::1]:1", "[::2]:1"))),
    ("game-replicas:50052", ReplicaTarget(host="game-replicas", port=50052)),
    ("dns:///game-replicas.ns.svc:50052", ReplicaTarget(host="game-replicas.ns.svc", port=50052)),
    ("dns://10.96.0.10/game:7", ReplicaTarget(host="game", port=7)),
    ("unix:///run/game.sock", ReplicaTarget(addresses=("unix:///run/game.sock",))),
])
def test_a_target_says_which_replicas_are_behind_it(target, parsed):
    assert ReplicaTarget.parse(target) == parsed


class FakeReplica:
    def __init__(self, address: str):
        self.address = address
        self.up = True
        self.closed = False

    def reachable(self) -> bool:
        return self.up

    async def aclose(self) -> None:
        self.closed = True


class FakeDns:
    """What the name resolves to; OSError when ``answer`` is one."""

    def __init__(self, *answer: str):
        self.answer: tuple[str, ...] | OSError = answer
        self.asked = 0

    async def __call__(self, host: str, port: int) -> tuple[str, ...]:
        self.asked += 1
        if isinstance(self.answer, OSError):
            raise self.answer
        return self.answer


async def test_a_replica_out_of_reach_is_passed_over_until_it_answers():
    owners = Owners(f"ipv4:{','.join(REPLICAS)}", FakeReplica)
    tables = [str(uuid.uuid4()) for _ in range(300)]
    first = {table: await owners.owner(table) for table in tables}
    lost = first[tables[0]]
    lost.up = False
    for table in tables:
        owner = await owners.owner(table)
        assert owner is not lost
        if first[table] is not lost:
            assert owner is first[table]  # the others' tables stay where they are
    lost.up = True
    assert all([await owners.owner(table) is first[table] for table in tables])
    for replica in first.values():
        replica.up = False  # none answers: each table is tried at its owner
    assert all([await owners.owner(table) is first[table] for table in tables])


async def test_the_replicas_follow_the_dns_answer():
    dns = FakeDns(*REPLICAS[:2])
    owners = Owners("dns:///game-replicas:50052", FakeReplica, resolve_addresses=dns,
                    resolve_seconds=0)
    await owners.owner("t")  # the first call waits for the answer
    assert owners.addresses == REPLICAS[:2]
    gone = next(r for r in [await owners.owner(str(n)) for n in range(50)]
                if r.address == REPLICAS[1])
    dns.answer = (REPLICAS[0], REPLICAS[2])
    await eventually(_owned_by(owners, REPLICAS[0], REPLICAS[2]), timeout=5, interval=0.01)
    await eventually(_closed(gone), timeout=5, interval=0.01)  # its calls end: their callers
    # go to the new owner
    dns.answer = OSError("no answer")  # a failing DNS keeps what it said last
    asked = dns.asked
    await eventually(_asked(owners, dns, asked + 2), timeout=5, interval=0.01)
    assert set(owners.addresses) == {REPLICAS[0], REPLICAS[2]}
    await owners.aclose()


async def test_a_name_that_never_resolves_is_called_as_it_is():
    owners = Owners("game-replicas:50052", FakeReplica, resolve_addresses=FakeDns())
    assert (await owners.owner("t")).address == "game-replicas:50052"
    await owners.aclose()


def _owned_by(owners: Owners, *addresses: str):
    async def check() -> bool:
        await owners.owner("t")
        await asyncio.sleep(0)
        return set(owners.addresses) == set(addresses)
    return check


def _closed(replica: FakeReplica):
    async def check() -> bool:
        return replica.closed
    return check


def _asked(owners: Owners, dns: FakeDns, times: int):
    async def check() -> bool:
        await owners.owner("t")
        await asyncio.sleep(0)
        return dns.asked >= times
    return check


class CountingGame(GameServicer):
    """A replica that notes the tables it was asked to move and to watch."""

    def __init__(self, tables):
        super().__init__(tables)
        self.moved: list[str] = []
        self.watched: list[str] = []

    async def Act(self, request, context):
        self.moved.append(request.table_id)
        return await super().Act(request, context)

    async def WatchTable(self, request, context):
        self.watched.append(request.table_id)
        async for views in super().WatchTable(request, context):
            yield views


async def test_each_tables_moves_and_watches_go_to_its_owner_over_real_grpc(tables):
    """Two replicas over one store (as two processes over one Redis and Postgres would be):
    each table is moved and watched only at its owner; a stopped owner's tables go to the
    other replica, and come back when it is back at its address."""
    replicas = [CountingGame(tables), CountingGame(tables)]
    started = [await start_service(tables, servicer=servicer) for servicer in replicas]
    addresses = [service.address for service in started]
    client = GameClient(addresses[0])
    link = LiveLink("ipv4:" + ",".join(addresses), timeout_seconds=2)
    try:
        table_ids = [(await client.create_table("dummy", SEATS, {"target": 50}))["table_id"]
                     for _ in range(12)]
        for table_id in table_ids:
            watch = link.watch_table(table_id)
            assert (await anext(watch)).revision == 0
            await link.act(table_id, SEATS[0], ADD, expected_revision=0)
            assert (await anext(watch)).revision == 1
            await watch.aclose()
        owner_index = {t: addresses.index(owner_of(t, addresses)) for t in table_ids}
        for index, replica in enumerate(replicas):
            mine = sorted(t for t in table_ids if owner_index[t] == index)
            assert mine, "each replica owns some of the tables"
            assert sorted(replica.moved) == mine and sorted(replica.watched) == mine

        table_id = table_ids[0]
        owner, other = owner_index[table_id], 1 - owner_index[table_id]
        await started[owner].stop()
        revision = 1
        moved_before = len(replicas[other].moved)

        async def moved_at_the_other() -> bool:
            nonlocal revision
            try:
                acted = await link.act(table_id, SEATS[revision % 4], ADD,
                                       expected_revision=revision)
            except ServiceError as error:  # the owner's going is noticed by a failed call
                assert error.reason is Reason.UNAVAILABLE, error
                return False
            revision = acted.revision
            return True

        await eventually(moved_at_the_other, timeout=10, what="the other replica never moved")
        assert replicas[other].moved[moved_before:] == [table_id]

        replicas[owner] = CountingGame(tables)  # back at its address: its tables come back
        started[owner] = await start_service(tables, addresses[owner], replicas[owner])

        async def moved_at_the_owner() -> bool:
            await moved_at_the_other()
            return bool(replicas[owner].moved)

        await eventually(moved_at_the_owner, timeout=15, what="the owner never got its table back")
        assert replicas[owner].moved == [table_id]
    finally:
        await link.close()
        await client.close()
        for service in started:
            await service.stop()


async def test_a_replica_dialled_by_its_address_is_checked_against_the_services_name(
        tables, tmp_path):
    """With TLS, each replica is dialled by its address: its certificate is checked against
    the name the service is called by (here localhost, which the certificate holds; it does
    not hold 127.0.0.1, the address dialled)."""
    authority = CertificateAuthority(tmp_path)

    def security(name: str) -> GrpcSecurity:
        cert, key = authority.issue(name, ip_address=False)
        return GrpcSecurity(tls_cert_file=str(cert), tls_key_file=str(key),
                            tls_ca_file=str(authority.ca_file))

    async with serving(tables, security=security("game")) as service:
        address = f"localhost:{service.address.rsplit(':', 1)[1]}"
        credentials = ClientCredentials.of(security("gateway"))
        client = GameClient(address, credentials=credentials)
        link = LiveLink(address, credentials=credentials)
        try:
            table_id = (await client.create_table("dummy", SEATS))["table_id"]
            assert (await link.act(table_id, SEATS[0], ADD)).revision == 1
            assert link._owners.addresses == (service.address,)
        finally:
            await link.close()
            await client.close()


async def test_no_replica_at_all_is_unavailable_so_callers_try_again():
    """Closed (a gateway stopping), or a name that resolves to nobody for a moment: the callers'
    watches and moves get the transient UNAVAILABLE they retry, never an unexpected error that
    would end a table's feed."""
    owners = Owners(f"ipv4:{','.join(REPLICAS)}", FakeReplica)
    await owners.aclose()
    with pytest.raises(ServiceError) as refused:
        await owners.owner("t")
    assert refused.value.reason is Reason.UNAVAILABLE and refused.value.reason.transient
