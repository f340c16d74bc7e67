"""The deadline service's figures: how late each fire was, how deep the queue is."""

from __future__ import annotations

import time

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from deadlines.entry import Entry
from services.config import TelemetrySettings
from services.observability import telemetry as otel
from tests.deadlines.conftest import consuming
from tests.deadlines.fakes import due_token


@pytest.fixture
def telemetry():
    """Metrics only, read from the registry a scrape would read (no port is opened)."""
    made = otel.setup(TelemetrySettings(metrics_port=9464, metrics_poll_interval_s=600),
                      "deadlines")
    assert made is not None
    yield made
    made.shutdown()


def samples(telemetry) -> dict[str, list]:
    found: dict[str, list] = {}
    for family in text_string_to_metric_families(generate_latest(telemetry.registry).decode()):
        for sample in family.samples:
            found.setdefault(sample.name, []).append(sample)
    return found


async def test_each_fire_records_its_lateness_and_the_gauges_the_queue(queue, game_server,
                                                                       game_target, telemetry):
    now = int(time.time() * 1000)
    late = due_token(now - 2_000, "late")
    await queue.schedule(Entry("table-1", "turn", late), now - 2_000)
    for n in range(3):  # far in the future: they wait
        await queue.schedule(Entry(f"table-{n + 2}", "turn", due_token(now + 600_000, f"w{n}")),
                             now + 600_000)
    async with consuming(queue, game_target):
        await game_server.game.wait_for(late)
        telemetry.gauges(otel.deadline_queue_depth(queue.counts))
        for _ in range(50):  # the ack follows the answer
            await telemetry.refresh_gauges()
            if samples(telemetry)["tavolo_deadline_queue_in_flight"][0].value == 0:
                break

    found = samples(telemetry)
    (count,) = found["tavolo_deadline_lateness_seconds_count"]
    assert count.value == 1
    assert count.labels["tavolo_deadline_kind"] == "turn"
    assert count.labels["tavolo_deadline_outcome"] == "fired"
    (total,) = found["tavolo_deadline_lateness_seconds_sum"]
    assert 2.0 <= total.value < 5.0   # seconds: it was due two seconds before it was scheduled
    assert found["tavolo_deadline_queue_depth"][0].value == 3
    assert found["tavolo_deadline_queue_in_flight"][0].value == 0
