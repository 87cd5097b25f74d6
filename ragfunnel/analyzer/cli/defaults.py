"""The library defaults that the CLI's option help shows, copied so that ``--help`` stays fast.

Defining an option needs its default when the command module is imported, and the modules that
own these values import polars and the judges. A test (``tests/analyzer/cli/test_start.py``)
checks each copy against the library's own value, so the two cannot drift apart.
"""

from __future__ import annotations

__all__ = ["ALPHA", "JUDGE_POLICIES", "REVIEW_SIZE", "SAMPLE_RATE"]

JUDGE_POLICIES = ("offline", "llm", "factcheck", "tiered")
"""``ragfunnel.analyzer.judges.run.batch.POLICIES``."""
SAMPLE_RATE = 0.03
"""``ragfunnel.analyzer.judges.run.tiered.DEFAULT_SAMPLE_RATE``."""
REVIEW_SIZE = 20
"""``ragfunnel.analyzer.judges.people.review.DEFAULT_SIZE``."""
ALPHA = 0.05
"""``ragfunnel.analyzer.report.diff.ALPHA``."""
