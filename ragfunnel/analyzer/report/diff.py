"""``diff``: two runs compared on the cases both asked, pair by pair.

Per case, the latest pipeline record of each run: which questions moved from one first
failure to another (each listed), McNemar's exact test on the ok / failed split, each
metric's mean difference with a paired bootstrap interval, and the configuration settings
that changed. It reads records only; it must never average over unpaired cases.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ragfunnel.analyzer.funnel.analysis import FunnelResult
from ragfunnel.analyzer.funnel.run_summaries import METRICS
from ragfunnel.analyzer.report import wording
from ragfunnel.analyzer.report.contents import FAILED_STAGES, OK_STAGES
from ragfunnel.analyzer.report.frames import report_frame
from ragfunnel.analyzer.report.report_error import ReportError
from ragfunnel.analyzer.stats import bootstrap_mean, mcnemar_exact

__all__ = [
    "ALPHA",
    "ConfigChange",
    "McNemar",
    "MetricDelta",
    "RunDiff",
    "Transition",
    "diff_lines",
    "diff_runs",
]

ALPHA = 0.05
"""The significance level a regression must reach (McNemar) to count."""


@dataclass(frozen=True)
class Transition:
    """Questions whose first failure moved from ``before`` (run A) to ``after`` (run B)."""

    before: str
    after: str
    count: int
    questions: tuple[str, ...]


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test on cases decided (ok or failed) in both runs."""

    fixed: int
    broken: int
    both_ok: int
    both_failed: int
    p_value: float


@dataclass(frozen=True)
class MetricDelta:
    """Mean of B − A over cases where both values are defined, with a paired 95 % interval."""

    metric: str
    at: str
    mean_a: float
    mean_b: float
    delta: float
    ci_low: float
    ci_high: float
    n: int
    method: str


@dataclass(frozen=True)
class ConfigChange:
    """A ``ragfunnel.pipeline.*`` setting whose value differs (``None``: not set in that run)."""

    setting: str
    before: Any
    after: Any


@dataclass(frozen=True)
class RunDiff:
    """Run B against run A, paired on the cases both asked."""

    run_a: str
    run_b: str
    paired: int
    only_a: int
    only_b: int
    transitions: tuple[Transition, ...]
    mcnemar: McNemar
    metrics: tuple[MetricDelta, ...]
    config_changes: tuple[ConfigChange, ...]

    def regressions(self, alpha: float = ALPHA) -> list[str]:
        """Why B is worse than A, one readable line each; empty when it is not.

        A regression is significant evidence of harm: more cases broke than were fixed with
        McNemar's p < ``alpha``, or a metric whose whole paired interval lies below zero.
        """
        out = []
        m = self.mcnemar
        if m.broken > m.fixed and m.p_value < alpha:
            out.append(
                f"{wording.count(m.broken, 'case')} went ok → failed and {m.fixed} failed → ok "
                f"(McNemar exact p = {m.p_value:.2g} < {alpha})"
            )
        out.extend(
            f"{d.metric} at {d.at} fell by {wording.ratio(-d.delta)} "
            f"(paired 95% CI {wording.signed(d.ci_low)} to {wording.signed(d.ci_high)}, "
            f"{wording.count(d.n, 'case')})"
            for d in self.metrics
            if math.isfinite(d.ci_high) and d.ci_high < 0
        )
        return out


def _latest(result: FunnelResult, run_id: str) -> pl.DataFrame:
    frame = report_frame(result).filter(pl.col("run_id").cast(pl.String) == run_id)
    if frame.is_empty():
        runs = sorted(str(r) for r in report_frame(result).get_column("run_id").unique().to_list())
        raise ReportError(
            f"run {run_id!r}: no pipeline questions (runs: {', '.join(runs) or 'none'})"
        )
    return frame


def _metric_columns(a: pl.DataFrame, b: pl.DataFrame) -> list[tuple[str, str, str]]:
    out = [(m, "cut", f"{m}_at_cut") for m in METRICS]
    judged = all(
        "faithfulness" in f.columns and f.get_column("faithfulness").null_count() < f.height
        for f in (a, b)
    )
    if judged:  # the judges' column exists whenever they ran; compare only judged runs
        out.append(("faithfulness", "answer", "faithfulness"))
    return [(m, at, c) for m, at, c in out if c in a.columns and c in b.columns]


