"""The judges that call a model, with their prompts beside them.

The LLM judge, the fact-checking style and the LLM correctness grader:

- ``endpoint.py``: where requests go (``Endpoint``), what they cost (``Usage``), and the
  circuit breaker (``Breaker``);
- ``caller.py``: the base of every judge on an endpoint (cache, usage, client, breaker);
- ``judge.py``: ``LLMJudge`` (claim split + verdicts, prompts ``claims-v1``, ``verdicts-v1``);
- ``factcheck.py``: ``FactCheckJudge`` (one Yes/No call per claim, ``factcheck-v1``);
- ``correctness_judge.py``: ``LLMCorrectness`` (the answer against the reference, ``correctness-v1``);
- ``prompts.py``: every prompt, its version and its reply schema.
"""

from __future__ import annotations

from ragfunnel.analyzer.judges.llm import prompts
from ragfunnel.analyzer.judges.llm.caller import EndpointCaller, EndpointJudge
from ragfunnel.analyzer.judges.llm.correctness_judge import LLMCorrectness
from ragfunnel.analyzer.judges.llm.endpoint import BREAKER_FAILURES, Breaker, Endpoint, Usage
from ragfunnel.analyzer.judges.llm.factcheck import FactCheckJudge
from ragfunnel.analyzer.judges.llm.judge import LLMJudge, complete, same_model_warning
from ragfunnel.analyzer.judges.verdict_types import JudgeInput

__all__ = [
    "BREAKER_FAILURES",
    "Breaker",
    "Endpoint",
    "EndpointCaller",
    "EndpointJudge",
    "FactCheckJudge",
    "JudgeInput",
    "LLMCorrectness",
    "LLMJudge",
    "Usage",
    "complete",
    "prompts",
    "same_model_warning",
]
