"""The verdict row, built in one place from one answer and its verdict.

Its columns are the verdicts table's (``store/tables/verdicts.py``: ``VERDICT_COLUMNS``), which
``tables.py`` writes and reads and the funnel reads (``funnel/read/verdicts.py``); this module is the
only place that fills them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragfunnel.analyzer.judges.correctness import Correctness
from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict, ClaimVerdict, text_hash
from ragfunnel.analyzer.store.tables.verdicts import CLAIM_COLUMNS

__all__ = ["verdict_row"]


def verdict_row(
    answer: Mapping[str, Any],
    verdict: AnswerVerdict,
    *,
    policy: str,
    context_hash: str,
    correctness: Correctness | None = None,
    signals: Sequence[str] = (),
    sampled: bool = False,
) -> dict[str, Any]:
    """The row of ``verdict`` for ``answer`` (a row of ``read_answers``).

    ``JudgedAt`` is left for the insert to set.
    """
    return {
        "TraceId": answer["trace_id"], "SpanId": answer["span_id"],
        "QuestionKey": answer["question_key"], "RunId": answer["run_id"] or "",
        "Mode": answer["mode"], "Judge": verdict.judge, "Policy": policy,
        "AnswerHash": text_hash(answer["answer"]), "ContextHash": context_hash,
        "Abstained": int(verdict.abstained), "Faithfulness": verdict.faithfulness,
        **{column: [_field(claim, name) for claim in verdict.claims]
           for column, name in CLAIM_COLUMNS},
        "Correctness": correctness.label if correctness else "",
        "CorrectnessReason": correctness.reason if correctness else "",
        "Signals": list(signals), "Sampled": int(sampled),
    }  # fmt: skip


def _field(claim: ClaimVerdict, name: str) -> Any:
    value = getattr(claim, name)
    return list(value) if isinstance(value, tuple) else value
