"""The watch on client addresses: a gauge of each window's distinct addresses, and one warning
when many sessions come from a few addresses (a wrong FORWARDED_ALLOW_IPS)."""

from __future__ import annotations

import logging

from gateway.client_addresses import ClientAddresses


def _window(addresses: ClientAddresses, clients: list[str], sessions: int, requests: int = 10) -> None:
    for n in range(requests):
        addresses.observe(clients[n % len(clients)], f"session-{n % sessions}")


def test_many_sessions_behind_one_proxy_address_warn_once_and_show_in_the_gauge(caplog):
    addresses = ClientAddresses(window=10, few=2, many_sessions=5)
    with caplog.at_level(logging.WARNING, logger="gateway.client_addresses"):
        _window(addresses, ["10.0.3.17"], sessions=10)
        _window(addresses, ["10.0.3.17"], sessions=10)
    assert addresses.last_window == 1
    (warning,) = caplog.records
    assert "FORWARDED_ALLOW_IPS" in warning.getMessage() and "10.0.3.17" in warning.getMessage()


def test_players_own_addresses_or_a_single_tester_do_not_warn(caplog):
    spread = ClientAddresses(window=10, few=2, many_sessions=5)
    one_person = ClientAddresses(window=10, few=2, many_sessions=5)
    local = ClientAddresses(window=10, few=2, many_sessions=5)
    with caplog.at_level(logging.WARNING, logger="gateway.client_addresses"):
        _window(spread, [f"198.51.100.{n}" for n in range(10)], sessions=10)
        _window(one_person, ["203.0.113.9"], sessions=1)
        _window(local, ["127.0.0.1"], sessions=10)  # make run
    assert caplog.records == []
    assert (spread.last_window, one_person.last_window, local.last_window) == (10, 1, 1)


async def test_the_gauge_reads_zero_before_a_full_window():
    addresses = ClientAddresses(window=10)
    addresses.observe("198.51.100.1", None)
    assert await addresses.count() == 0
