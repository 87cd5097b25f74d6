"""The funnel query's shape and the SELECT every stage-table query is built on.

What one funnel pass computes (:class:`FunnelQuery`), the per-stage "last attempt" order keys,
the packed item positions (the layout is ``read/columns.py``'s) and :func:`select_from`, the
``FROM`` the stage table (joined to the case items) with a query's filters. Run filters travel
as bound parameters; no user value is ever spliced into SQL text.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragfunnel.analyzer.funnel.read.wide_layout import item_hash, meta_sql, positions_sql, words
from ragfunnel.analyzer.store.statements import run_filter

__all__ = [
    "GENERATE_KEY",
    "META",
    "RETRIEVE_KEY",
    "TS",
    "FunnelQuery",
    "item",
    "item_score",
    "packed",
    "select_from",
]

# Per-stage "last attempt" order keys (nanoseconds since the epoch; priority bits above 2^61).
# A fusion span outranks the individual retrievers whatever its start time; a foreign retrieve
# span without documents (frameworks nest one inside the retriever that has them) loses to any
# span that has documents.
TS = "toUInt64(greatest(toUnixTimestamp64Nano(s.Timestamp), 0))"
RETRIEVE_KEY = (
    f"{TS} + bitShiftLeft(toUInt64(notEmpty(s.FusedFrom) * 2 "
    "+ (s.HasIds OR s.Source = 'ragfunnel')), 61)"
)
# Self-consistency samples: the lowest-numbered sample's last attempt is the answer, so a lower
# sample index outranks a later start (indexes from 7 up share the lowest rank). A generate span
# without an index counts as sample 0, as the judges' answer table counts it.
GENERATE_KEY = (
    f"{TS} + bitShiftLeft(toUInt64(7 - least(greatest(ifNull(s.SampleIndex, 0), 0), 7)), 61)"
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


def item(j: int) -> str:
    """The match table's hash column of item slot ``j``."""
    return f"m.{item_hash(j)}"


def packed(array: str, w: int, items: int) -> str:
    """Word ``w`` of the items' packed 1-based positions in the span's ``array``."""
    return positions_sql(array, w, items, item)


def item_score(j: int) -> str:
    """Item slot ``j``'s score in the span (NaN when the span does not list it)."""
    position = f"indexOf(s.IdHashes, {item(j)})"
    return f"if({position} BETWEEN 1 AND length(s.Scores), s.Scores[{position}], nan)"


META = meta_sql(
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


def select_from(q: FunnelQuery, projected: list[str], *, where: list[str]) -> str:
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
            f"WHERE Stage = 'question' {run_filter(q.runs, 'AND')})"
        )
    if q.question_keys:
        where.append("s.QuestionKey IN {keys:Array(String)}")
    columns = ",\n    ".join(projected)
    return f"SELECT\n    {columns}\n  FROM {source}\n  WHERE {' AND '.join(where)}"
