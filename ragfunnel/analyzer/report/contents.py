"""The report model: everything a report says, as plain frozen values ready for JSON.

Built by ``build.py`` from a funnel result; rendered by ``terminal.py``, ``html.py`` and
``exports.py``. It must never hold a polars frame or anything proportional to the number of
questions beyond the few questions chosen for the drill-down.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Abstention",
    "Finding",
    "Generation",
    "LostEvidence",
    "MetricValue",
    "Report",
    "RunReport",
    "Share",
    "to_jsonable",
]

FAILED_STAGES = ("ingestion", "ingestion_or_search", "search", "rerank", "cut", "generation")
"""First failures that mean a wrong (or wrongly given) answer, upstream to downstream."""
UPSTREAM = FAILED_STAGES[:-1]
OK_STAGES = ("ok", "ok_without_evidence")


@dataclass(frozen=True)
class Share:
    """How many questions failed first at one stage, with a Wilson 95 % interval."""

    stage: str
    count: int
    total: int
    share: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class MetricValue:
    """A metric's mean over a run's questions with its 95 % interval (see docs/funnel.md)."""

    metric: str
    at: str
    mean: float
    ci_low: float
    ci_high: float
    n: int
    n_undefined: int
    method: str


@dataclass(frozen=True)
class Finding:
    """One failing stage in the diagnosis: its count and what the failures have in common."""

    stage: str
    count: int
    details: tuple[str, ...]
    parts: tuple[tuple[str, int], ...] = ()
    """Different work within one stage, each with its count (the cut's: evidence dropped by
    the cut, unanswerable questions let through by the gate, answerable ones it stopped)."""


@dataclass(frozen=True)
class LostEvidence:
    """An evidence id lost at ingestion or search, and how many questions needed it."""

    id: str
    lost_at: str
    questions: int


@dataclass(frozen=True)
class Generation:
    """Faithfulness and answer correctness, present only when verdicts exist.

    Never combined with a retrieval metric: a single average would hide a weak retriever.
    """

    judged: int
    faithfulness: MetricValue | None
    faithfulness_bins: tuple[int, ...]
    """Counts of faithfulness in eleven bins: [0, 0.1), …, [0.9, 1.0), and exactly 1.0."""
    correctness: dict[str, int]
    unsupported_claims: int
    confidence: MetricValue | None = None
    """The mean answer confidence (docs/judges.md, "Scores to rank answers by"), when judged."""
    confidence_bins: tuple[int, ...] = ()
    """Counts of confidence in the same eleven bins as faithfulness."""


@dataclass(frozen=True)
class Abstention:
    """Abstention against answerability, and the risk–coverage curve of the top score."""

    confusion: dict[str, int]
    """``answerable_answered``, ``answerable_abstained``, ``unanswerable_answered``,
    ``unanswerable_abstained``."""
    curve: tuple[tuple[float, float, float], ...]
    """(score threshold, coverage, risk) points, highest threshold first; empty without scores."""


@dataclass(frozen=True)
class RunReport:
    """Everything the report says about one run (its pipeline questions, latest of each)."""

    run_id: str
    questions: int
    failed: int
    unjudged: int
    incomplete: int
    shares: tuple[Share, ...]
    findings: tuple[Finding, ...]
    diagnosis: str
    metrics: tuple[MetricValue, ...]
    lost_evidence: tuple[LostEvidence, ...]
    funnel: tuple[tuple[str, int], ...]
    """(stage, questions whose evidence reached it): index → candidates → reranked → prompt →
    answered, over answerable questions with a complete trace."""
    ranks: tuple[tuple[str, int], ...]
    """Gold evidence items per rank bin at the last ranking stage, "not ranked" last."""
    cut_k: int | None
    generation: Generation | None
    abstention: Abstention
    config: dict[str, Any]
    worst: tuple[dict[str, Any], ...]
    """The worst questions' drill-down entries (see ``build.drilldown``)."""
    oracle_questions: int = 0
    worst_total: int = 0
    """How many questions could have been listed as worst (failed or incomplete traces)."""
    lost_total: int = 0
    """How many distinct evidence ids the run's failed questions lost upstream."""


@dataclass(frozen=True)
class Report:
    """A report over one or more runs of one analysis."""

    runs: tuple[RunReport, ...]
    index_truth: str
    k: tuple[int, ...]
    total_records: int
    unmatched_questions: int
    cases_without_trace: tuple[str, ...]
    sample: tuple[dict[str, Any], ...] = ()
    """A seeded random sample of questions (drill-down entries) beside the worst ones."""
    jaeger_url: str | None = None
    generated_at: str = ""
    """When the report was built: ISO 8601 with the zone (UTC)."""
    ragfunnel_version: str = ""
    store: str | None = None
    """The store analyzed, its DSN with any password redacted."""
    cases_file: str | None = None
    """Where the cases came from (the file given to ``--cases``)."""
    notices: tuple[str, ...] = ()
    """What the analysis says of how it ran (``FunnelResult.notices``), e.g. cases naming
    evidence by quote in chunks recorded without text."""

    def run(self, run_id: str) -> RunReport:
        """The report of one run; ``KeyError`` when the report has no such run."""
        for run in self.runs:
            if run.run_id == run_id:
                return run
        raise KeyError(run_id)


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def to_jsonable(value: Any) -> Any:
    """A dataclass tree as JSON values: NaN becomes null, tuples lists, datetimes ISO text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return _clean(value)
