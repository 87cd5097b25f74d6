"""Build the report model from a funnel result: aggregates per run, the worst questions, a sample.

Work grows with the number of records only through polars aggregations; Python loops touch
the few dozen rows a report shows (the worst questions, a sample, the chart points). The only
input that can reach the store is the ``texts`` callable, and it is given just those rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from importlib import metadata
from typing import Any

import polars as pl

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel.analysis import FunnelResult
from ragfunnel.analyzer.funnel.records.answer_checks import NO_ANSWER_TEXT
from ragfunnel.analyzer.report.contents import (
    FAILED_STAGES,
    Finding,
    Generation,
    LostEvidence,
    MetricValue,
    Report,
    RunReport,
    Share,
)
from ragfunnel.analyzer.report.distributions import (
    abstention,
    evidence_funnel,
    faithfulness_bins,
    rank_bins,
)
from ragfunnel.analyzer.report.drilldown import check_jaeger_url, entry
from ragfunnel.analyzer.report.findings import (
    CUT_PARTS,
    DETAIL_PREFIXES,
    DROPPED_BY_CUT,
    STAGE_ORDER,
    cut_part,
    diagnosis_text,
    group_reasons,
)
from ragfunnel.analyzer.report.frames import (
    item_frame,
    question_frame,
    report_frame,
    run_key,
    split_runs,
)
from ragfunnel.analyzer.report.sources import QuestionTexts
from ragfunnel.analyzer.stats import bootstrap_mean

__all__ = ["TextFetcher", "build_report", "report_frame"]

TextFetcher = Callable[[Sequence[tuple[str, str]]], Mapping[tuple[str, str], QuestionTexts]]
"""Given ``(trace_id, question_key)`` pairs, their texts (``sources.question_texts``)."""

LOST_SHOWN = 10
_UPSTREAM_LOSS = ("ingestion", "ingestion_or_search", "search")


_SEPARATORS = re.compile(r"[#@/:|]")


def _in_textless(item: str, documents: set[str]) -> bool:
    """Whether chunk id ``item`` belongs to one of ``documents``.

    It does when it is a document's id, or that id followed by a separator (``scan-2019#p1`` of
    ``scan-2019``), as chunk ids commonly extend their document's.
    """
    return item in documents or any(
        item[: m.start()] in documents for m in _SEPARATORS.finditer(item)
    )


def _textless_detail(failed: pl.DataFrame, textless: Mapping[str, Sequence[str]]) -> str | None:
    items = (
        failed.filter(pl.col("first_failure") == "ingestion")
        .group_by("index_version", "failure_item")
        .len()
    )
    hits = sum(
        n
        for version, item, n in items.iter_rows()
        if item and _in_textless(item, set(textless.get(version or "", ())))
    )
    if not hits:
        return None
    return f"{hits} of them from documents ingested with pages without text, such as scans without a text layer"


def _without_text(run: pl.DataFrame) -> int:
    """Unjudged questions whose answer text was not recorded (content capture off)."""
    return run.filter(
        pl.col("first_failure") == "unjudged", pl.col("failure_reason") == NO_ANSWER_TEXT
    ).height


def _findings(run: pl.DataFrame, textless: Mapping[str, Sequence[str]]) -> list[Finding]:
    failed = run.filter(pl.col("first_failure").is_in(FAILED_STAGES))
    has_faith = "faithfulness" in run.columns
    reason = pl.col("failure_reason")
    # Reasons that name a fact or an error message group by their head: collapse them here,
    # where a million distinct texts cost little, rather than in Python.
    collapse = pl.any_horizontal(reason.str.starts_with(p) for p in DETAIL_PREFIXES)
    counts = failed.group_by(
        pl.col("first_failure").alias("stage"),
        pl.when(collapse)
        .then(reason.str.split(":").list.first())
        .otherwise(reason)
        .alias("reason"),
    ).agg(pl.len().alias("n"))
    flags = failed.group_by(pl.col("first_failure").alias("stage")).agg(
        pl.col("flags").list.contains("conflicting_sources").sum().alias("conflicting"),
        pl.col("flags").list.contains("low_confidence").sum().alias("low"),
        (pl.col("faithfulness") < 1.0).sum().alias("unfaithful") if has_faith else pl.lit(0),
    )
    by_stage = {row["stage"]: row for row in flags.iter_rows(named=True)}
    out = []
    for stage in FAILED_STAGES:
        rows = counts.filter(pl.col("stage") == stage)
        if rows.is_empty():
            continue
        details = group_reasons(dict(zip(rows["reason"], rows["n"], strict=True)))
        if stage == "ingestion" and textless:
            note = _textless_detail(failed, textless)
            details += [note] if note else []
        extra = by_stage[stage]
        if extra["conflicting"]:
            details.append(
                f"{extra['conflicting']} of them with two versions of one document in the prompt"
            )
        if extra["low"]:
            details.append(f"{extra['low']} with low-confidence tokens in the answer")
        said = any("claim" in detail for detail in details)  # the judges' reasons say it already
        if stage == "generation" and has_faith and extra["unfaithful"] and not said:
            details.append(f"{extra['unfaithful']} with unsupported claims")
        parts: dict[str, int] = {}
        if stage == "cut":  # the gate's work and the cut's, told apart in the order of work
            for reason, n in zip(rows["reason"], rows["n"], strict=True):
                part = cut_part(str(reason or ""))
                parts[part] = parts.get(part, 0) + int(n)
        out.append(
            Finding(
                stage,
                int(rows["n"].sum()),
                tuple(details),
                ()
                if set(parts) <= {DROPPED_BY_CUT}
                else tuple((part, parts[part]) for part in CUT_PARTS if part in parts),
            )
        )
    return out


def _shares(result: FunnelResult, run_id: str) -> tuple[Share, ...]:
    rows = result.failures.filter(run_key() == run_id, pl.col("mode") == "pipeline")
    return tuple(
        Share(r["first_failure"], r["count"], r["total"], r["share"], r["ci_low"], r["ci_high"])
        for r in rows.iter_rows(named=True)
    )


def _metrics(result: FunnelResult, run_id: str) -> tuple[MetricValue, ...]:
    # metric_table writes a missing run id as the text "None".
    rows = result.metrics.filter(run_key().is_in([run_id] if run_id else ["", "None"]))
    return tuple(
        MetricValue(r["metric"], r["at"], r["mean"], r["ci_low"], r["ci_high"], r["n"],
                    r["n_undefined"], r["method"])
        for r in rows.iter_rows(named=True)
    )  # fmt: skip


def _lost_evidence(items: pl.DataFrame) -> tuple[tuple[LostEvidence, ...], int]:
    """The ids most often lost upstream by failed questions, and how many distinct ids were lost.

    Only evidence lost where its question failed counts: an ``any_of`` alternative a correctly
    answered question did without, or one beside the item that failed it, is no loss.
    """
    grouped = (
        items.filter(
            pl.col("lost_at").is_in(_UPSTREAM_LOSS), pl.col("lost_at") == pl.col("first_failure")
        )
        .group_by("id", "lost_at")
        .agg(pl.len().alias("n"))
    )
    lost = grouped.sort(["n", "id"], descending=[True, False]).head(LOST_SHOWN)
    shown = tuple(LostEvidence(i, where, int(n)) for i, where, n in lost.iter_rows())
    return shown, grouped.height


def _generation(run: pl.DataFrame) -> Generation | None:
    """Faithfulness and correctness, when any answer of the run was judged (else ``None``)."""
    has_faith = (
        "faithfulness" in run.columns and run.get_column("faithfulness").null_count() < run.height
    )
    has_correct = (
        "answer_correctness" in run.columns
        and run.get_column("answer_correctness").null_count() < run.height
    )
    if not (has_faith or has_correct):
        return None
    faith_value = None
    bins: tuple[int, ...] = ()
    judged = 0
    if has_faith:
        values = run.get_column("faithfulness").drop_nulls()
        judged = values.len()
        ci = bootstrap_mean(values.to_numpy())
        faith_value = MetricValue(
            "faithfulness", "answer", ci.estimate, ci.low, ci.high, ci.n,
            run.height - ci.n, ci.method,
        )  # fmt: skip
        bins = faithfulness_bins(values)
    correctness: dict[str, int] = {}
    if has_correct:
        counts = run.get_column("answer_correctness").drop_nulls().value_counts()
        correctness = {str(v): int(n) for v, n in counts.iter_rows()}
    unsupported = int(run.get_column("unsupported").sum()) if "unsupported" in run.columns else 0
    confidence, confidence_bins = _confidence(run)
    return Generation(judged, faith_value, bins, correctness, unsupported, confidence,
                      confidence_bins)  # fmt: skip


def _confidence(run: pl.DataFrame) -> tuple[MetricValue | None, tuple[int, ...]]:
    """The mean answer confidence with its bootstrap interval, and its bins (none: no column)."""
    if "confidence" not in run.columns:
        return None, ()
    values = run.get_column("confidence").drop_nulls()
    if values.is_empty():
        return None, ()
    ci = bootstrap_mean(values.to_numpy())
    value = MetricValue("confidence", "answer", ci.estimate, ci.low, ci.high, ci.n,
                        run.height - ci.n, ci.method)  # fmt: skip
    return value, faithfulness_bins(values)


def _worst_rows(run: pl.DataFrame, top: int) -> tuple[list[int], int]:
    """The ``_row`` of the run's worst questions, and how many could have been listed.

    Ordered by stage (upstream first, incomplete traces last), then by severity within the
    stage: the lowest recall at the cut (none counts as 0), then (with verdicts) the lowest
    faithfulness, then the reason and the case id. When ``top`` cannot hold them all, the
    stages take turns, so every stage is represented (docs/report.md §1).
    """
    failure = pl.col("first_failure")
    candidates = run.filter(failure.is_in([*FAILED_STAGES, "incomplete_trace"]))
    if top <= 0 or candidates.is_empty():
        return [], candidates.height
    stage = failure.cast(pl.String).replace_strict(STAGE_ORDER, default=len(STAGE_ORDER))
    keys = [pl.col("recall_at_cut").fill_null(0.0).alias("_recall")]
    if "faithfulness" in run.columns:
        keys.append(pl.col("faithfulness").alias("_faith"))
    keys += [
        pl.col("failure_reason").cast(pl.String).alias("_reason"),
        pl.col("question_id").cast(pl.String).alias("_id"),
    ]
    ranked = (
        candidates.select("_row", stage.alias("_stage"), *keys)
        .sort(["_stage", *(k.meta.output_name() for k in keys)], nulls_last=True)
        .with_columns(_turn=pl.int_range(pl.len()).over("_stage"))
        .sort("_turn", "_stage")
        .head(top)
        .sort("_stage", "_turn")
    )
    return ranked.get_column("_row").to_list(), candidates.height


def ran_in_order(
    records: pl.DataFrame, runs: Iterable[tuple[Any, ...]], first: Sequence[str] = ()
) -> list[tuple[Any, ...]]:
    """Run keys in the order the runs ran (each one's first question start), ``first`` before.

    A run whose questions carry no start time goes last; ties keep the run id's order.
    """
    starts = dict(
        records.lazy().group_by(run_key()).agg(pl.col("started").min()).collect().iter_rows()
    )
    asked = {run: i for i, run in enumerate(first)}

    def key(run: tuple[Any, ...]) -> tuple[int, bool, Any, str]:
        name = str(run[0])
        start = starts.get(name)
        return (asked.get(name, len(asked)), start is None, start or 0, name)

    return sorted(runs, key=key)


def build_report(
    result: FunnelResult,
    *,
    cases: CaseSet | None = None,
    snapshots: Mapping[str, Mapping[str, Any]] | None = None,
    texts: TextFetcher | None = None,
    textless: Mapping[str, Sequence[str]] | None = None,
    jaeger_url: str | None = None,
    top: int = 20,
    sample: int = 50,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    store: str | None = None,
    run_order: Sequence[str] = (),
) -> Report:
    """The report of every run in ``result``: diagnosis, metrics, charts' data, drill-down.

    Args:
        result: what :func:`ragfunnel.analyzer.funnel.analyze` returned.
        cases: the cases analyzed, for the question texts (else the spans' texts, if any).
        snapshots: per run, its configuration (``sources.pipeline_snapshots``).
        texts: fetches the texts of the questions the report shows (``sources.question_texts``).
        textless: per index version, documents ingested with pages without text
            (``sources.textless_documents``): the ingestion finding says how many lost
            chunks belong to them.
        jaeger_url: ``http(s)://…`` of a Jaeger UI; each trace links to ``{url}/trace/{id}``.
        top: the worst questions shown per run.
        sample: how many more questions to draw at random for the drill-down.
        seed: the sample's seed (the same records give the same sample).
        progress: called with a short label as each step starts.
        store: the store analyzed, as the page's header names it (a redacted DSN).
        run_order: these runs first, in this order (a diff's A then B); the others follow in
            the order they ran (their first question's start), never by name.

    Raises:
        ReportError: a ``jaeger_url`` that is not an http(s) URL.
    """
    jaeger = check_jaeger_url(jaeger_url)
    step = progress or (lambda _label: None)
    step("aggregating runs")
    records = result.records
    questions = question_frame(records)
    items = item_frame(records)
    oracle = records.lazy().filter(pl.col("latest"), pl.col("mode") == "oracle")
    oracle_counts = dict(oracle.group_by(run_key()).len().collect().iter_rows())
    by_run, items_by_run = split_runs(questions), split_runs(items)
    plans: list[tuple[dict[str, Any], list[int]]] = []
    for (run_id,) in ran_in_order(records, by_run, run_order):
        run = by_run[(run_id,)]
        run_items = items_by_run.get((run_id,), items.clear())
        findings = _findings(run, textless or {})
        lost, lost_total = _lost_evidence(run_items)
        worst_rows, worst_total = _worst_rows(run, top)
        counts = dict(run.group_by(pl.col("first_failure").cast(pl.String)).len().iter_rows())
        plans.append(
            (
                {
                    "run_id": str(run_id),
                    "questions": run.height,
                    "failed": sum(f.count for f in findings),
                    "unjudged": int(counts.get("unjudged", 0)),
                    "incomplete": int(counts.get("incomplete_trace", 0)),
                    "shares": _shares(result, str(run_id)),
                    "findings": tuple(findings),
                    "diagnosis": diagnosis_text(
                        questions=run.height,
                        findings=findings,
                        ok_without_evidence=int(counts.get("ok_without_evidence", 0)),
                        unjudged=int(counts.get("unjudged", 0)),
                        incomplete=int(counts.get("incomplete_trace", 0)),
                        needs_judge=int(counts.get("needs_judge", 0)),
                        stale_case=int(counts.get("stale_case", 0)),
                        without_text=_without_text(run),
                    ),
                    "metrics": _metrics(result, str(run_id)),
                    "lost_evidence": lost,
                    "lost_total": lost_total,
                    "worst_total": worst_total,
                    "funnel": evidence_funnel(run),
                    "ranks": rank_bins(run_items),
                    "cut_k": _mode_int(run.get_column("k_prompt")),
                    "generation": _generation(run),
                    "abstention": abstention(run),
                    "config": dict((snapshots or {}).get(str(run_id), {})),
                    "oracle_questions": int(oracle_counts.get(str(run_id), 0)),
                },
                worst_rows,
            )
        )
    step("drawing a sample")
    shown = {row for _, rows in plans for row in rows}
    sampled: list[int] = []
    if sample > 0 and questions.height:
        # Drawn from a fixed order: the analysis returns its records in no guaranteed order,
        # and the same records must give the same sample.
        pool = (
            questions.select("_row", "run_id", "question_id", "trace_id")
            .sort("run_id", "question_id", "trace_id", "_row", nulls_last=True)
            .select("_row")
            .sample(min(questions.height, sample + len(shown)), seed=seed, shuffle=True)
        )
        sampled = [r for r in pool.get_column("_row").to_list() if r not in shown][:sample]
    chosen = sorted(shown | set(sampled))
    full = dict(zip(chosen, records[chosen].iter_rows(named=True), strict=True))
    step("reading question texts")
    wanted = sorted({(r["trace_id"], r["question_key"]) for r in full.values()})
    found = texts(wanted) if texts is not None and wanted else {}
    metric_columns = [c for c in records.columns if c.endswith("_at_cut") and "note" not in c]

    def make(row: int) -> dict[str, Any]:
        record = full[row]
        case = cases.by_id(record["question_id"]) if cases is not None else None
        return entry(
            record,
            question=case.question if case is not None else None,
            texts=found.get((record["trace_id"], record["question_key"])),
            jaeger_url=jaeger,
            metric_columns=metric_columns,
        )

    runs = tuple(RunReport(**fields, worst=tuple(make(r) for r in rows)) for fields, rows in plans)
    return Report(
        runs=runs,
        index_truth=result.index_truth,
        k=result.k,
        total_records=records.height,
        unmatched_questions=result.unmatched_questions,
        cases_without_trace=result.cases_without_trace,
        sample=tuple(make(r) for r in sampled),
        jaeger_url=jaeger,
        generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        ragfunnel_version=_version(),
        store=store,
        cases_file=(cases.source or None) if cases is not None else None,
        notices=result.notices,
    )


def _version() -> str:
    try:
        return metadata.version("ragfunnel")
    except metadata.PackageNotFoundError:  # a source tree on PYTHONPATH, never installed
        return "unknown"


def _mode_int(values: pl.Series) -> int | None:
    counts = values.drop_nulls().value_counts(sort=True)
    return int(counts.row(0)[0]) if counts.height else None
