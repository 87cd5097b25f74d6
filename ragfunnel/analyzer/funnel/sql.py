"""The SQL that rebuilds each question's funnel inside ClickHouse (embedded or server).

One aggregation over the typed stage table (``ragfunnel.analyzer.store.stage_table``) gives one row per question instance
(a question inside one trace): for every stage, the *last attempt* (latest start) of that stage's
span, and for every expected evidence item its 1-based position in that span's list. Evidence
items are compared as 64-bit hashes, and the positions of four items are packed into one UInt64
(the layout and every column name are ``columns.py``'s): scalar aggregate states are several
times cheaper than tuple or array states, which is what keeps a million questions to about a
second.

Case data reaches SQL only through per-analysis temporary tables filled with Arrow inserts, and
run filters through bound parameters; no user value is ever spliced into SQL text.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragfunnel.analyzer.funnel.columns import (
    item_hash,
    meta_sql,
    positions_sql,
    slot,
    stage_column,
    word,
    words,
)

__all__ = [
    "FunnelQuery",
    "discovery_sql",
    "errors_sql",
    "funnel_sql",
    "index_truth_sql",
    "ingest_versions_sql",
    "instance_ids_sql",
    "low_confidence_sql",
    "match_sql",
    "multi_ingested_sql",
    "oracle_sql",
    "retrievers_sql",
    "roots_sql",
    "samples_sql",
    "score_columns",
    "scores_sql",
]

# Per-stage "last attempt" order keys (nanoseconds since the epoch; priority bits above 2^61).
# A fusion span outranks the individual retrievers whatever its start time; a foreign retrieve
# span without documents (frameworks nest one inside the retriever that has them) loses to any
# span that has documents.
_TS = "toUInt64(greatest(toUnixTimestamp64Nano(s.Timestamp), 0))"
_RETRIEVE_KEY = (
    f"{_TS} + bitShiftLeft(toUInt64(notEmpty(s.FusedFrom) * 2 "
    "+ (s.HasIds OR s.Source = 'ragfunnel')), 61)"
)


@dataclass(frozen=True)
class FunnelQuery:
    """What one funnel query computes.

    Attributes:
        stage_table: quoted name of the typed stage-span table.
        items: the largest number of evidence items of any case (0 without cases).
        match_table: the temporary table mapping question-key hashes to cases and the
            hashes of their items, ``key_hash, case_idx, i0, i1 ...`` (only with cases).
        runs: restrict to question spans of these runs (empty = every run).
        buckets: only instances in this inclusive range of buckets (see ``schema.BUCKETS``).
        conflicts: also return the prompt's chunks that belong to multi-ingested documents.
        question_keys: restrict to these question keys (one question's records).
        with_scores: also aggregate every item's score at the last candidate and rerank spans
            (the columns of :func:`scores_sql`). At read time another pass over ``otel_traces``
            for the few instances whose reasons need scores would cost nearly as much as the
            funnel pass itself, while the funnel pass parses the scores anyway.
    """

    stage_table: str
    items: int = 0
    match_table: str = ""
    runs: tuple[str, ...] = ()
    buckets: tuple[int, int] | None = None
    conflicts: bool = False
    question_keys: tuple[str, ...] = ()
    with_scores: bool = False

    @property
    def words(self) -> int:
        """How many packed UInt64 words hold the positions of ``items`` items."""
        return words(self.items)


def _item(j: int) -> str:
    return f"m.{item_hash(j)}"


def _packed(array: str, w: int, items: int) -> str:
    return positions_sql(array, w, items, _item)


def _item_score(j: int) -> str:
    position = f"indexOf(s.IdHashes, {_item(j)})"
    return f"if({position} BETWEEN 1 AND length(s.Scores), s.Scores[{position}], nan)"


_META = meta_sql(
    {
        "error": "s.StatusCode = 'Error'",
        "has_ids": "s.HasIds",
        "has_input": "s.HasInput",
        "abstained": "s.Abstained",
        "has_answer": "s.HasAnswer",
        "n": "length(s.IdHashes)",
        "n_in": "length(s.InputHashes)",
        "n_low_confidence": "length(s.LowConfidence)",
    }
)


def _stage_aggregates(q: FunnelQuery) -> list[str]:
    """Aggregates over the pre-projected rows ``r`` (one per stage span).

    Only scalar states and the answer text: rare details (error messages, samples, oracle
    answers, low-confidence tokens, per-retriever ranks) come from the side queries below.
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
        "r.ts",
        {"answer": "r.AnswerText", "logprobs_min": "r.LogprobsMin", **words, **conflicts},
    )
    out.append(f"countIf({pipeline} AND r.SampleIndex IS NOT NULL) AS samples_n_spans")
    out.append("countIf(r.Stage = 'generate' AND r.Mode = 'oracle') AS oracle_n_spans")
    if q.with_scores:
        out += _score_aggregates(q.items)
    return out


