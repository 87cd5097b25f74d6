"""The SQL that rebuilds each question's funnel inside ClickHouse (embedded or server).

One aggregation over the typed stage table (``ragfunnel.analyzer.store.tables.stage_spans``) gives one
row per question instance (a question inside one trace): for every stage, the *last attempt*
(latest start) of that stage's span (of generate, the lowest-numbered sample's last attempt:
``GENERATE_KEY``), and for every expected evidence item its 1-based position in that span's
list. Evidence items are compared as 64-bit hashes, and the positions of four items are packed
into one UInt64 (the layout and every column name are ``read/columns.py``'s):
scalar aggregate states are several times cheaper than tuple or array states, which is what
keeps a million questions to about a second. Beside it: the question spans' ids
(:func:`roots_sql`, :func:`instance_ids_sql`) and the item scores (:func:`scores_sql`).
"""

from __future__ import annotations

from ragfunnel.analyzer.funnel.read.sql.query import (
    GENERATE_KEY,
    META,
    RETRIEVE_KEY,
    TS,
    FunnelQuery,
    item_score,
    packed,
    select_from,
)
from ragfunnel.analyzer.funnel.read.wide_layout import slot, stage_column, word

__all__ = ["funnel_sql", "instance_ids_sql", "roots_sql", "score_columns", "scores_sql"]


def stage_aggregates(q: FunnelQuery) -> list[str]:
    """Aggregates over the pre-projected rows ``r`` (one per stage span).

    Only scalar states and the answer text: rare details (error messages, samples, oracle
    answers, low-confidence tokens, per-retriever ranks) come from the side queries (``side_queries.py``).
    """
    out: list[str] = []

    def last(prefix: str, cond: str, key: str, fields: dict[str, str]) -> None:
        out.append(f"countIf({cond}) AS {stage_column(prefix, 'n_spans')}")
        out.append(f"argMaxIf(r.meta, {key}, {cond}) AS {stage_column(prefix, 'meta')}")
        for name, expr in fields.items():
            out.append(f"argMaxIf({expr}, {key}, {cond}) AS {stage_column(prefix, name)}")

    words = {word("pk", w): f"r.{word('pk', w)}" for w in range(q.words)}
    in_words = {word("in_pk", w): f"r.{word('in_pk', w)}" for w in range(q.words)}
    conflicts = {"conflicts": "r.conflicts"} if q.conflicts else {}
    last(
        "cand",
        "r.Stage = 'retrieve'",
        "r.retrieve_key",
        {"top_score": "r.TopScore", "top_k": "r.TopK", **words},
    )
    out.append("countIf(r.Stage = 'retrieve' AND notEmpty(r.FusedFrom)) AS fusion_n_spans")
    # Whether the individual retrieve spans carry more than one retriever name (then several
    # spans are hybrid retrieval, not retries): two small states instead of a distinct count.
    single = "r.Stage = 'retrieve' AND empty(r.FusedFrom)"
    out.append(
        f"minIf(r.name_hash, {single}) != maxIf(r.name_hash, {single}) AS several_retrievers"
    )
    last("rr", "r.Stage = 'rerank'", "r.ts",
         {"top_score": "r.TopScore", **words, **in_words})  # fmt: skip
    last(
        "cut",
        "r.Stage = 'cut'",
        "r.ts",
        {
            "k": "r.CutK",
            "threshold": "r.CutThreshold",
            "token_budget": "r.CutTokenBudget",
            **words,
            **in_words,
            **conflicts,
        },
    )
    pipeline = "r.Stage = 'generate' AND r.Mode != 'oracle'"
    last(
        "gen",
        pipeline,
        "r.generate_key",
        {"answer": "r.AnswerText", "logprobs_min": "r.LogprobsMin", **words, **conflicts},
    )
    out.append(f"countIf({pipeline} AND r.SampleIndex IS NOT NULL) AS samples_n_spans")
    out.append("countIf(r.Stage = 'generate' AND r.Mode = 'oracle') AS oracle_n_spans")
    if q.with_scores:
        out += score_aggregates(q.items)
    return out


def score_columns(items: int) -> list[str]:
    """The columns of every item's scores, as :func:`scores_sql` names them (after ``inst_key``)."""
    return [slot(stage_column(stage, "score"), j) for j in range(items) for stage in ("cand", "rr")]


def score_aggregates(items: int) -> list[str]:
    """Each item's score at the last candidate span and the last rerank span."""
    return [
        f"argMaxIf(r.{slot('score', j)}, r.retrieve_key, r.Stage = 'retrieve') "
        f"AS {slot(stage_column('cand', 'score'), j)}, "
        f"argMaxIf(r.{slot('score', j)}, r.ts, r.Stage = 'rerank') "
        f"AS {slot(stage_column('rr', 'score'), j)}"
        for j in range(items)
    ]


