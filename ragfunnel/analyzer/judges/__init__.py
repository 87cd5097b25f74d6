"""Judges: how faithfully each answer used its prompt, claim by claim.

    from ragfunnel.analyzer.judges import OfflineJudge

    verdict = OfflineJudge().judge(answer, [("hotel-allowance", "Die Hotelpauschale …"), ...])
    verdict.faithfulness          # mean claim verdict, None for an abstention
    verdict.confidence            # mean claim confidence: the score to rank answers by
    verdict.refuted               # the claims judged unsupported, each with what was missing

A judge splits an answer into claims and rates each against the whole context: supported (1),
unsupported (0), or in between uncertain (the offline judge, with a calibrated confidence) or
partial (the LLM judges), with the supporting chunk ids and, when not supported, the missing
or contradicted term. ``LLMJudge`` and ``FactCheckJudge`` do the same through any
OpenAI-compatible endpoint (``Endpoint.from_env()``), cached; ``judge_store`` judges every
stored answer with a policy (offline, llm, factcheck, tiered) and writes the verdicts table
the funnel reads. docs/judges.md states every rule.

One family: every judge has the :class:`Judge` shape (a ``name`` and ``judge(answer,
context)``); the judges that call a model live in ``llm/`` with their prompts; the policies are
objects (``policies.py``); a verdict row is built in one place (``verdict_row.py``).
"""

from ragfunnel.analyzer.judges.answers import ANSWER_TEXT_FIX, CHUNK_TEXT_FIX
from ragfunnel.analyzer.judges.cache import MemoryCache, StoreCache, VerdictCache
from ragfunnel.analyzer.judges.llm import JudgeInput, LLMJudge
from ragfunnel.analyzer.judges.llm.endpoint import Endpoint, Usage
from ragfunnel.analyzer.judges.llm.factcheck import FactCheckJudge
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.judges.people.calibration import Calibration, calibrate
from ragfunnel.analyzer.judges.people.review import iso_week, review_sheet, write_sheet
from ragfunnel.analyzer.judges.protocol import BatchJudge, Judge
from ragfunnel.analyzer.judges.run.batch import JudgeRun, SameModelWarning, judge_store
from ragfunnel.analyzer.judges.run.policies import (
    POLICIES,
    FactCheckPolicy,
    LLMPolicy,
    OfflinePolicy,
    Policy,
    TieredPolicy,
    policy_named,
)
from ragfunnel.analyzer.judges.verdict_types import (
    LABELS,
    AnswerVerdict,
    Chunk,
    ClaimVerdict,
    JudgeError,
    as_chunks,
)
from ragfunnel.analyzer.language.claims import ClaimSplit, is_refusal, split_claims
from ragfunnel.analyzer.stats import Estimate

__all__ = [
    "ANSWER_TEXT_FIX",
    "CHUNK_TEXT_FIX",
    "LABELS",
    "POLICIES",
    "AnswerVerdict",
    "BatchJudge",
    "Calibration",
    "Chunk",
    "ClaimSplit",
    "ClaimVerdict",
    "Endpoint",
    "Estimate",
    "FactCheckJudge",
    "FactCheckPolicy",
    "Judge",
    "JudgeError",
    "JudgeInput",
    "JudgeRun",
    "LLMJudge",
    "LLMPolicy",
    "MemoryCache",
    "OfflineJudge",
    "OfflinePolicy",
    "Policy",
    "SameModelWarning",
    "StoreCache",
    "TieredPolicy",
    "Usage",
    "VerdictCache",
    "as_chunks",
    "calibrate",
    "is_refusal",
    "iso_week",
    "judge_claim",
    "judge_store",
    "policy_named",
    "review_sheet",
    "split_claims",
    "write_sheet",
]
