"""The CI gate: limits on a report's measures, and one readable line per breached limit.

``--fail-under faithfulness=0.85`` breaches when a run's measure is below 0.85,
``--fail-over share.search=0.10`` when it is above; a measure a run does not have (no judged
answers, say) breaches too — a gate that cannot check must not pass. Names are listed in
docs/report.md. It reads the report model only and must never exit the process itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ragfunnel.analyzer.funnel.records.first_failure import FIRST_FAILURES
from ragfunnel.analyzer.funnel.run_summaries import METRICS
from ragfunnel.analyzer.report import wording
from ragfunnel.analyzer.report.contents import FAILED_STAGES, Report, RunReport
from ragfunnel.analyzer.report.report_error import ReportError

__all__ = ["Limit", "check_limits", "measure", "parse_limits"]

_SHARES = (*FIRST_FAILURES, "failed")
GENERATION_MEASURES = ("faithfulness", "confidence", "answer_correctness")


@dataclass(frozen=True)
class Limit:
    """``name`` must stay at or above (``under``) / at or below (``over``) ``bound``."""

    name: str
    bound: float
    kind: str
    text: str

    @property
    def flag(self) -> str:
        """The option as a user writes it: ``--fail-under faithfulness=0.85``."""
        return f"--fail-{self.kind} {self.text}"


def _known() -> str:
    return ", ".join(
        [*(f"share.{s}" for s in _SHARES), *METRICS, "METRIC@K", *GENERATION_MEASURES]
    )  # fmt: skip


def _check_name(name: str, flag: str) -> None:
    if name.startswith("share."):
        if name[6:] in _SHARES:
            return
    else:
        metric, _, at = name.partition("@")
        if metric in GENERATION_MEASURES and not at:
            return
        if metric in METRICS and (not at or at == "cut" or at.isdigit()):
            return
    raise ReportError(f"{flag}: unknown measure {name!r}; known: {_known()}")


def parse_limits(texts: Iterable[str], kind: str) -> list[Limit]:
    """``["faithfulness=0.85", …]`` as limits of ``kind`` (``under`` or ``over``).

    Raises:
        ReportError: not ``NAME=NUMBER``, an unknown name, or a bound that is not a number.
    """
    if kind not in ("under", "over"):
        raise ValueError(f"kind must be 'under' or 'over', got {kind!r}")
    out = []
    for text in texts:
        flag = f"--fail-{kind} {text}"
        name, sep, value = text.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ReportError(f"{flag}: expected NAME=NUMBER, e.g. faithfulness=0.85")
        try:
            bound = float(value)
        except ValueError:
            raise ReportError(f"{flag}: {value.strip()!r} is not a number") from None
        if not math.isfinite(bound):
            raise ReportError(f"{flag}: the bound must be a finite number")
        _check_name(name, flag)
        out.append(Limit(name, bound, kind, text.strip()))
    return out


def measure(run: RunReport, name: str) -> tuple[float | None, str]:
    """A run's value of measure ``name`` and what it was computed from (for the message)."""
    if name.startswith("share."):
        stage = name[6:]
        stages = FAILED_STAGES if stage == "failed" else (stage,)
        count = sum(s.count for s in run.shares if s.stage in stages)
        total = run.questions
        return (
            count / total if total else None
        ), f"{count:,} of {wording.count(total, 'question')}"
    metric, _, at = name.partition("@")
    if metric in ("faithfulness", "confidence"):
        gen = run.generation
        score = None if gen is None else getattr(gen, metric)
        if gen is None or score is None or not gen.judged:
            return None, "no judged answers"
        return score.mean, wording.count(score.n, "judged answer")
    if metric == "answer_correctness":
        gen = run.generation
        judged = sum(gen.correctness.values()) if gen is not None else 0
        if gen is None or not judged:
            return None, "no answers judged for correctness"
        right = gen.correctness.get("correct", 0)
        return right / judged, f"{right} of {judged} judged answers correct"
    at = at or "cut"
    for m in run.metrics:
        if m.metric == metric and m.at == at:
            value = m.mean if math.isfinite(m.mean) else None
            return value, wording.count(m.n, "question") if m.n else "no defined values"
    return None, f"not computed at {at} (add --k {at})" if at != "cut" else "not computed"


def check_limits(report: Report, limits: Sequence[Limit]) -> list[str]:
    """One line per (run, limit) breached; empty when every run keeps every limit."""
    breaches = []
    for run in report.runs:
        label = f"run {run.run_id or '(none)'}"
        for limit in limits:
            value, basis = measure(run, limit.name)
            if value is None:
                breaches.append(f"{label}: {limit.name} cannot be checked ({basis}): {limit.flag}")
                continue
            low = limit.kind == "under" and value < limit.bound
            high = limit.kind == "over" and value > limit.bound
            if low or high:
                sign = "<" if low else ">"
                breaches.append(
                    f"{label}: {limit.name} = {value:.3g} ({basis}) {sign} {limit.bound:g}: "
                    f"{limit.flag}"
                )
    if not report.runs and limits:
        breaches.append("no run to check: the report has no pipeline questions")
    return breaches
