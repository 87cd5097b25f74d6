"""The funnel analyzer: where was each wrong answer born.

    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.funnel import analyze

    with Store.open() as store:
        result = analyze(store, "cases.yaml", run="2024-06-01")
    print(result.failures)                      # first_failure counts per run, with CIs
    print(result.record("q-017")["failure_reason"][0])

:func:`analyze` rebuilds every question's funnel (index ⊇ candidates ⊇ reranked ⊇ prompt)
from the stored spans, attributes each failure to the first stage that lost the evidence, and
computes ID-based metrics with confidence intervals; :func:`shapes` summarises live traffic
that has no cases. docs/funnel.md states every rule and convention.
"""

from ragfunnel.analyzer.funnel.analysis import DEFAULT_K, FunnelResult, analyze
from ragfunnel.analyzer.funnel.first_failure import FIRST_FAILURES
from ragfunnel.analyzer.funnel.index_truth import ManifestError, load_manifest
from ragfunnel.analyzer.funnel.metrics import (
    MetricValue,
    average_precision,
    context_precision,
    context_recall,
    hit_rate,
    reciprocal_rank,
)
from ragfunnel.analyzer.funnel.shapes import Shapes, shapes
from ragfunnel.analyzer.funnel.stage_source import READ_TIME_NOTICE
from ragfunnel.analyzer.store.migrations import migrate as ensure_views
from ragfunnel.analyzer.store.migrations import view_ddl

__all__ = [
    "DEFAULT_K",
    "FIRST_FAILURES",
    "READ_TIME_NOTICE",
    "FunnelResult",
    "ManifestError",
    "MetricValue",
    "Shapes",
    "analyze",
    "average_precision",
    "context_precision",
    "context_recall",
    "ensure_views",
    "hit_rate",
    "load_manifest",
    "reciprocal_rank",
    "shapes",
    "view_ddl",
]
