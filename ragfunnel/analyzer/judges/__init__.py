"""Judges: how faithfully each answer used its prompt, claim by claim.

    from ragfunnel.analyzer.judges import OfflineJudge

    verdict = OfflineJudge().judge(answer, [("hotel-allowance", "Die Hotelpauschale …"), ...])
    verdict.faithfulness          # mean claim verdict, None for an abstention
    verdict.unsupported           # the claims to fix, each with what was missing

A judge splits an answer into claims and rates each against the whole context: supported (1),
partial (0.5) or unsupported (0), with the supporting chunk ids and, when not supported, the
missing or contradicted term. docs/judges.md states every rule.
"""

from ragfunnel.analyzer.judges.claims import ClaimSplit, is_refusal, split_claims
from ragfunnel.analyzer.judges.model import (
    LABELS,
    AnswerVerdict,
    Chunk,
    ClaimVerdict,
    JudgeError,
    as_chunks,
)
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim

__all__ = [
    "LABELS",
    "AnswerVerdict",
    "Chunk",
    "ClaimSplit",
    "ClaimVerdict",
    "JudgeError",
    "OfflineJudge",
    "as_chunks",
    "is_refusal",
    "judge_claim",
    "split_claims",
]
