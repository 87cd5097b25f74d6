"""One question's drill-down entry: its record, each evidence item's path, claims and texts.

An entry is a plain dict (JSON-ready) built from a record row; texts come from the store
through ``sources.question_texts`` when the report was given a store. Only the questions a
report shows get an entry: this module must never walk every record.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlsplit

from ragfunnel.analyzer.report.report_error import ReportError
from ragfunnel.analyzer.report.sources import QuestionTexts
from ragfunnel.instrumentation.redaction import redact_url, redact_urls, split_credentials

__all__ = ["check_jaeger_url", "entry", "evidence_path", "trace_url"]

RECORD_FIELDS = (
    "question_id", "run_id", "trace_id", "question_key", "started", "occurrence", "mode",
    "first_failure", "failure_reason", "failure_item", "answer_verdict", "answer_reason",
    "oracle_verdict", "oracle_note", "abstained", "k_prompt", "prompt_source", "prompt_size",
    "candidates", "top_score", "index_version", "missing", "flags", "errors",
    "conflicting_documents", "faithfulness", "answer_correctness", "correctness_reason",
)  # fmt: skip


def check_jaeger_url(url: str | None) -> str | None:
    """The Jaeger base URL without a trailing slash or ``user:pass@``; only ``http(s)://host…``.

    Credentials never reach the report's links (the browser asks for them instead).
    """
    if url is None or url == "":
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ReportError(
            f"jaeger_url: expected http(s)://host[:port][/path], got {redact_urls(url)!r}",
            argument="jaeger_url",
        )
    return redact_url(split_credentials(url)[0]).rstrip("/")


def trace_url(jaeger_url: str | None, trace_id: str | None) -> str | None:
    """``{jaeger_url}/trace/{trace_id}``, the id percent-encoded; ``None`` without either."""
    if not jaeger_url or not trace_id:
        return None
    return f"{jaeger_url}/trace/{quote(trace_id, safe='')}"


def _rank(value: Any) -> str:
    return "—" if value is None else f"#{value}"


def evidence_path(item: Mapping[str, Any]) -> str:
    """Where one evidence item went: ``indexed → candidate #25 → lost at search: …``."""
    if item.get("lost_at") == "ingestion":  # the reason says it all: never indexed
        return f"lost at ingestion: {item.get('reason') or 'not in the index'}"
    steps = []
    in_index = item.get("in_index")
    steps.append({True: "indexed", False: "never indexed", None: "index unknown"}[in_index])
    if in_index is not False:
        rank = item.get("candidate_rank")
        steps.append("not retrieved" if rank is None else f"candidate {_rank(rank)}")
        if item.get("rerank_rank") is not None:
            steps.append(f"reranked {_rank(item['rerank_rank'])}")
        if item.get("in_prompt"):
            steps.append(f"in the prompt at {_rank(item.get('prompt_position'))}")
    if item.get("lost_at"):
        steps.append(f"lost at {item['lost_at']}: {item.get('reason') or ''}".rstrip(": "))
    return " → ".join(steps)


def _number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def entry(
    record: Mapping[str, Any],
    *,
    question: str | None = None,
    texts: QuestionTexts | None = None,
    jaeger_url: str | None = None,
    metric_columns: Sequence[str] = (),
) -> dict[str, Any]:
    """The drill-down entry of one record row (``records.iter_rows(named=True)``)."""
    out: dict[str, Any] = {f: _number(record.get(f)) for f in RECORD_FIELDS}
    out["started"] = record["started"].isoformat() if record.get("started") else None
    out["trace_url"] = trace_url(jaeger_url, record.get("trace_id"))
    texts = texts or QuestionTexts()
    out["question"] = question if question is not None else texts.question
    out["answer"] = texts.answer
    context = dict(zip(texts.context_ids, texts.context_texts, strict=False))
    out["prompt"] = [{"id": cid, "text": context.get(cid) or None} for cid in texts.context_ids]
    out["evidence"] = [
        {
            **{k: _number(v) for k, v in item.items() if k != "retriever_ranks"},
            "retriever_ranks": [dict(r) for r in item.get("retriever_ranks") or ()],
            "path": evidence_path(item),
            "text": context.get(item["id"]),
        }
        for item in record.get("evidence") or ()
    ]
    claims = record.get("claims") or ()
    out["unsupported_claims"] = [
        {"text": claim.get("text"), "label": claim.get("label"), "missing": claim.get("missing")}
        for claim in claims
        if claim.get("label") in ("unsupported", "partial")
    ]
    out["metrics"] = {c: _number(record.get(c)) for c in metric_columns}
    return out
