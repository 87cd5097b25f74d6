"""The side queries: rare details the funnel query leaves out, fetched only when needed.

Error messages, self-consistency samples, oracle answers, low-confidence tokens and each
individual retriever's positions: ``Session.side_data`` runs one of these only when some
question of the batch has that detail (``records/rare_details.py`` merges them).
"""

from __future__ import annotations

from ragfunnel.analyzer.funnel.read.sql.query import (
    GENERATE_KEY,
    TS,
    FunnelQuery,
    packed,
    select_from,
)
from ragfunnel.analyzer.funnel.read.wide_layout import word

__all__ = ["errors_sql", "low_confidence_sql", "oracle_sql", "retrievers_sql", "samples_sql"]


def errors_sql(q: FunnelQuery) -> str:
    """Every failed stage span of the selected questions, with its message.

    ``rank`` orders a stage's spans as the funnel query chooses them: by start, except that a
    lower sample index outranks a later generate span (``GENERATE_KEY``; a span without an
    index ranks by its start alone).
    """
    projected = ["s.InstanceKey AS inst_key", "s.Stage AS stage", f"{TS} AS ts",
                 f"{GENERATE_KEY} AS rank", "s.StatusMessage AS message"]  # fmt: skip
    return select_from(
        q, projected, where=["s.StatusCode = 'Error'", "s.Stage NOT IN ('ingest', '')"]
    )


def samples_sql(q: FunnelQuery) -> str:
    """Every numbered pipeline generate span (self-consistency samples, all attempts)."""
    projected = ["s.InstanceKey AS inst_key", "s.SampleIndex AS sample_index", f"{TS} AS ts",
                 "s.HasAnswer AS has_answer", "s.AnswerText AS answer",
                 "s.StatusCode = 'Error' AS error", "s.LogprobsMin AS logprobs_min",
                 "s.LowConfidence AS tokens"]  # fmt: skip
    where = ["s.Stage = 'generate'", "s.Mode != 'oracle'", "s.SampleIndex IS NOT NULL"]
    return select_from(q, projected, where=where)


def oracle_sql(q: FunnelQuery) -> str:
    """The last oracle generate of each selected question."""
    projected = ["s.InstanceKey AS inst_key", f"{TS} AS ts", "s.HasAnswer AS has_answer",
                 "s.AnswerText AS answer", "s.StatusCode = 'Error' AS error"]  # fmt: skip
    inner = select_from(q, projected, where=["s.Stage = 'generate'", "s.Mode = 'oracle'"])
    return (
        "SELECT inst_key, argMax(has_answer, ts) AS oracle_has_answer, "
        "argMax(answer, ts) AS oracle_answer, argMax(error, ts) AS oracle_error "
        f"FROM ({inner}) GROUP BY inst_key"
    )


def low_confidence_sql(q: FunnelQuery) -> str:
    """The low-confidence tokens of the last pipeline generate, where it has any."""
    projected = ["s.InstanceKey AS inst_key", f"{TS} AS ts", "s.LowConfidence AS tokens"]
    inner = select_from(q, projected, where=["s.Stage = 'generate'", "s.Mode != 'oracle'"])
    return (
        "SELECT inst_key, argMax(tokens, ts) AS low_confidence_tokens "
        f"FROM ({inner}) GROUP BY inst_key HAVING notEmpty(low_confidence_tokens)"
    )


def retrievers_sql(q: FunnelQuery) -> str:
    """Each individual retriever's last attempt, with the packed positions of the items."""
    projected = [
        "s.InstanceKey AS inst_key",
        "s.Name AS retriever",
        f"{TS} AS ts",
        *[f"{packed('s.IdHashes', w, q.items)} AS {word('r_pk', w)}" for w in range(q.words)],
    ]
    inner = select_from(q, projected, where=["s.Stage = 'retrieve'", "empty(s.FusedFrom)"])
    last = ", ".join(f"argMax({word('r_pk', w)}, ts) AS {word('r_pk', w)}" for w in range(q.words))
    return f"SELECT inst_key, retriever, {last} FROM ({inner}) GROUP BY inst_key, retriever"
