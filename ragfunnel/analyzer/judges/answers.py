"""The answers to judge, read through the span conventions, with their prompt's chunk texts.

One row per question instance (trace and question key) and mode: the answer the funnel counts
— the lowest-numbered sample, its last attempt (docs/funnel.md) — read from the same stage rows
the funnel reads (``store/stage_source.py``), so ragfunnel, OpenInference and OTel GenAI traces
alike: the answer text, the question text (the question span's, else the retrieval query), the
generator model and the logprob attributes; the other samples' answers come along as
``sample_answers`` for the self-consistency signal.

The prompt's chunks, and each chunk's text, come from wherever they were recorded
(``conventions/chunk_texts.py``, read by ``store/tables/traces.py``): the generate span's own context ids and texts; for a generate
span without ids (the usual OpenInference and GenAI shape), the output of the trace's last
ranking stage (the reranker's, else the retrievers'), as the funnel takes it; a chunk whose
text the generate span lacks takes it from the trace's retrieve or rerank spans, else from the
user's chunk file (``--chunks``, ``chunk_file.py``). An answer whose chunks have no text anywhere
is counted and reported, not judged.

This module only reads ``otel_traces``; it never writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import polars as pl

from ragfunnel.analyzer.store.stage_source import stage_source
from ragfunnel.analyzer.store.tables.stage_spans import answer_traces, generate_answers, ranked_ids
from ragfunnel.analyzer.store.tables.traces import chunk_texts as stored_chunk_texts
from ragfunnel.instrumentation.contract import TEXT_ID_PREFIX

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["CHUNK_TEXT_FIX", "PAGE_TRACES", "AnswerPages", "read_answers"]

CHUNK_TEXT_FIX = (
    "give the chunk texts with `--chunks chunks.jsonl`, or record them: "
    '`configure(capture_content=True)` (or the kind "chunks") and pass documents with text'
)
"""The one-line fix for answers whose prompt's chunks have no recorded text."""

ANSWER_TEXT_FIX = (
    'record answer text: `configure(capture_content=("question", "answer"))` keeps chunk '
    "texts out of spans (judge with `--chunks`), `capture_content=True` records all"
)
"""The one-line fix for answers without recorded text."""

_STRINGS = pl.List(pl.String)
_SCHEMA = pl.Schema({  # type: ignore[arg-type]  # polars' stubs reject a mixed dict literal
    "trace_id": pl.String, "question_key": pl.String, "mode": pl.String, "span_id": pl.String,
    "run_id": pl.String, "started": pl.Int64, "answer": pl.String, "has_answer": pl.Boolean,
    "context_ids": _STRINGS, "context_texts": _STRINGS, "has_context": pl.Boolean,
    "missing_texts": _STRINGS, "context_source": pl.String, "model": pl.String,
    "logprobs_min": pl.Float64, "low_confidence": _STRINGS, "question": pl.String,
    "sample_answers": _STRINGS, "filled_texts": _STRINGS,
})  # fmt: skip


def read_answers(
    store: Store,
    *,
    runs: Sequence[str] = (),
    modes: Sequence[str] = ("pipeline",),
    chunk_texts: Mapping[str, str] | None = None,
    traces: Sequence[str] = (),
) -> pl.DataFrame:
    """The answers of the stored generate spans (see the module docstring).

    Args:
        store: the store to read.
        runs: only answers of these run ids; default all.
        modes: the generate modes to read (``pipeline``, ``oracle``).
        chunk_texts: chunk id → text, for chunks no span recorded the text of (``--chunks``).
        traces: only answers of these trace ids; default all (a report's drill-downs).

    Columns: ``trace_id``, ``span_id``, ``question_key``, ``run_id``, ``mode``, ``started``
    (ns), ``question``, ``answer``, ``has_answer``, ``context_ids``, ``context_texts``,
    ``has_context`` (the prompt is known and every chunk of it has a text; an empty prompt the
    generate span recorded counts), ``missing_texts`` (the chunk ids without one),
    ``context_source`` (``generate``, ``ranking`` or ``none``), ``model``, ``logprobs_min``,
    ``low_confidence``, ``sample_answers``, ``filled_texts`` (the chunk ids whose text came
    from ``chunk_texts``).

    A chunk text equal to its chunk id is no text (spans written before plain id strings were
    told from texts recorded ids as their own text); a generate span whose "texts" are all
    chunk ids the trace's ranking spans list is read as a prompt of those ids
    (docs/span-contract.md, "Plain strings: ids or texts").
    """
    return _read(
        store,
        stage_source(store).sql,
        runs=runs,
        modes=modes,
        chunk_texts=chunk_texts or {},
        traces=traces,
    )


