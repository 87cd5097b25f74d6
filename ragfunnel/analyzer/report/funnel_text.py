"""Plain-text renderings of funnel results for terminals: summaries and one question's record.

Pure formatting over the result tables; nothing here queries the store.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from ragfunnel.analyzer.funnel.analysis import FunnelResult
from ragfunnel.analyzer.funnel.run_summaries import METRICS
from ragfunnel.analyzer.funnel.shapes import Shapes
from ragfunnel.analyzer.report import wording

__all__ = ["describe_record", "describe_shape", "shapes_text", "summary_text"]

MAX_RUNS_SHOWN = 10
_METRIC_NAMES = {
    "hit": "hit rate",
    "recall": "recall",
    "mrr": "MRR",
    "context_precision": "context precision",
    "average_precision": "AP (LlamaIndex)",
}


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], indent: str = "  ") -> list[str]:
    body = [list(map(str, r)) for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(header)]
    lines = [indent + "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += [
        indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in body
    ]
    return lines


def _num(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}".rstrip("0").rstrip(".") if value % 1 else f"{value:.0f}"
    return f"{value:,}"


def _counted(value: Any, noun: str) -> str:
    """``1 id``, ``7 ids``, ``— ids`` for a count the funnel does not know."""
    return (
        wording.count(value, noun)
        if isinstance(value, int)
        else f"{_num(value)} {wording.plural(2, noun)}"
    )


def _interval(low: Any, high: Any, percent: bool = False) -> str:
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "—"
    if percent:
        return f"{100 * low:.1f}–{100 * high:.1f}%"
    return f"{low:.3f}–{high:.3f}"


def summary_text(result: FunnelResult, *, source: str = "") -> str:
    """The terminal summary of an analysis: failures per run with Wilson CIs, then metrics."""
    records = result.records
    lines = [
        f"{wording.count(records.height, 'question record')}"
        f"{' from ' + source if source else ''}; "
        f"index truth: {result.index_truth}"
    ]
    if result.unmatched_questions:
        examples = ", ".join(result.unmatched_examples)
        lines.append(
            f"{wording.count(result.unmatched_questions, 'question')} in the store "
            f"{wording.plural(result.unmatched_questions, 'matches', 'match')} no case "
            f"(e.g. {examples})"
        )
    if result.cases_without_trace:
        shown = ", ".join(result.cases_without_trace[:5])
        more = len(result.cases_without_trace) - 5
        lines.append(
            f"{wording.count(len(result.cases_without_trace), 'case')} "
            f"{wording.plural(len(result.cases_without_trace), 'has')} no trace: {shown}"
            + (f" and {more:,} more" if more > 0 else "")
        )
    runs = result.failures.select("run_id", "mode").unique(maintain_order=True).rows()
    for run_id, mode in runs[:MAX_RUNS_SHOWN]:
        failures = result.failures.filter((pl.col("run_id") == run_id) & (pl.col("mode") == mode))
        total = int(failures.get_column("total")[0])
        questions = wording.count(total, "question")
        lines += ["", f"run {run_id or '(none)'} · {mode} · {questions} (latest of each)"]
        lines += _table(
            ["first failure", "count", "share", "95% CI"],
            (
                (r["first_failure"], _num(r["count"]), f"{100 * r['share']:.1f}%",
                 _interval(r["ci_low"], r["ci_high"], percent=True))
                for r in failures.iter_rows(named=True)
            ),
        )  # fmt: skip
        if mode == "pipeline":
            lines.append("")
            lines += _metric_lines(result.metrics.filter(pl.col("run_id") == run_id))
    if len(runs) > MAX_RUNS_SHOWN:
        lines += [
            "",
            f"… and {wording.count(len(runs) - MAX_RUNS_SHOWN, 'more run')} "
            "(write them out with --json)",
        ]
    return "\n".join(lines)


def _metric_lines(metrics: pl.DataFrame) -> list[str]:
    ats = metrics.get_column("at").unique(maintain_order=True).to_list()
    header = ["metric", *(f"@{'cut' if a == 'cut' else a} (95% CI)" for a in ats)]
    by = {(r["metric"], r["at"]): r for r in metrics.iter_rows(named=True)}
    rows = []
    for metric in METRICS:
        cells = [_METRIC_NAMES[metric]]
        for at in ats:
            r = by.get((metric, at))
            cells.append(
                "—" if r is None else f"{_num(r['mean'])} ({_interval(r['ci_low'], r['ci_high'])})"
            )
        rows.append(cells)
    undefined = max((r["n_undefined"] for r in by.values()), default=0)
    out = _table(header, rows)
    if undefined:
        out.append(
            f"  (undefined values are left out of the means: up to {undefined:,} per metric)"
        )
    return out


def _retrievers(ranks: Sequence[Mapping[str, Any]] | None) -> str:
    if not ranks:
        return ""
    return ", ".join(
        f"{r['retriever']} rank {r['rank']}" if r["rank"] is not None else f"{r['retriever']} —"
        for r in ranks
    )


def describe_record(record: Mapping[str, Any], *, question: str = "", jaeger: str = "") -> str:
    """One question's record, readably: verdict, answer, evidence funnel, flags, metrics."""
    reason = record["failure_reason"] or ""
    item = f" ({record['failure_item']})" if record.get("failure_item") else ""
    lines = [
        f"{record['question_id']} · run {record['run_id'] or '(none)'} · "
        f"occurrence {record['occurrence']} · {record['mode']}",
    ]
    if question:
        lines.append(f"  {question}")
    lines += [
        f"trace {record['trace_id']}"
        + (f"  {jaeger.rstrip('/')}/trace/{record['trace_id']}" if jaeger else ""),
        f"first failure: {record['first_failure']} — {reason}{item}",
        f"answer: {record['answer_verdict']} — {record['answer_reason']}",
    ]
    if record.get("oracle_verdict"):
        note = record.get("oracle_note") or ""
        lines.append(f"oracle: {record['oracle_verdict']}" + (f" — {note}" if note else ""))
    if record.get("missing"):
        lines.append("missing: " + ", ".join(record["missing"]))
    lines.append(
        f"prompt: {_counted(record['prompt_size'], 'id')} from the "
        f"{record['prompt_source'] or '?'} list, k = {_num(record['k_prompt'])}; "
        f"{_counted(record['candidates'], 'candidate')}, "
        f"top score {_num(record['top_score'])}"
    )
    evidence = record.get("evidence") or []
    if evidence:
        lines.append("evidence:")
        rows = [
            (
                e["id"],
                {True: "yes", False: "no", None: "?"}[e["in_index"]],
                _num(e["candidate_rank"]),
                _num(e["rerank_rank"]),
                _num(e["prompt_position"]),
                e["lost_at"] or "—",
                e["reason"] or "",
            )
            for e in evidence
        ]
        lines += _table(
            ["id", "indexed", "candidate", "rerank", "prompt", "lost at", "reason"], rows
        )
        for e in evidence:
            text = _retrievers(e.get("retriever_ranks"))
            if text:
                lines.append(f"  {e['id']}: {text}")
    if record.get("flags"):
        lines.append("flags: " + ", ".join(record["flags"]))
    for key, label in (
        ("conflicting_documents", "conflicting sources"),
        ("low_confidence_tokens", "low-confidence tokens"),
        ("errors", "errors"),
    ):
        if record.get(key):
            lines.append(f"{label}: " + "; ".join(record[key]))
    metrics = " · ".join(f"{_METRIC_NAMES[m]} {_num(record.get(f'{m}_at_cut'))}" for m in METRICS)
    lines.append(f"at the cut: {metrics}")
    if record.get("metrics_note_at_cut"):
        lines.append(f"  ({record['metrics_note_at_cut']})")
    return "\n".join(lines)


