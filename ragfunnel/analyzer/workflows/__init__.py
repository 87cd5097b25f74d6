"""The sequences the CLI, the demo and the benchmarks share: one function per command's work.

A workflow takes an open ``Store`` (the caller opens it, read-only where it must) and returns
library objects; it prints nothing and never exits: the callers do. ``ragfunnel report``,
``ragfunnel demo`` and ``bench/report.py`` call :func:`report_from_store`, so their pages
cannot drift apart; every CLI command parses its options, calls one of these and prints.

- ``analysis``: :func:`analyze_store`, :func:`question_funnel`, :func:`thresholds_from_store`;
- ``report``: :func:`report_from_store` (:func:`report_sources`, then
  :func:`report_from_result`), :func:`diff_from_store`; for the CLI, which holds a store DSN
  and a cases file, :func:`report_from_files` and :func:`diff_from_files` (they open and close
  the store);
- ``judging``: :func:`judge_from_store`, :func:`review_from_store`;
- ``store``: :func:`migrate_store`, :func:`store_info`;
- ``cases``: :func:`rebase_from_store`.

The types they return are exported beside them, so that a caller needs no package's inside.
"""

from ragfunnel.analyzer.workflows.analysis import (
    Thresholds,
    analyze_store,
    question_funnel,
    thresholds_from_store,
)
from ragfunnel.analyzer.workflows.cases import CasesRebased, rebase_from_store, rebased_path
from ragfunnel.analyzer.workflows.judging import judge_from_store, review_from_store
from ragfunnel.analyzer.workflows.report import (
    Compared,
    Reported,
    ReportSources,
    diff_from_files,
    diff_from_store,
    report_from_files,
    report_from_result,
    report_from_store,
    report_sources,
)
from ragfunnel.analyzer.workflows.store import (
    Migrated,
    StageCheck,
    StoreInfo,
    StoreInventory,
    migrate_store,
    store_info,
)

__all__ = [
    "CasesRebased",
    "Compared",
    "Migrated",
    "ReportSources",
    "Reported",
    "StageCheck",
    "StoreInfo",
    "StoreInventory",
    "Thresholds",
    "analyze_store",
    "diff_from_files",
    "diff_from_store",
    "judge_from_store",
    "migrate_store",
    "question_funnel",
    "rebase_from_store",
    "rebased_path",
    "report_from_files",
    "report_from_result",
    "report_from_store",
    "report_sources",
    "review_from_store",
    "store_info",
    "thresholds_from_store",
]