def score_columns(items: int) -> list[str]:
    """The columns of every item's scores, as :func:`scores_sql` names them (after ``inst_key``)."""
    return [slot(stage_column(stage, "score"), j) for j in range(items) for stage in ("cand", "rr")]


def _score_aggregates(items: int) -> list[str]:
    """Each item's score at the last candidate span and the last rerank span."""
    return [
        f"argMaxIf(r.{slot('score', j)}, r.retrieve_key, r.Stage = 'retrieve') "
        f"AS {slot(stage_column('cand', 'score'), j)}, "
        f"argMaxIf(r.{slot('score', j)}, r.ts, r.Stage = 'rerank') "
        f"AS {slot(stage_column('rr', 'score'), j)}"
        for j in range(items)
    ]


def _source(q: FunnelQuery, projected: list[str], *, where: list[str]) -> str:
    """``FROM`` the stage table (joined to the case items) with the query's filters."""
    table = q.stage_table
    if q.buckets is not None:
        low, high = q.buckets
        table = f"(SELECT * FROM {q.stage_table} WHERE Bucket BETWEEN {low:d} AND {high:d})"
    source = f"{table} AS s"
    if q.match_table:
        # Joining on a 64-bit hash of the key is about twice as fast as on the string.
        source += f" ALL INNER JOIN {q.match_table} AS m ON cityHash64(s.QuestionKey) = m.key_hash"
    where = [*where, "s.QuestionKey != ''"]
    if q.runs:
        where.append(
            f"s.InstanceKey IN (SELECT InstanceKey FROM {table} "
            "WHERE Stage = 'question' AND RunId IN {runs:Array(String)})"
        )
    if q.question_keys:
        where.append("s.QuestionKey IN {keys:Array(String)}")
    columns = ",\n    ".join(projected)
    return f"SELECT\n    {columns}\n  FROM {source}\n  WHERE {' AND '.join(where)}"


def funnel_sql(q: FunnelQuery) -> str:
    """The per-question-instance funnel query (parameters: ``runs``, ``keys``, ``conflict``)."""
    projected = [
        "s.InstanceKey AS InstanceKey",
        "s.Stage AS Stage",
        f"{_TS} AS ts",
        f"{_RETRIEVE_KEY} AS retrieve_key",
        "s.StatusCode = 'Error' AS error",
        f"{_META} AS meta",
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
    projected += [f"{_packed('s.IdHashes', w, q.items)} AS {word('pk', w)}" for w in range(q.words)]
    projected += [
        f"{_packed('s.InputHashes', w, q.items)} AS {word('in_pk', w)}" for w in range(q.words)
    ]
    if q.conflicts:
        projected.append(
            "arrayFilter(h -> has({conflict:Array(UInt64)}, h), s.IdHashes) AS conflicts"
        )
    if q.with_scores:
        projected += [f"{_item_score(j)} AS {slot('score', j)}" for j in range(q.items)]
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
        *_stage_aggregates(q),
    ]
    body = ",\n  ".join(aggregates)
    inner = _source(q, projected, where=["s.Stage NOT IN ('ingest', '')"])
    return f"SELECT\n  {body}\nFROM (\n  {inner}\n) AS r\nGROUP BY r.InstanceKey"