def describe_shape(record: Mapping[str, Any]) -> str:
    """One question's funnel shape (no case to judge it against)."""
    lines = [
        f"{record['question_key']} · run {record['run_id'] or '(none)'} · {record['source']}",
        f"trace {record['trace_id']}",
        "stages: " + (", ".join(record["stages"]) or "none"),
        f"candidates {_num(record['candidates'])}, top score {_num(record['top_score'])}; "
        f"reranked {_num(record['reranked'])}; prompt {_num(record['prompt_size'])} "
        f"(k = {_num(record['k_prompt'])}); abstained: {'yes' if record['abstained'] else 'no'}",
    ]
    if record["missing"]:
        lines.append("missing: " + ", ".join(record["missing"]))
    if record["failed_stages"]:
        lines.append("failed: " + ", ".join(record["failed_stages"]))
    return "\n".join(lines)


def shapes_text(found: Shapes, *, source: str = "") -> str:
    """The terminal summary of live-traffic shapes, per run."""
    lines = [
        f"{wording.count(found.records.height, 'question')}"
        f"{' from ' + source if source else ''} "
        "(no cases: funnel shapes only; give --cases to attribute failures)"
    ]
    runs = found.summary.get_column("run_id").unique(maintain_order=True).to_list()
    for run_id in runs[:MAX_RUNS_SHOWN]:
        rows = found.summary.filter(pl.col("run_id") == run_id)
        lines += ["", f"run {run_id or '(none)'}"]
        lines += _table(
            ["measure", "value", "95% CI", "n"],
            (
                (r["measure"],
                 f"{100 * r['value']:.1f}%" if r["measure"].endswith("rate") else _num(r["value"]),
                 _interval(r["ci_low"], r["ci_high"], percent=r["measure"].endswith("rate")),
                 _num(r["n"]))
                for r in rows.iter_rows(named=True)
            ),
        )  # fmt: skip
    if len(runs) > MAX_RUNS_SHOWN:
        lines += [
            "",
            f"… and {wording.count(len(runs) - MAX_RUNS_SHOWN, 'more run')} "
            "(write them out with --json)",
        ]
    return "\n".join(lines)