def diff_runs(
    result: FunnelResult,
    run_a: str,
    run_b: str,
    *,
    snapshots: Mapping[str, Mapping[str, Any]] | None = None,
) -> RunDiff:
    """Compare ``run_b`` with ``run_a`` on the cases both asked (one analysis holding both).

    Raises:
        ReportError: a run with no pipeline questions in ``result``.
    """
    a, b = _latest(result, run_a), _latest(result, run_b)
    columns = _metric_columns(a, b)
    keep = ["question_id", "first_failure", *(c for _, _, c in columns)]
    pairs = a.select(keep).join(b.select(keep), on="question_id", how="inner", suffix="_b")
    before = pairs.get_column("first_failure").cast(pl.String)
    after = pairs.get_column("first_failure_b").cast(pl.String)
    moved = pl.DataFrame(
        {"q": pairs.get_column("question_id").cast(pl.String), "a": before, "b": after}
    )
    groups = (
        moved.filter(pl.col("a") != pl.col("b"))
        .group_by("a", "b")
        .agg(pl.col("q").sort().alias("questions"), pl.len().alias("n"))
        .sort(["n", "a", "b"], descending=[True, False, False])
    )
    transitions = tuple(
        Transition(x, y, int(n), tuple(qs))
        for x, y, qs, n in groups.select("a", "b", "questions", "n").iter_rows()
    )
    ok_a, ok_b = before.is_in(OK_STAGES), after.is_in(OK_STAGES)
    bad_a, bad_b = before.is_in(FAILED_STAGES), after.is_in(FAILED_STAGES)
    fixed, broken = int((bad_a & ok_b).sum()), int((ok_a & bad_b).sum())
    test = McNemar(fixed, broken, int((ok_a & ok_b).sum()), int((bad_a & bad_b).sum()),
                   mcnemar_exact(fixed, broken))  # fmt: skip
    deltas = []
    for metric, at, column in columns:
        va = pairs.get_column(column).cast(pl.Float64).fill_null(float("nan")).to_numpy()
        vb = pairs.get_column(f"{column}_b").cast(pl.Float64).fill_null(float("nan")).to_numpy()
        both = np.isfinite(va) & np.isfinite(vb)
        ci = bootstrap_mean(vb[both] - va[both])
        mean_a = float(va[both].mean()) if both.any() else math.nan
        mean_b = float(vb[both].mean()) if both.any() else math.nan
        deltas.append(MetricDelta(metric, at, mean_a, mean_b, ci.estimate, ci.low, ci.high,
                                  ci.n, ci.method))  # fmt: skip
    snaps = snapshots or {}
    conf_a, conf_b = dict(snaps.get(run_a, {})), dict(snaps.get(run_b, {}))
    changes = tuple(
        ConfigChange(k, conf_a.get(k), conf_b.get(k))
        for k in sorted(set(conf_a) | set(conf_b))
        if conf_a.get(k) != conf_b.get(k)
    )
    ids_a = set(a.get_column("question_id").cast(pl.String).to_list())
    ids_b = set(b.get_column("question_id").cast(pl.String).to_list())
    return RunDiff(
        run_a=run_a, run_b=run_b, paired=pairs.height, only_a=len(ids_a - ids_b),
        only_b=len(ids_b - ids_a), transitions=transitions, mcnemar=test,
        metrics=tuple(deltas), config_changes=changes,
    )  # fmt: skip


def _setting(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return "—" if value is None else str(value)


def diff_lines(diff: RunDiff, *, listed: int = 50) -> list[str]:
    """The diff for a terminal: each transition with its questions, the test, the deltas."""
    lines = [
        f"run {diff.run_a} → run {diff.run_b}: {wording.count(diff.paired, 'case')} asked in both"
        + (f" ({diff.only_a:,} only in {diff.run_a}, {diff.only_b:,} only in {diff.run_b})"
           if diff.only_a or diff.only_b else "")
    ]  # fmt: skip
    if diff.transitions:
        summary = ", ".join(f"{t.count} moved {t.before} → {t.after}" for t in diff.transitions)
        lines.append(f"transitions: {summary}")
        for t in diff.transitions:
            shown = ", ".join(t.questions[:listed])
            more = f" and {t.count - listed:,} more" if t.count > listed else ""
            lines.append(f"  {t.before} → {t.after} ({t.count}): {shown}{more}")
    else:
        lines.append("transitions: no case changed its first failure")
    m = diff.mcnemar
    lines.append(
        f"ok/failed: {m.fixed} fixed (failed → ok), {m.broken} broken (ok → failed), "
        f"{m.both_ok} ok in both, {m.both_failed} failed in both; McNemar exact p = {m.p_value:.4g}"
    )
    lines.append("metric deltas (B − A, paired 95% CI):")
    for d in diff.metrics:
        interval = (
            f"{wording.signed(d.ci_low)} to {wording.signed(d.ci_high)}"
            if math.isfinite(d.ci_low)
            else wording.MISSING
        )
        lines.append(f"  {d.metric} at {d.at}: {wording.ratio(d.mean_a)} → {wording.ratio(d.mean_b)}: "
                     f"{wording.signed(d.delta)}, {interval}, n = {d.n:,}, {d.method}")  # fmt: skip
    if diff.config_changes:
        lines.append("configuration changes:")
        lines += [
            f"  {c.setting}: {_setting(c.before)} → {_setting(c.after)}"
            for c in diff.config_changes
        ]
    else:
        lines.append("configuration: no setting changed")
    return lines
