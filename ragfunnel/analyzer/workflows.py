"""The sequences the CLI, the demo and the benchmarks share: analyze a store, then report on it.

One home for "analyze, read what the report needs while the store is open, build the report",
so that ``ragfunnel report``, ``ragfunnel demo`` and ``bench/report.py`` cannot drift apart (the
demo's page once left out the documents ingested without text). A workflow takes an open
``Store`` and returns library objects; it prints nothing and never exits: the callers do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.report import (
    Report,
    build_report,
    pipeline_snapshots,
    question_texts,
    textless_documents,
)

if TYPE_CHECKING:
    from ragfunnel.analyzer.cases import CaseSet
    from ragfunnel.analyzer.funnel import FunnelResult
    from ragfunnel.analyzer.store import Store

__all__ = ["Reported", "report_from_store"]


@dataclass(frozen=True)
class Reported:
    """An analysis and the report built from it, with the run configurations it read."""

    result: FunnelResult
    report: Report
    snapshots: dict[str, dict[str, Any]]


def _quiet(_: str) -> None:
    return None


def report_from_store(
    store: Store,
    cases: CaseSet,
    *,
    runs: Sequence[str] | None = None,
    index_manifest: Path | None = None,
    k: Sequence[int] | None = None,
    jaeger_url: str | None = None,
    top: int = 20,
    sample: int = 50,
    progress: Callable[[str], None] = _quiet,
) -> Reported:
    """Analyze ``store`` against ``cases`` and build the report of every run analyzed.

    ``progress`` is told each step's name before it starts (the CLI's progress line).
    """
    progress("rebuilding every question's funnel")
    result = analyze(
        store, cases, run=list(runs) if runs else None, index_manifest=index_manifest,
        k=list(k) if k else None,
    )  # fmt: skip
    progress("reading the runs' configurations")
    run_ids = [str(r) for r in result.records.get_column("run_id").unique().drop_nulls().sort()]
    snapshots = pipeline_snapshots(store, run_ids)
    versions = result.records.get_column("index_version").unique().drop_nulls()
    textless = textless_documents(store, (str(v) for v in versions))
    report = build_report(
        result, cases=cases, snapshots=snapshots, texts=partial(question_texts, store),
        textless=textless, store=store.dsn_redacted, jaeger_url=jaeger_url, top=top,
        sample=sample, progress=progress,
    )  # fmt: skip
    return Reported(result, report, snapshots)
