"""What a report shows that the funnel's records do not carry, read from the store.

Three small read-only queries: each run's configuration snapshot (the question spans'
``ragfunnel.pipeline.*`` attributes, docs/span-contract.md), the documents whose ingestion
recorded pages or parts without text, and the texts — question, answer, prompt chunks — of
the few questions a report drills into. Both only SELECT: this module must
never write to the store, and never fetch texts for more than the questions it is given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragfunnel.analyzer.report import wording
from ragfunnel.analyzer.store import Store
from ragfunnel.instrumentation import contract as c

__all__ = ["QuestionTexts", "pipeline_snapshots", "question_texts", "textless_documents"]

_BATCH = 5_000


@dataclass(frozen=True)
class QuestionTexts:
    """A question's captured texts (content capture on); each is ``None`` when not recorded."""

    question: str | None = None
    answer: str | None = None
    context_ids: tuple[str, ...] = ()
    context_texts: tuple[str, ...] = ()


def pipeline_snapshots(store: Store, runs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Per run, its ``ragfunnel.pipeline.*`` settings, the prefix dropped (``prompt_version``).

    A setting with one value over the run's questions maps to it; one that changed during the
    run maps to a list of ``"value (n questions)"``, commonest first — a run should have one.
    """
    wanted = sorted(set(runs))
    if not wanted:
        return {}
    rows = store.query_df(
        f"""
        SELECT SpanAttributes[{{run_key:String}}] AS run_id, key, value, count() AS n
        FROM {store.traces_table}
        ARRAY JOIN mapKeys(SpanAttributes) AS key, mapValues(SpanAttributes) AS value
        WHERE SpanAttributes[{{stage_key:String}}] = 'question'
          AND startsWith(key, {{prefix:String}})
          AND SpanAttributes[{{run_key:String}}] IN {{runs:Array(String)}}
        GROUP BY run_id, key, value
        ORDER BY run_id, key, n DESC, value
        """,
        {"run_key": c.RUN_ID, "stage_key": c.STAGE, "prefix": c.PIPELINE_PREFIX, "runs": wanted},
    )
    found: dict[str, dict[str, list[tuple[str, int]]]] = {run: {} for run in wanted}
    for run_id, key, value, n in rows.iter_rows():
        name = str(key)[len(c.PIPELINE_PREFIX) :]
        found[str(run_id)].setdefault(name, []).append((str(value), int(n)))
    return {
        run: {
            name: _value(values[0][0])
            if len(values) == 1
            else [f"{v} ({wording.count(n, 'question')})" for v, n in values]
            for name, values in sorted(settings.items())
        }
        for run, settings in found.items()
    }


def _value(text: str) -> Any:
    """Arrays were stored as JSON text: give them back as lists; everything else as stored."""
    if text.startswith("["):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _strings(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    try:
        value = json.loads(text)
    except ValueError:
        return ()
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def question_texts(
    store: Store, keys: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], QuestionTexts]:
    """The texts of the questions ``(trace_id, question_key)`` as their spans recorded them.

    The answer is the pipeline generate span's, of the lowest sample index and latest start,
    as the funnel reads it (docs/funnel.md §2).
    """
    out: dict[tuple[str, str], QuestionTexts] = {}
    wanted = set(keys)
    traces = sorted({trace for trace, _ in wanted})
    for start in range(0, len(traces), _BATCH):
        rows = store.query_df(
            f"""
            SELECT TraceId AS trace_id, SpanAttributes[{{qid:String}}] AS question_key,
                   SpanAttributes[{{stage:String}}] AS stage,
                   SpanAttributes[{{qtext:String}}] AS question,
                   SpanAttributes[{{atext:String}}] AS answer,
                   SpanAttributes[{{cids:String}}] AS context_ids,
                   SpanAttributes[{{ctexts:String}}] AS context_texts,
                   SpanAttributes[{{mode:String}}] AS mode,
                   toInt64OrDefault(SpanAttributes[{{sample:String}}], toInt64(0)) AS sample,
                   Timestamp AS started
            FROM {store.traces_table}
            WHERE TraceId IN {{traces:Array(String)}} AND stage IN ('question', 'generate')
            ORDER BY trace_id, question_key, sample DESC, started
            """,
            {
                "qid": c.QUESTION_ID, "stage": c.STAGE, "qtext": c.QUESTION_TEXT,
                "atext": c.ANSWER_TEXT, "cids": c.CONTEXT_IDS, "ctexts": c.CONTEXT_TEXTS,
                "mode": c.MODE, "sample": c.SAMPLE_INDEX,
                "traces": traces[start : start + _BATCH],
            },
        )  # fmt: skip
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for row in rows.iter_rows(named=True):
            key = (row["trace_id"], row["question_key"])
            if key not in wanted:
                continue
            entry = found.setdefault(key, {})
            if row["stage"] == "question":
                entry["question"] = row["question"] or None
            elif row["mode"] != c.Mode.ORACLE.value:
                # Rows run from the highest sample to the lowest, each by start: the last
                # row written is the lowest sample's latest attempt.
                entry["answer"] = row["answer"] or None
                entry["context_ids"] = _strings(row["context_ids"])
                entry["context_texts"] = _strings(row["context_texts"])
        out.update({key: QuestionTexts(**entry) for key, entry in found.items()})
    return out


def textless_documents(store: Store, index_versions: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Per index version, the documents whose ingestion recorded pages or parts without text.

    That is a successful ingest span with ``ragfunnel.ingest.pages_without_text`` or
    ``parts_without_text`` above 0: scanned pages without a text layer, images, empty parses.
    """
    wanted = sorted(set(index_versions))
    if not wanted:
        return {}
    rows = store.query_df(
        f"""
        SELECT SpanAttributes[{{version:String}}] AS version,
               SpanAttributes[{{document:String}}] AS document
        FROM {store.traces_table}
        WHERE SpanAttributes[{{stage:String}}] = 'ingest'
          AND StatusCode != 'Error'
          AND SpanAttributes[{{version:String}}] IN {{versions:Array(String)}}
          AND (toInt64OrZero(SpanAttributes[{{pages:String}}]) > 0
               OR toInt64OrZero(SpanAttributes[{{parts:String}}]) > 0)
        GROUP BY version, document
        ORDER BY version, document
        """,
        {
            "version": c.INDEX_VERSION, "document": c.DOCUMENT_ID, "stage": c.STAGE,
            "pages": c.PAGES_WITHOUT_TEXT, "parts": c.PARTS_WITHOUT_TEXT, "versions": wanted,
        },
    )  # fmt: skip
    out: dict[str, list[str]] = {}
    for version, document in rows.iter_rows():
        if document:
            out.setdefault(str(version), []).append(str(document))
    return {version: tuple(documents) for version, documents in out.items()}
