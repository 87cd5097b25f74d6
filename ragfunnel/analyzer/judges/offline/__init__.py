"""The offline judge: no network, three outcomes per claim (docs/judges.md).

Claims are aligned with their best context sentences (``align``), scored by a calibrated model
(``score``), with hard checks for contradiction (``hard``) and, with ``ragfunnel[paraphrase]``,
a static paraphrase embedding (``embed``); ``judge`` gives the verdicts.
"""

from ragfunnel.analyzer.judges.offline.judge import NAME, OfflineJudge, judge_claim

__all__ = ["NAME", "OfflineJudge", "judge_claim"]
