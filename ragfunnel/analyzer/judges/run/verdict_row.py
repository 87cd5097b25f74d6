"""The verdict row, built in one place from one answer and its verdict.

Its columns are the verdicts table's (``store/tables/verdicts.py``: the typed ``VerdictRow``), which
``tables.py`` writes and reads and the funnel reads (``funnel/read/verdicts.py``); this module is the
only place that fills them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragfunnel.analyzer.judges.correctness import Correctness
from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict, text_hash
from ragfunnel.analyzer.store.tables.verdicts import VerdictRow

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
) -> VerdictRow:
    """The row of ``verdict`` for ``answer`` (a row of ``read_answers``).

    ``JudgedAt`` is left for the insert to set.
    """
    claims = verdict.claims
    return VerdictRow(
        TraceId=answer["trace_id"], SpanId=answer["span_id"],
        QuestionKey=answer["question_key"], RunId=answer["run_id"] or "",
        Mode=answer["mode"], Judge=verdict.judge, Policy=policy,
        AnswerHash=text_hash(answer["answer"]), ContextHash=context_hash,
        Abstained=int(verdict.abstained), Faithfulness=verdict.faithfulness,
        Confidence=verdict.confidence,
        ClaimTexts=[c.text for c in claims], ClaimVerdicts=[c.verdict for c in claims],
        ClaimLabels=[c.label for c in claims],
        ClaimSupportingIds=[list(c.supporting_ids) for c in claims],
        ClaimMissing=[c.missing for c in claims], ClaimConfidences=[c.confidence for c in claims],
        Correctness=correctness.label if correctness else "",
        CorrectnessReason=correctness.reason if correctness else "",
        Signals=list(signals), Sampled=int(sampled),
    )  # fmt: skip
