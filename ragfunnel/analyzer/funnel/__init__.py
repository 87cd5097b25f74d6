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

The package reads, then builds, then sums up, each layer importing only the ones below it
(import-linter checks the arrows):

- ``read/``: the store side — where stage rows come from (``source``), one analysis's temporary
  tables and queries (``session``), the SQL they run (``sql/``), the judges' verdicts, the run
  check and the index truth;
- ``records/``: the per-question records, built batch by batch as an ordered list of named
  steps (``records.pipeline.STEPS``), from pure polars transformations;
- ``run_summaries`` (per-run counts and metrics with intervals), then ``analysis`` (:func:`analyze`)
  and ``shapes`` (:func:`shapes`) on top.

Store functions are not re-exported here: the views are ``ragfunnel.analyzer.store.migrate``'s.
"""

from ragfunnel.analyzer.funnel.abstention import Abstention, abstention
from ragfunnel.analyzer.funnel.analysis import DEFAULT_K, FunnelResult, analyze
from ragfunnel.analyzer.funnel.read.index_truth import ManifestError, load_manifest
from ragfunnel.analyzer.funnel.read.source import READ_TIME_NOTICE
from ragfunnel.analyzer.funnel.records.first_failure import FIRST_FAILURES
from ragfunnel.analyzer.funnel.records.metrics import (
    MetricValue,
    average_precision,
    context_precision,
    context_recall,
    hit_rate,
    reciprocal_rank,
)
from ragfunnel.analyzer.funnel.shapes import Shapes, shapes

__all__ = [
    "DEFAULT_K",
    "FIRST_FAILURES",
    "READ_TIME_NOTICE",
    "Abstention",
    "FunnelResult",
    "ManifestError",
    "MetricValue",
    "Shapes",
    "abstention",
    "analyze",
    "average_precision",
    "context_precision",
    "context_recall",
    "hit_rate",
    "load_manifest",
    "reciprocal_rank",
    "shapes",
]
