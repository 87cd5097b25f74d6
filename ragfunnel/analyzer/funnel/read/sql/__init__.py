"""The funnel's SQL, by job: the query shape, the funnel pass, the side queries, the cases.

``query`` (:class:`FunnelQuery` and the SELECT every stage-table query is built on),
``instances`` (the per-instance funnel aggregation, roots, scores), ``side_queries`` (rare
details) and ``cases`` (matching, discovery, index truth). SQL text only: ``Session`` runs
them all through the store (its temporary tables through ``store/temporary.py``).
"""

from ragfunnel.analyzer.funnel.read.sql.cases import (
    case_keys_sql,
    discovery_sql,
    index_truth_sql,
    ingest_versions_sql,
    ingested_documents_sql,
    match_sql,
    multi_ingested_sql,
    question_count_sql,
    question_rows_sql,
)
from ragfunnel.analyzer.funnel.read.sql.instances import (
    funnel_sql,
    instance_ids_sql,
    roots_sql,
    score_columns,
    scores_sql,
)
from ragfunnel.analyzer.funnel.read.sql.query import FunnelQuery
from ragfunnel.analyzer.funnel.read.sql.side_queries import (
    errors_sql,
    low_confidence_sql,
    oracle_sql,
    retrievers_sql,
    samples_sql,
)

__all__ = [
    "FunnelQuery",
    "case_keys_sql",
    "discovery_sql",
    "errors_sql",
    "funnel_sql",
    "index_truth_sql",
    "ingest_versions_sql",
    "ingested_documents_sql",
    "instance_ids_sql",
    "low_confidence_sql",
    "match_sql",
    "multi_ingested_sql",
    "oracle_sql",
    "question_count_sql",
    "question_rows_sql",
    "retrievers_sql",
    "roots_sql",
    "samples_sql",
    "score_columns",
    "scores_sql",
]