def funnel_sql(q: FunnelQuery) -> str:
    """The per-question-instance funnel query (parameters: ``runs``, ``keys``, ``conflict``)."""
    projected = [
        "s.InstanceKey AS InstanceKey",
        "s.Stage AS Stage",
        f"{TS} AS ts",
        f"{RETRIEVE_KEY} AS retrieve_key",
        f"{GENERATE_KEY} AS generate_key",
        "s.StatusCode = 'Error' AS error",
        f"{META} AS meta",
        "s.Abstained AS Abstained",
        "s.FusedFrom AS FusedFrom",
        "cityHash64(s.Name) AS name_hash",
        "s.TopK AS TopK",
        "s.CutK AS CutK",
        "s.CutThreshold AS CutThreshold",
        "s.CutTokenBudget AS CutTokenBudget",
        "s.TopScore AS TopScore",
        "s.Mode AS Mode",
        "s.SampleIndex AS SampleIndex",
        "s.AnswerText AS AnswerText",
        "s.LogprobsMin AS LogprobsMin",
    ]
    if q.match_table:
        projected.append("m.case_idx AS case_idx")
    projected += [f"{packed('s.IdHashes', w, q.items)} AS {word('pk', w)}" for w in range(q.words)]
    projected += [
        f"{packed('s.InputHashes', w, q.items)} AS {word('in_pk', w)}" for w in range(q.words)
    ]
    if q.conflicts:
        projected.append(
            "arrayFilter(h -> has({conflict:Array(UInt64)}, h), s.IdHashes) AS conflicts"
        )
    if q.with_scores:
        projected += [f"{item_score(j)} AS {slot('score', j)}" for j in range(q.items)]
    # No string states besides the answer: the trace id, question key, run and index version
    # come from ``roots_sql`` (a plain read of the question spans), which costs far less than
    # carrying strings through a million-group aggregation.
    aggregates = [
        "r.InstanceKey AS inst_key",
        *(["any(r.case_idx) AS case_idx"] if q.match_table else []),
        "min(r.ts) AS started_ns",
        "countIf(r.Stage = 'question') AS root_n_spans",
        "max(r.Abstained) AS abstained",
        "countIf(r.error) AS n_errors",
        *stage_aggregates(q),
    ]
    body = ",\n  ".join(aggregates)
    inner = select_from(q, projected, where=["s.Stage NOT IN ('ingest', '')"])
    # In a fixed order: the engine's groups come out in whatever order its threads left them,
    # and the records (their files, the sums of their metrics) would follow it.
    return (
        f"SELECT\n  {body}\nFROM (\n  {inner}\n) AS r\nGROUP BY r.InstanceKey\n"
        "ORDER BY started_ns, inst_key"
    )


def roots_sql(q: FunnelQuery) -> str:
    """The question spans of the selected instances: their ids, run and index version."""
    projected = [
        "s.InstanceKey AS inst_key",
        "s.TraceId AS trace_id",
        "s.QuestionKey AS question_key",
        "s.RunId AS run_id",
        "s.IndexVersion AS index_version",
    ]
    return select_from(q, projected, where=["s.Stage = 'question'"])


def instance_ids_sql(q: FunnelQuery) -> str:
    """Trace id and question key of instances without a question span (``{instances}``)."""
    projected = ["s.InstanceKey AS inst_key", "s.TraceId AS trace_id",
                 "s.QuestionKey AS question_key"]  # fmt: skip
    inner = select_from(q, projected, where=["s.InstanceKey IN {instances:Array(UInt64)}"])
    return f"SELECT * FROM ({inner}) LIMIT 1 BY inst_key"


def scores_sql(q: FunnelQuery) -> str:
    """Each item's score at the chosen candidate or rerank span of some instances.

    Only needed to explain cut losses against a threshold, so fetched for those alone:
    ``{ranked}`` lists instances whose last ranking stage is the reranker, ``{candidates}``
    those without one (only that stage's spans, small arrays mostly, are read).
    """
    projected = [
        "s.InstanceKey AS InstanceKey",
        "s.Stage AS Stage",
        f"{TS} AS ts",
        f"{RETRIEVE_KEY} AS retrieve_key",
        *(f"{item_score(j)} AS {slot('score', j)}" for j in range(q.items)),
    ]
    wanted = (
        "(s.Stage = 'rerank' AND s.InstanceKey IN {ranked:Array(UInt64)}) "
        "OR (s.Stage = 'retrieve' AND s.InstanceKey IN {candidates:Array(UInt64)})"
    )
    inner = select_from(q, projected, where=[wanted])
    columns = ", ".join(score_aggregates(q.items))
    return f"SELECT r.InstanceKey AS inst_key, {columns} FROM ({inner}) AS r GROUP BY r.InstanceKey"
