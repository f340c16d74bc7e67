"""The analysis of one seat's plays in a finished match: the body of CONTRACT's GET
/api/games/{id}/analysis once done (``plays`` and ``summary``), from the public log alone."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bots.analysis import judge, positions

# Called after each play is judged with (plays done, plays of the seat): lets the worker stop
# between plays (a shutdown) and a bench count.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Settings:
    """The search's budget per position and the analysis seed (fixed: the same log gives the same
    analysis)."""

    work: int = judge.WORK
    max_samples: int = judge.MAX_SAMPLES
    seed: int = 0


def analyse(moves: Iterable[Mapping[str, Any]], options: Mapping[str, Any], seat: int,
            settings: Settings = Settings(), progress: Progress | None = None) -> dict[str, Any]:
    """``{"plays": [...], "summary": {...}}`` for ``seat``; positions.UnreadableLog when the log is
    not a finished match."""
    found = positions.positions(positions.plays_of(moves), seat, options)
    plays: list[dict[str, Any]] = []
    losses: list[float] = []
    counts = {"inaccuracy": 0, "mistake": 0, "blunder": 0}
    for done, position in enumerate(found, start=1):
        item: dict[str, Any] = {"number": position.number, "hand": position.hand,
                                "played": {"card": position.card, "capture": list(position.capture)}}
        if not position.auto:
            verdict = judge.judge(position.knowledge, position.card, position.capture, seed=settings.seed,
                                  work=settings.work, max_samples=settings.max_samples)
            item.update(best={"card": verdict.best[0], "capture": list(verdict.best[1])}, loss=verdict.loss,
                        verdict=verdict.verdict)
            losses.append(verdict.loss)
            if verdict.verdict in counts:
                counts[verdict.verdict] += 1
        item["auto"] = position.auto
        plays.append(item)
        if progress is not None:
            progress(done, len(found))
    return {"plays": plays, "summary": {"accuracy": judge.accuracy(losses), "inaccuracies": counts["inaccuracy"],
                                        "mistakes": counts["mistake"], "blunders": counts["blunder"]}}
