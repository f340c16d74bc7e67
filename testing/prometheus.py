"""Reading a process's Prometheus metrics in a test: one scrape, its samples summed by label."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from testing.stack import Stack


class Scrape:
    """One scrape of a process: its samples, summed over the labels a question leaves open."""

    def __init__(self, text: str):
        self.samples = [sample for family in text_string_to_metric_families(text)
                        for sample in family.samples]

    def value(self, name: str, **labels: str) -> float:
        found = [s.value for s in self.samples if s.name == name
                 and all(s.labels.get(k) == v for k, v in labels.items())]
        assert found, (name, labels)
        return sum(found)

    def has(self, name: str, **labels: str) -> bool:
        return any(s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
                   for s in self.samples)


async def scrape(stack: Stack, component: str) -> Scrape:
    """The metrics process ``component`` (``game``, ``game2``, ``gateway``...) serves now."""
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.get(stack.metrics_url(component))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return Scrape(response.text)
