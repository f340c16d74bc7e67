"""The analysis of a finished match (CONTRACT.md, Analysis of a finished match): what POST and GET
/api/games/{id}/analysis answer. docs/analysis.md says how each play is judged and what the
thresholds of the verdicts are."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from gateway.contract.common import Absent, Body, Card, OneOf, Seat, absent

STATUSES = ("queued", "running", "done")
VERDICTS = ("best", "good", "inaccuracy", "mistake", "blunder")
MAX_PENDING = 3  # a member's analyses queued or running at once; one more is 409 Too many analyses

ANALYSIS_PLAYS: list[dict[str, Any]] = [
    {"number": 17, "hand": 1, "played": {"card": "05S", "capture": []},
     "best": {"card": "07D", "capture": ["03S", "04B"]}, "loss": 0.42, "verdict": "mistake", "auto": False},
    {"number": 21, "hand": 1, "played": {"card": "02C", "capture": []}, "auto": True},
    {"number": 25, "hand": 1, "played": {"card": "10B", "capture": ["10D"]},
     "best": {"card": "10B", "capture": ["10D"]}, "loss": 0.0, "verdict": "best", "auto": False},
]
ANALYSIS_DONE: dict[str, Any] = {
    "status": "done", "seat": 2, "plays": ANALYSIS_PLAYS,
    "summary": {"accuracy": 87, "inaccuracies": 3, "mistakes": 1, "blunders": 0},
}
ANALYSIS_QUEUED: dict[str, Any] = {"status": "queued", "seat": 2}


class AnalysedMove(Body):
    """A card and what it took."""

    card: Card
    capture: list[Card] = Field(description="The table cards taken, sorted; empty when none.")


class AnalysedPlay(Body):
    """One play of the seat, judged from what the seat knew then: its own hand and everything public."""

    number: int = Field(ge=1, description="The play's move number in the log (GET /api/games/{id}/log).")
    hand: int = Field(ge=1, description="The hand it was played in, from 1.")
    played: AnalysedMove = Field(description="What the seat played.")
    best: AnalysedMove | Absent = absent(
        "The play the analysis rates best (the same as `played` when that was best); absent for an auto-play.")
    loss: float | Absent = absent(
        "Expected points the play lost against `best`, ≥ 0, rounded to 2 decimals; absent for an auto-play.",
        ge=0)
    verdict: Annotated[str, OneOf(*VERDICTS)] | Absent = absent(
        "`best`, `good`, `inaccuracy`, `mistake` or `blunder`, by the thresholds of docs/analysis.md; a play "
        "that was the only legal one is `best`. Absent for an auto-play.")
    auto: bool = Field(description="Played by the server because the seat's turn deadline passed: listed, not "
                                   "judged.")


class AnalysisSummary(Body):
    """The figures of the seat's judged plays (auto-plays not counted)."""

    accuracy: int = Field(ge=0, le=100, description="0..100: the mean of each judged play's accuracy (100 for "
                                                    "no loss, falling with the loss: docs/analysis.md), "
                                                    "rounded; 100 when no play was judged.")
    inaccuracies: int = Field(ge=0, description="Plays judged `inaccuracy`.")
    mistakes: int = Field(ge=0, description="Plays judged `mistake`.")
    blunders: int = Field(ge=0, description="Plays judged `blunder`.")


class Analysis(Body):
    """The analysis of the caller's plays in a finished game: `plays` and `summary` once done."""

    model_config = ConfigDict(json_schema_extra={"examples": [ANALYSIS_QUEUED, ANALYSIS_DONE]})
    status: Annotated[str, OneOf(*STATUSES)] = Field(
        description="`queued` (waiting for a worker), `running` or `done`.")
    seat: Seat = Field(description="The caller's seat at the game: the plays analysed are that seat's.")
    plays: list[AnalysedPlay] | Absent = absent("Once done: every play of the seat, in the log's order.")
    summary: AnalysisSummary | Absent = absent("Once done.")