PAGE_TRACES = 1_000
"""Traces per page of :class:`AnswerPages` (as many as ``_TRACES_AT_ONCE``: one chunk-text query)."""


class AnswerPages:
    """The answers of :func:`read_answers`, read a page of traces at a time.

    Iterating gives one frame per page of ``traces_at_once`` traces (:func:`read_answers`'
    columns, its rows of those traces in its order), the traces in the order their answers
    started, so that a page's spans lie close together in the store (reading a page of traces
    scattered over the whole table read the whole table: a run's time grew with its square);
    the pages hold :func:`read_answers`' rows, each once. ``total`` is how many
    pipeline answers the pages hold before a run filter (a progress bar's total), known before
    the first page is read. Only the traces' hashes are held between pages (8 bytes a trace).
    """

    def __init__(
        self,
        store: Store,
        *,
        runs: Sequence[str] = (),
        modes: Sequence[str] = ("pipeline",),
        chunk_texts: Mapping[str, str] | None = None,
        traces_at_once: int = PAGE_TRACES,
    ) -> None:
        if traces_at_once < 1:
            raise ValueError(f"traces_at_once must be 1 or more: {traces_at_once}")
        self._store, self._runs, self._modes = store, tuple(runs), tuple(modes)
        self._given = chunk_texts or {}
        self._at_once = traces_at_once
        self._source = stage_source(store).sql
        listed = answer_traces(store, self._source, modes=self._modes)
        self._traces = listed.get_column("TraceHash")
        self.total = int(listed.get_column("Pipeline").sum() or 0)

    def __iter__(self) -> Iterator[pl.DataFrame]:
        for start in range(0, len(self._traces), self._at_once):
            yield _read(
                self._store,
                self._source,
                runs=self._runs,
                modes=self._modes,
                chunk_texts=self._given,
                trace_hashes=self._traces.slice(start, self._at_once).to_list(),
            )


def _read(
    store: Store,
    source: str,
    *,
    runs: Sequence[str],
    modes: Sequence[str],
    chunk_texts: Mapping[str, str],
    traces: Sequence[str] = (),
    trace_hashes: Sequence[int] = (),
) -> pl.DataFrame:
    raw = generate_answers(
        store, source, runs=runs, modes=modes, traces=traces, trace_hashes=trace_hashes
    )
    if raw.is_empty():
        return pl.DataFrame(schema=_SCHEMA)
    fields = ["span_id", "run_id", "started", "answer", "has_answer", "model", "logprobs_min",
              "low_confidence"]  # fmt: skip
    primary = raw.get_column("primary").struct.rename_fields(fields).struct.unnest()
    frame = pl.concat(
        [
            raw.select(
                pl.col("TraceId").alias("trace_id"),
                pl.col("QuestionKey").alias("question_key"),
                pl.col("Mode").alias("mode"),
            ),
            primary,
            raw.select(
                pl.col("Question").alias("question"),
                pl.col("SampleAnswers").alias("sample_answers"),
            ),
        ],
        how="horizontal",
    ).with_columns(pl.col("has_answer").cast(pl.Boolean))
    contexts = _contexts(store, source, frame, chunk_texts)
    return frame.join(contexts, on="span_id", how="left").select(list(_SCHEMA)).cast(_SCHEMA)


_TRACES_AT_ONCE = 1_000
"""Traces whose chunk texts are read in one query: reading the texts of 10,000 traces at once
took the process from 0.5 to 1.5 GiB (the engine's work on every span's attributes), in slices
of 1,000 to 0.8 GiB, in about the same time."""

_CONTEXT_COLUMNS: dict[str, pl.DataType] = {
    "span_id": pl.String(),
    "context_ids": _STRINGS,
    "context_texts": _STRINGS,
    "has_context": pl.Boolean(),
    "missing_texts": _STRINGS,
    "context_source": pl.String(),
    "filled_texts": _STRINGS,
}