def roots_sql(q: FunnelQuery) -> str:
    """The question spans of the selected instances: their ids, run and index version."""
    projected = [
        "s.InstanceKey AS inst_key",
        "s.TraceId AS trace_id",
        "s.QuestionKey AS question_key",
        "s.RunId AS run_id",
        "s.IndexVersion AS index_version",
    ]
    return _source(q, projected, where=["s.Stage = 'question'"])


def instance_ids_sql(q: FunnelQuery) -> str:
    """Trace id and question key of instances without a question span (``{instances}``)."""
    projected = ["s.InstanceKey AS inst_key", "s.TraceId AS trace_id",
                 "s.QuestionKey AS question_key"]  # fmt: skip
    inner = _source(q, projected, where=["s.InstanceKey IN {instances:Array(UInt64)}"])
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
        f"{_TS} AS ts",
        f"{_RETRIEVE_KEY} AS retrieve_key",
        *(f"{_item_score(j)} AS {slot('score', j)}" for j in range(q.items)),
    ]
    wanted = (
        "(s.Stage = 'rerank' AND s.InstanceKey IN {ranked:Array(UInt64)}) "
        "OR (s.Stage = 'retrieve' AND s.InstanceKey IN {candidates:Array(UInt64)})"
    )
    inner = _source(q, projected, where=[wanted])
    columns = ", ".join(_score_aggregates(q.items))
    return f"SELECT r.InstanceKey AS inst_key, {columns} FROM ({inner}) AS r GROUP BY r.InstanceKey"


def errors_sql(q: FunnelQuery) -> str:
    """Every failed stage span of the selected questions, with its message."""
    projected = ["s.InstanceKey AS inst_key", "s.Stage AS stage", f"{_TS} AS ts",
                 "s.StatusMessage AS message"]  # fmt: skip
    return _source(q, projected, where=["s.StatusCode = 'Error'", "s.Stage NOT IN ('ingest', '')"])


def samples_sql(q: FunnelQuery) -> str:
    """Every numbered pipeline generate span (self-consistency samples, all attempts)."""
    projected = ["s.InstanceKey AS inst_key", "s.SampleIndex AS sample_index", f"{_TS} AS ts",
                 "s.HasAnswer AS has_answer", "s.AnswerText AS answer",
                 "s.StatusCode = 'Error' AS error", "s.LogprobsMin AS logprobs_min",
                 "s.LowConfidence AS tokens"]  # fmt: skip
    where = ["s.Stage = 'generate'", "s.Mode != 'oracle'", "s.SampleIndex IS NOT NULL"]
    return _source(q, projected, where=where)


def oracle_sql(q: FunnelQuery) -> str:
    """The last oracle generate of each selected question."""
    projected = ["s.InstanceKey AS inst_key", f"{_TS} AS ts", "s.HasAnswer AS has_answer",
                 "s.AnswerText AS answer", "s.StatusCode = 'Error' AS error"]  # fmt: skip
    inner = _source(q, projected, where=["s.Stage = 'generate'", "s.Mode = 'oracle'"])
    return (
        "SELECT inst_key, argMax(has_answer, ts) AS oracle_has_answer, "
        "argMax(answer, ts) AS oracle_answer, argMax(error, ts) AS oracle_error "
        f"FROM ({inner}) GROUP BY inst_key"
    )


def low_confidence_sql(q: FunnelQuery) -> str:
    """The low-confidence tokens of the last pipeline generate, where it has any."""
    projected = ["s.InstanceKey AS inst_key", f"{_TS} AS ts", "s.LowConfidence AS tokens"]
    inner = _source(q, projected, where=["s.Stage = 'generate'", "s.Mode != 'oracle'"])
    return (
        "SELECT inst_key, argMax(tokens, ts) AS low_confidence_tokens "
        f"FROM ({inner}) GROUP BY inst_key HAVING notEmpty(low_confidence_tokens)"
    )


