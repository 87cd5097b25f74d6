"""The SQL of matching traces to cases and of the index truth, before any funnel pass.

The match table (question-key hash → case and item hashes) the funnel joins on, discovery of
question keys that are no case id, which expected items each index version holds, and the
documents ingested more than once (candidates for conflicting sources). Case data reaches SQL
only through per-analysis temporary tables filled with Arrow inserts.
"""

from __future__ import annotations

from ragfunnel.analyzer.funnel.read.wide_layout import item_hash
from ragfunnel.analyzer.store.statements import run_filter

__all__ = [
    "case_keys_sql",
    "discovery_sql",
    "index_truth_sql",
    "ingest_versions_sql",
    "ingested_documents_sql",
    "match_sql",
    "multi_ingested_sql",
    "question_count_sql",
    "question_rows_sql",
]


def question_rows_sql(source: str) -> str:
    """The question and ingest stage rows of ``source`` (copied once at read time)."""
    return f"SELECT * FROM {source} WHERE Stage IN ('question', 'ingest')"


def question_count_sql(question_rows: str) -> str:
    """How many question instances (question stage rows) there are: column ``n``."""
    return f"SELECT count() AS n FROM {question_rows} WHERE Stage = 'question'"


def case_keys_sql(keys_table: str) -> str:
    """Every question key of the case bound as ``{c:UInt32}``, from the cases' key table."""
    return f"SELECT key FROM `{keys_table}` WHERE case_idx = {{c:UInt32}}"


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
    rows = f"(Stage = 'question' {run_filter(runs, 'AND')}" + (
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
        f"SELECT DISTINCT IndexVersion AS version, id, DocumentId AS document "
        f"FROM {stage_table} ARRAY JOIN Ids AS id "
        f"WHERE Stage = 'ingest' AND StatusCode != 'Error' AND id IN {wanted} "
        f"UNION ALL SELECT DISTINCT IndexVersion AS version, DocumentId AS id, "
        f"DocumentId AS document FROM {stage_table} "
        f"WHERE Stage = 'ingest' AND StatusCode != 'Error' AND empty(Ids) "
        f"AND DocumentId IN {wanted}"
    )


def ingested_documents_sql(stage_table: str, items_table: str) -> str:
    """Per index version, the chunk ids of each document that holds an expected id somewhere.

    Only successful ingest spans that produced chunks; what tells a re-chunked document (none
    of its old ids left) from one that lost chunks.
    """
    wanted = f"(SELECT arrayJoin(items) FROM {items_table})"
    ingests = f"{stage_table} WHERE Stage = 'ingest' AND StatusCode != 'Error'"
    owners = f"SELECT DISTINCT DocumentId FROM {stage_table} ARRAY JOIN Ids AS id "
    owners += f"WHERE Stage = 'ingest' AND StatusCode != 'Error' AND id IN {wanted}"
    return (
        f"SELECT IndexVersion AS version, DocumentId AS document, "
        f"groupUniqArrayArray(Ids) AS ids FROM {ingests} AND notEmpty(Ids) "
        f"AND DocumentId IN ({owners}) GROUP BY version, document"
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
