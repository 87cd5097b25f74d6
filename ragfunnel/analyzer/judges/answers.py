"""The answers to judge, read from the stored generate spans with their prompt's context.

One row per question instance (trace and question id) and mode: the answer the funnel counts
— the lowest-numbered sample, its last attempt (docs/funnel.md) — with the prompt's context
ids and texts, the question text from the question span, the generator model and the logprob
attributes; the other samples' answers come along as ``sample_answers`` for the
self-consistency signal. Answers need content capture (``ragfunnel.answer.text`` and
``ragfunnel.context.texts``); those without it are counted, not judged.

This module only reads ``otel_traces``; it never writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from ragfunnel.instrumentation import contract as c

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["read_answers"]


def _a(name: str) -> str:
    return f"SpanAttributes['{name}']"


def read_answers(
    store: Store, *, runs: Sequence[str] = (), modes: Sequence[str] = ("pipeline",)
) -> pl.DataFrame:
    """The answers of the stored generate spans (see the module docstring).

    Columns: ``trace_id``, ``span_id``, ``question_key``, ``run_id``, ``mode``, ``started``
    (ns), ``question``, ``answer``, ``has_answer``, ``context_ids``, ``context_texts``,
    ``has_context``, ``model``, ``logprobs_min``, ``low_confidence``, ``sample_answers``.
    """
    run_filter = f"AND {_a(c.RUN_ID)} IN {{runs:Array(String)}}" if runs else ""
    sql = f"""
    WITH gen AS (
        SELECT TraceId, SpanId, {_a(c.QUESTION_ID)} AS QuestionKey,
            if({_a(c.MODE)} = '', 'pipeline', {_a(c.MODE)}) AS Mode,
            ifNull(toInt64OrNull({_a(c.SAMPLE_INDEX)}), 0) AS SampleIndex,
            toUnixTimestamp64Nano(Timestamp) AS Started,
            {_a(c.ANSWER_TEXT)} AS Answer, mapContains(SpanAttributes, '{c.ANSWER_TEXT}') AS HasAnswer,
            JSONExtract({_a(c.CONTEXT_IDS)}, 'Array(String)') AS ContextIds,
            JSONExtract({_a(c.CONTEXT_TEXTS)}, 'Array(String)') AS ContextTexts,
            mapContains(SpanAttributes, '{c.CONTEXT_TEXTS}') AS HasContext,
            {_a(c.GEN_AI_REQUEST_MODEL)} AS Model,
            toFloat64OrNull({_a(c.LOGPROBS_MIN)}) AS LogprobsMin,
            JSONExtract({_a(c.LOGPROBS_LOW_CONFIDENCE)}, 'Array(String)') AS LowConfidence
        FROM {store.traces_table}
        WHERE {_a(c.STAGE)} = 'generate' AND StatusCode != 'Error'
    ),
    questions AS (
        SELECT TraceId, {_a(c.QUESTION_ID)} AS QuestionKey, any({_a(c.QUESTION_TEXT)}) AS Question,
            any({_a(c.RUN_ID)}) AS RunId
        FROM {store.traces_table}
        WHERE {_a(c.STAGE)} = 'question' {run_filter}
        GROUP BY TraceId, QuestionKey
    )
    SELECT TraceId, QuestionKey, Mode,
        argMin(tuple(SpanId, questions.RunId, Started, Answer, HasAnswer, ContextIds, ContextTexts,
                     HasContext, Model, LogprobsMin, LowConfidence),
               tuple(SampleIndex, -Started)) AS primary,
        arrayFilter(x -> x != primary.4,
                    groupArrayIf(Answer, HasAnswer)) AS SampleAnswers,
        any(questions.Question) AS Question
    FROM gen {"INNER" if runs else "LEFT"} JOIN questions USING (TraceId, QuestionKey)
    WHERE Mode IN {{modes:Array(String)}}
    GROUP BY TraceId, QuestionKey, Mode
    ORDER BY TraceId, QuestionKey, Mode
    """
    parameters: dict[str, object] = {"modes": list(modes)}
    if runs:
        parameters["runs"] = list(runs)
    raw = store.query_df(sql, parameters)
    fields = ["span_id", "run_id", "started", "answer", "has_answer", "context_ids",
              "context_texts", "has_context", "model", "logprobs_min", "low_confidence"]  # fmt: skip
    if raw.is_empty():
        return _empty()
    primary = raw.get_column("primary").struct.rename_fields(fields).struct.unnest()
    return pl.concat(
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
    ).with_columns(pl.col("has_answer").cast(pl.Boolean), pl.col("has_context").cast(pl.Boolean))


def _empty() -> pl.DataFrame:
    strings = pl.List(pl.String)
    return pl.DataFrame(
        schema={
            "trace_id": pl.String, "question_key": pl.String, "mode": pl.String,
            "span_id": pl.String, "run_id": pl.String, "started": pl.Int64, "answer": pl.String,
            "has_answer": pl.Boolean, "context_ids": strings, "context_texts": strings,
            "has_context": pl.Boolean, "model": pl.String, "logprobs_min": pl.Float64,
            "low_confidence": strings, "question": pl.String, "sample_answers": strings,
        }
    )  # fmt: skip