def retrievers_sql(q: FunnelQuery) -> str:
    """Each individual retriever's last attempt, with the packed positions of the items."""
    projected = [
        "s.InstanceKey AS inst_key",
        "s.Name AS retriever",
        f"{_TS} AS ts",
        *[f"{_packed('s.IdHashes', w, q.items)} AS {word('r_pk', w)}" for w in range(q.words)],
    ]
    inner = _source(q, projected, where=["s.Stage = 'retrieve'", "empty(s.FusedFrom)"])
    packed = ", ".join(
        f"argMax({word('r_pk', w)}, ts) AS {word('r_pk', w)}" for w in range(q.words)
    )
    return f"SELECT inst_key, retriever, {packed} FROM ({inner}) GROUP BY inst_key, retriever"


def match_sql(keys_table: str, items_table: str, items: int) -> tuple[str, str]:
    """The columns of the match table, and the SELECT that fills it.

    The match table is a temporary ``Join(ALL, INNER, key_hash)`` table, filled once (ids
    already hashed) and joined by every batch of the funnel query without being rebuilt.
    """
    columns = ", ".join(
        ["key_hash UInt64", "case_idx UInt32", *(f"{item_hash(j)} UInt64" for j in range(items))]
    )
    hashed = "".join(
        f", cityHash64(c.items[{j + 1}]) * (length(c.items) > {j})" for j in range(items)
    )
    select = (
        f"SELECT cityHash64(k.key), k.case_idx{hashed} FROM {keys_table} AS k "
        f"INNER JOIN {items_table} AS c ON k.case_idx = c.case_idx"
    )
    return columns, select


def discovery_sql(stage_table: str, keys_table: str, *, runs: bool) -> str:
    """Question keys that match no case id.

    Their question hash (or, for foreign traces, the root's input text, else a retriever's
    query) decides the case in Python.
    """
    run_filter = " AND RunId IN {runs:Array(String)}" if runs else ""
    rows = f"(Stage = 'question'{run_filter}" + (
        ")" if runs else " OR (Source != 'ragfunnel' AND QuestionText != ''))"
    )
    # The root's text first, then the earliest; a question span before a retriever's query.
    order = "(Stage != 'question', Timestamp)"
    return (
        f"SELECT QuestionKey AS key, any(Source) AS source, "
        f"argMax(QuestionHash, Timestamp) AS question_hash, "
        f"argMin(QuestionText, {order}) AS text, argMin(QuestionMime, {order}) AS mime, "
        f"uniqExact(InstanceKey) AS instances "
        f"FROM {stage_table} WHERE {rows} "
        f"AND QuestionKey NOT IN (SELECT key FROM {keys_table}) GROUP BY QuestionKey"
    )


def index_truth_sql(stage_table: str, items_table: str) -> str:
    """Which expected items each index version holds, according to successful ingest spans."""
    wanted = f"(SELECT arrayJoin(items) FROM {items_table})"
    return (
        f"SELECT DISTINCT IndexVersion AS version, id FROM {stage_table} ARRAY JOIN Ids AS id "
        f"WHERE Stage = 'ingest' AND StatusCode != 'Error' AND id IN {wanted} "
        f"UNION ALL SELECT DISTINCT IndexVersion AS version, DocumentId AS id FROM {stage_table} "
        f"WHERE Stage = 'ingest' AND StatusCode != 'Error' AND empty(Ids) "
        f"AND DocumentId IN {wanted}"
    )


def ingest_versions_sql(stage_table: str) -> str:
    """Every index version that has ingest spans."""
    return f"SELECT DISTINCT IndexVersion AS version FROM {stage_table} WHERE Stage = 'ingest'"


def multi_ingested_sql(stage_table: str) -> str:
    """Documents ingested more than once with different chunk ids (candidates for conflicts)."""
    return (
        f"SELECT DocumentId AS document, groupArray((IndexVersion, Timestamp, Ids, IdHashes)) AS ingestions "
        f"FROM {stage_table} WHERE Stage = 'ingest' AND StatusCode != 'Error' "
        f"AND DocumentId != '' GROUP BY DocumentId HAVING uniqExact(Ids) > 1"
    )
