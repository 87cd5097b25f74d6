"""Build the report model from a funnel result: aggregates per run, the worst questions, a sample.

Work grows with the number of records only through polars aggregations; Python loops touch
the few dozen rows a report shows (the worst questions, a sample, the chart points). The only
input that can reach the store is the ``texts`` callable, and it is given just those rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel.analysis import FunnelResult
from ragfunnel.analyzer.funnel.stats import bootstrap_mean
from ragfunnel.analyzer.report.distributions import (
    abstention,
    evidence_funnel,
    faithfulness_bins,
    rank_bins,
)
from ragfunnel.analyzer.report.drilldown import check_jaeger_url, entry
from ragfunnel.analyzer.report.findings import STAGE_ORDER, diagnosis_text, group_reasons
from ragfunnel.analyzer.report.model import (
    FAILED_STAGES,
    Finding,
    Generation,
    LostEvidence,
    MetricValue,
    Report,
    RunReport,
    Share,
)
from ragfunnel.analyzer.report.sources import QuestionTexts

__all__ = ["TextFetcher", "build_report", "report_frame"]

TextFetcher = Callable[[Sequence[tuple[str, str]]], Mapping[tuple[str, str], QuestionTexts]]
"""Given ``(trace_id, question_key)`` pairs, their texts (``sources.question_texts``)."""

LOST_SHOWN = 10
_UPSTREAM_LOSS = ("ingestion", "ingestion_or_search", "search")


def report_frame(result: FunnelResult) -> pl.DataFrame:
    """The records a report counts: pipeline questions, the latest occurrence of each case."""
    return result.records.filter(pl.col("latest"), pl.col("mode") == "pipeline")


def _failure(column: str = "first_failure") -> pl.Expr:
    return pl.col(column).cast(pl.String)


def _findings(run: pl.DataFrame) -> list[Finding]:
    failed = run.filter(_failure().is_in(FAILED_STAGES))
    counts = failed.group_by(
        _failure().alias("stage"), pl.col("failure_reason").cast(pl.String).alias("reason")
    ).agg(pl.len().alias("n"))
    out = []
    for stage in FAILED_STAGES:
        rows = counts.filter(pl.col("stage") == stage)
        if rows.is_empty():
            continue
        reasons = dict(zip(rows.get_column("reason"), rows.get_column("n"), strict=True))
        details = group_reasons(reasons)
        stage_rows = failed.filter(_failure() == stage)
        flags = stage_rows.get_column("flags")
        conflicting = int(flags.list.contains("conflicting_sources").sum())
        if conflicting:
            details.append(f"{conflicting} of them with two versions of one document in the prompt")
        low = int(flags.list.contains("low_confidence").sum())
        if low:
            details.append(f"{low} with low-confidence tokens in the answer")
        if stage == "generation" and "faithfulness" in stage_rows.columns:
            unfaithful = int((stage_rows.get_column("faithfulness") < 1.0).sum())
            if unfaithful:
                details.append(f"{unfaithful} with unsupported claims")
        out.append(Finding(stage, int(rows.get_column("n").sum()), tuple(details)))
    return out


def _shares(result: FunnelResult, run_id: str) -> tuple[Share, ...]:
    rows = result.failures.filter(pl.col("run_id") == run_id, pl.col("mode") == "pipeline")
    return tuple(
        Share(r["first_failure"], r["count"], r["total"], r["share"], r["ci_low"], r["ci_high"])
        for r in rows.iter_rows(named=True)
    )


def _metrics(result: FunnelResult, run_id: str) -> tuple[MetricValue, ...]:
    rows = result.metrics.filter(pl.col("run_id") == run_id)
    return tuple(
        MetricValue(r["metric"], r["at"], r["mean"], r["ci_low"], r["ci_high"], r["n"],
                    r["n_undefined"], r["method"])
        for r in rows.iter_rows(named=True)
    )  # fmt: skip


def _lost_evidence(run: pl.DataFrame) -> tuple[LostEvidence, ...]:
    items = (
        run.select(pl.col("evidence").list.explode(keep_nulls=False))
        .unnest("evidence")
        .select("id", pl.col("lost_at").cast(pl.String))
        .filter(pl.col("lost_at").is_in(_UPSTREAM_LOSS))
        .group_by("id", "lost_at")
        .agg(pl.len().alias("n"))
        .sort(["n", "id"], descending=[True, False])
        .head(LOST_SHOWN)
    )
    return tuple(LostEvidence(i, lost, int(n)) for i, lost, n in items.iter_rows())


def _generation(run: pl.DataFrame) -> Generation | None:
    has_faith = "faithfulness" in run.columns
    has_correct = "answer_correctness" in run.columns
    if not (has_faith or has_correct):
        return None
    faith_value = None
    bins: tuple[int, ...] = ()
    judged = 0
    if has_faith:
        values = run.get_column("faithfulness").cast(pl.Float64)
        judged = int(values.drop_nulls().drop_nans().len())
        ci = bootstrap_mean(values.drop_nulls().to_numpy())
        faith_value = MetricValue(
            "faithfulness", "answer", ci.estimate, ci.low, ci.high, ci.n,
            run.height - ci.n, ci.method,
        )  # fmt: skip
        bins = faithfulness_bins(values)
    correctness: dict[str, int] = {}
    if has_correct:
        counts = run.get_column("answer_correctness").drop_nulls().value_counts()
        correctness = {str(v): int(n) for v, n in counts.iter_rows()}
    unsupported = 0
    if "claims" in run.columns:
        labels = run.select(pl.col("claims").list.explode(keep_nulls=False).struct.field("label"))
        unsupported = int((labels.to_series() == "unsupported").sum())
    return Generation(judged, faith_value, bins, correctness, unsupported)


def _worst_rows(run: pl.DataFrame, top: int) -> list[dict[str, Any]]:
    if top <= 0:
        return []
    severity = (
        pl.when(_failure().is_in(FAILED_STAGES)).then(0)
        .when(_failure() == "incomplete_trace").then(1)
        .otherwise(2)
    )  # fmt: skip
    order = [severity.alias("_severity"), pl.col("recall_at_cut").fill_nan(None).alias("_recall")]
    if "faithfulness" in run.columns:
        order.append(pl.col("faithfulness").fill_nan(None).alias("_faith"))
    order.append(_failure().replace_strict(STAGE_ORDER, default=99).alias("_stage"))
    ranked = (
        run.with_columns(order)
        .filter(pl.col("_severity") < 2)
        .sort([c.meta.output_name() for c in order] + ["question_id"], nulls_last=True)
        .head(top)
    )
    return list(ranked.drop(c.meta.output_name() for c in order).iter_rows(named=True))


def build_report(
    result: FunnelResult,
    *,
    cases: CaseSet | None = None,
    snapshots: Mapping[str, Mapping[str, Any]] | None = None,
    texts: TextFetcher | None = None,
    jaeger_url: str | None = None,
    top: int = 20,
    sample: int = 50,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """The report of every run in ``result``: diagnosis, metrics, charts' data, drill-down.

    Args:
        result: what :func:`ragfunnel.analyzer.funnel.analyze` returned.
        cases: the cases analysed, for the question texts (else the spans' texts, if any).
        snapshots: per run, its configuration (``sources.pipeline_snapshots``).
        texts: fetches the texts of the questions the report shows (``sources.question_texts``).
        jaeger_url: ``http(s)://…`` of a Jaeger UI; each trace links to ``{url}/trace/{id}``.
        top: the worst questions shown per run.
        sample: how many more questions to draw at random for the drill-down.
        seed: the sample's seed (the same records give the same sample).
        progress: called with a short label as each step starts.

    Raises:
        ReportError: a ``jaeger_url`` that is not an http(s) URL.
    """
    jaeger = check_jaeger_url(jaeger_url)
    step = progress or (lambda _label: None)
    step("aggregating runs")
    frame = report_frame(result)
    oracle = result.records.filter(pl.col("latest"), pl.col("mode") == "oracle")
    oracle_counts = dict(oracle.group_by("run_id").len().iter_rows()) if oracle.height else {}
    partitions = frame.partition_by("run_id", as_dict=True, maintain_order=True)
    parts = sorted(((str(key[0]), part) for key, part in partitions.items()), key=lambda p: p[0])
    plans: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for run_id, run in parts:
        findings = _findings(run)
        counts = dict(run.group_by(_failure()).len().iter_rows())
        plans.append(
            (
                {
                    "run_id": run_id,
                    "questions": run.height,
                    "failed": sum(f.count for f in findings),
                    "unjudged": int(counts.get("unjudged", 0)),
                    "incomplete": int(counts.get("incomplete_trace", 0)),
                    "shares": _shares(result, run_id),
                    "findings": tuple(findings),
                    "diagnosis": diagnosis_text(
                        questions=run.height,
                        findings=findings,
                        ok_without_evidence=int(counts.get("ok_without_evidence", 0)),
                        unjudged=int(counts.get("unjudged", 0)),
                        incomplete=int(counts.get("incomplete_trace", 0)),
                    ),
                    "metrics": _metrics(result, run_id),
                    "lost_evidence": _lost_evidence(run),
                    "funnel": evidence_funnel(run),
                    "ranks": rank_bins(run),
                    "cut_k": _mode_int(run.get_column("k_prompt")),
                    "generation": _generation(run),
                    "abstention": abstention(run),
                    "config": dict((snapshots or {}).get(run_id, {})),
                    "oracle_questions": int(oracle_counts.get(run_id, 0)),
                },
                _worst_rows(run, top),
            )
        )
    step("drawing a sample")
    shown = {(r["trace_id"], r["question_key"]) for _, rows in plans for r in rows}
    sampled: list[dict[str, Any]] = []
    if sample > 0 and frame.height:
        pool = frame.sample(min(frame.height, sample + len(shown)), seed=seed, shuffle=True)
        sampled = [
            r for r in pool.iter_rows(named=True) if (r["trace_id"], r["question_key"]) not in shown
        ][:sample]
    step("reading question texts")
    wanted = sorted(shown | {(r["trace_id"], r["question_key"]) for r in sampled})
    found = texts(wanted) if texts is not None and wanted else {}
    metric_columns = [c for c in frame.columns if c.endswith("_at_cut") and "note" not in c]

    def make(row: dict[str, Any]) -> dict[str, Any]:
        case = cases.by_id(row["question_id"]) if cases is not None else None
        return entry(
            row,
            question=case.question if case is not None else None,
            texts=found.get((row["trace_id"], row["question_key"])),
            jaeger_url=jaeger,
            metric_columns=metric_columns,
        )

    runs = tuple(RunReport(**fields, worst=tuple(make(r) for r in rows)) for fields, rows in plans)
    return Report(
        runs=runs,
        index_truth=result.index_truth,
        k=result.k,
        total_records=result.records.height,
        unmatched_questions=result.unmatched_questions,
        cases_without_trace=result.cases_without_trace,
        sample=tuple(make(r) for r in sampled),
        jaeger_url=jaeger,
    )


def _mode_int(values: pl.Series) -> int | None:
    counts = values.drop_nulls().value_counts(sort=True)
    return int(counts.row(0)[0]) if counts.height else None
