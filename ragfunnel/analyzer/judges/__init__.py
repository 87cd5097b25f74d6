"""Judges: how faithfully each answer used its prompt, claim by claim.

    from ragfunnel.analyzer.judges import OfflineJudge

    verdict = OfflineJudge().judge(answer, [("hotel-allowance", "Die Hotelpauschale …"), ...])
    verdict.faithfulness          # mean claim verdict, None for an abstention
    verdict.unsupported           # the claims to fix, each with what was missing

A judge splits an answer into claims and rates each against the whole context: supported (1),
unsupported (0), or in between uncertain (the offline judge, with a calibrated confidence) or
partial (the LLM judges), with the supporting chunk ids and, when not supported, the missing
or contradicted term. ``LLMJudge`` and ``FactCheckJudge`` do the same through any
OpenAI-compatible endpoint (``Endpoint.from_env()``), cached; ``judge_store`` judges every
stored answer with a policy (offline, llm, factcheck, tiered) and writes the verdicts table
the funnel reads. docs/judges.md states every rule.
"""

from ragfunnel.analyzer.judges.cache import MemoryCache, StoreCache, VerdictCache
from ragfunnel.analyzer.judges.claims import ClaimSplit, is_refusal, split_claims
from ragfunnel.analyzer.judges.endpoint import Endpoint, Usage
from ragfunnel.analyzer.judges.factcheck import FactCheckJudge
from ragfunnel.analyzer.judges.llm import JudgeInput, LLMJudge
from ragfunnel.analyzer.judges.model import (
    LABELS,
    AnswerVerdict,
    Chunk,
    ClaimVerdict,
    JudgeError,
    as_chunks,
)
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.judges.run import POLICIES, JudgeRun, SameModelWarning, judge_store

__all__ = [
    "LABELS",
    "POLICIES",
    "AnswerVerdict",
    "Chunk",
    "ClaimSplit",
    "ClaimVerdict",
    "Endpoint",
    "FactCheckJudge",
    "JudgeError",
    "JudgeInput",
    "JudgeRun",
    "LLMJudge",
    "MemoryCache",
    "OfflineJudge",
    "SameModelWarning",
    "StoreCache",
    "Usage",
    "VerdictCache",
    "as_chunks",
    "is_refusal",
    "judge_claim",
    "judge_store",
    "split_claims",
]