def _contexts(
    store: Store, source: str, answers: pl.DataFrame, chunk_texts: Mapping[str, str]
) -> pl.DataFrame:
    """Each answer's prompt chunks with their texts, :data:`_TRACES_AT_ONCE` traces at a time."""
    # Traces in the order they started, so that each slice's spans lie close together.
    order = (
        answers.group_by("trace_id")
        .agg(pl.col("started").min())
        .sort("started", "trace_id")
        .select("trace_id", part=pl.int_range(pl.len()) // _TRACES_AT_ONCE)
    )
    sliced = (
        answers.select("trace_id", "span_id")
        .join(order, on="trace_id", how="left", maintain_order="left")
        .partition_by("part", include_key=False)
    )
    parts = [_slice_contexts(store, source, part, chunk_texts) for part in sliced]
    return pl.concat(parts) if parts else pl.DataFrame(schema=_CONTEXT_COLUMNS)


def _slice_contexts(
    store: Store, source: str, answers: pl.DataFrame, chunk_texts: Mapping[str, str]
) -> pl.DataFrame:
    """The prompts of the answers of a few traces (see the module docstring)."""
    traces = answers.get_column("trace_id").unique().to_list()
    docs = stored_chunk_texts(store, traces)
    # Prompts read as texts whose "texts" the trace's rankings list as ids (ids with spaces).
    candidates: dict[str, list[str]] = {}
    for trace, _, stage, _, ids, texts in docs.iter_rows():
        if stage == "generate" and ids and all(i.startswith(TEXT_ID_PREFIX) for i in ids):
            candidates.setdefault(trace, []).extend(t for t in texts if t)
    listed = ranked_ids(store, source, candidates)
    own: dict[str, tuple[list[str], list[str]]] = {}
    ranking: dict[str, dict[str, list[tuple[list[str], list[str]]]]] = {}
    known: dict[str, dict[str, str]] = {}
    for trace, span, stage, _, ids, recorded in docs.iter_rows():
        texts = [t if t != chunk else "" for chunk, t in zip(ids, recorded, strict=True)]
        if stage == "generate":
            own[span] = (ids, texts)
        elif stage in ("retrieve", "rerank"):
            ranking.setdefault(trace, {}).setdefault(stage, []).append((ids, texts))
        seen = known.setdefault(trace, {})
        for chunk, text in zip(ids, texts, strict=True):
            if text and chunk not in seen:
                seen[chunk] = text
    rows = []
    for trace, span in answers.select("trace_id", "span_id").iter_rows():
        prompt = _ids_as_texts(own.get(span)) if trace in listed else own.get(span)
        ids, source = _prompt_ids(prompt, ranking.get(trace, {}))
        found = [
            _text_of(chunk, position, prompt, known.get(trace, {}), chunk_texts)
            for position, chunk in enumerate(ids)
        ]
        texts = [text for text, _ in found]
        filled = [chunk for chunk, (_, given) in zip(ids, found, strict=True) if given]
        missing = [chunk for chunk, text in zip(ids, texts, strict=True) if not text]
        usable = source != "none" and not missing
        rows.append((span, ids, [t or "" for t in texts], usable, missing, source, filled))
    return pl.DataFrame(rows, schema=_CONTEXT_COLUMNS, orient="row")


def _ids_as_texts(own: tuple[list[str], list[str]] | None) -> tuple[list[str], list[str]] | None:
    """A prompt of texts that are ids the trace's rankings list, as ids without texts.

    Ids with spaces (``"Travel Policy.pdf#3"``) are read as texts by the decorators.
    """
    if own is None or not own[1] or not all(own[1]):
        return own
    return list(own[1]), [""] * len(own[1])


def _prompt_ids(
    own: tuple[list[str], list[str]] | None,
    ranking: Mapping[str, list[tuple[list[str], list[str]]]],
) -> tuple[list[str], str]:
    if own is not None:  # the generate span listed its prompt (an empty one, too)
        return list(own[0]), "generate"
    # No ids on the generate span: the last ranking stage's output, as the funnel takes it.
    for stage in ("rerank", "retrieve"):
        lists = ranking.get(stage, [])
        if stage == "rerank" and lists:
            return list(lists[-1][0]), "ranking"
        ids = list(dict.fromkeys(chunk for listed, _ in lists for chunk in listed))
        if ids:
            return ids, "ranking"
    return [], "none"


def _text_of(
    chunk: str,
    position: int,
    own: tuple[list[str], list[str]] | None,
    trace: Mapping[str, str],
    given: Mapping[str, str],
) -> tuple[str | None, bool]:
    """The chunk's text and whether it came from ``given`` (the ``--chunks`` file)."""
    if own is not None and position < len(own[1]) and own[0] and own[1][position]:
        return own[1][position], False
    recorded = trace.get(chunk)
    if recorded:
        return recorded, False
    text = given.get(chunk)
    return (text, True) if text and text != chunk else (None, False)
