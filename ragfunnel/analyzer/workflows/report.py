"""Analyze a store, then report on it; and compare two runs of it.

One home for "analyze, read what the report needs while the store is open, build the report",
so that ``ragfunnel report``, ``ragfunnel diff``, ``ragfunnel demo`` and ``bench/report.py``
cannot drift apart (the demo's page once left out the documents ingested without text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragfunnel.analyzer import funnel
from ragfunnel.analyzer.cases import load_cases
from ragfunnel.analyzer.report import (
    Report,
    ReportError,
    build_report,
    check_jaeger_url,
    pipeline_snapshots,
    question_texts,
    textless_documents,
)
from ragfunnel.analyzer.report.diff import RunDiff, diff_runs
from ragfunnel.analyzer.store import Store, StoreArg, takes_store
from ragfunnel.analyzer.workflows.analysis import chosen_runs, chunk_file

if TYPE_CHECKING:
    from ragfunnel.analyzer.cases import CaseSet
    from ragfunnel.analyzer.funnel import FunnelResult
    from ragfunnel.analyzer.report.build import TextFetcher

__all__ = [
    "Compared",
    "ReportSources",
    "Reported",
    "diff_from_files",
    "diff_from_store",
    "report_from_files",
    "report_from_result",
    "report_from_store",
    "report_sources",
]


@dataclass(frozen=True)
class Reported:
    """An analysis and the report built from it, with the run configurations it read."""

    result: FunnelResult
    report: Report
    snapshots: dict[str, dict[str, Any]]


def _quiet(_: str) -> None:
    return None


@takes_store("analysis")
def report_from_store(
    store: StoreArg,
    cases: CaseSet,
    *,
    runs: Sequence[str] | None = None,
    index_manifest: Path | None = None,
    k: Sequence[int] | None = None,
    jaeger_url: str | None = None,
    top: int = 20,
    sample: int = 50,
    progress: Callable[[str], None] = _quiet,
    run_order: Sequence[str] = (),
    chunks: Mapping[str, str] | None = None,
) -> Reported:
    """Analyze ``store`` against ``cases`` and build the report of every run analyzed.

    ``store`` may be a DSN or path, opened for the call (never created). ``progress`` is told
    each step's name before it starts (the CLI's progress line). Runs are reported in the
    order they ran, ``run_order``'s first (``build_report``). ``chunks`` (chunk id → text)
    gives the texts the ingest spans did not record, as ``analyze``'s does.
    """
    assert isinstance(store, Store)  # takes_store opened it
    progress("rebuilding every question's funnel")
    result = funnel.analyze(
        store, cases, run=chosen_runs(runs), index_manifest=index_manifest,
        k=list(k) if k else None, chunks=chunks,
    )  # fmt: skip
    progress("reading the runs' configurations")
    sources = report_sources(store, result)
    report = report_from_result(
        result, sources, cases=cases, jaeger_url=jaeger_url, top=top, sample=sample,
        progress=progress, run_order=run_order,
    )  # fmt: skip
    return Reported(result, report, dict(sources.snapshots or {}))


@dataclass(frozen=True)
class ReportSources:
    """What a report reads from the store besides the analysis, read while it is open.

    Attributes:
        snapshots: each run's configuration (the settings its spans recorded, as the span
            conventions name them), by run id.
        texts: the question, answer and chunk texts of the questions shown.
        textless: documents ingested without text, by index version.
        store: the store's redacted DSN, named on the page.
    """

    snapshots: Mapping[str, dict[str, Any]] | None = None
    texts: TextFetcher | None = None
    textless: Mapping[str, Sequence[str]] | None = None
    store: str | None = None


def report_sources(store: Store, result: FunnelResult) -> ReportSources:
    """Read what the report of ``result`` needs from ``store`` (runs' configurations, texts)."""
    # Questions without a run (foreign traces) report as the run "": their configuration too.
    import polars as pl

    column = result.records.get_column("run_id").cast(pl.String).fill_null("")
    run_ids = [str(r) for r in column.unique().sort()]
    snapshots = pipeline_snapshots(store, run_ids)
    versions = result.records.get_column("index_version").unique().drop_nulls()
    textless = textless_documents(store, (str(v) for v in versions))
    return ReportSources(
        snapshots, partial(question_texts, store), textless, store=store.dsn_redacted
    )


def report_from_result(
    result: FunnelResult,
    sources: ReportSources,
    *,
    cases: CaseSet | None = None,
    jaeger_url: str | None = None,
    top: int = 20,
    sample: int = 50,
    progress: Callable[[str], None] = _quiet,
    run_order: Sequence[str] = (),
) -> Report:
    """The report of an analysis, from what :func:`report_sources` read.

    The last step of :func:`report_from_store`; ``bench/report.py`` times it on a synthetic
    analysis.
    """
    return build_report(
        result, cases=cases, snapshots=sources.snapshots, texts=sources.texts,
        textless=sources.textless, store=sources.store, jaeger_url=jaeger_url, top=top,
        sample=sample, progress=progress, run_order=run_order,
    )  # fmt: skip


@dataclass(frozen=True)
class Compared:
    """Two runs analyzed in one pass, the report of both, and run B compared with run A."""

    reported: Reported
    diff: RunDiff


def diff_from_store(
    store: Store,
    cases: CaseSet,
    run_a: str,
    run_b: str,
    *,
    index_manifest: Path | None = None,
    k: Sequence[int] | None = None,
    jaeger_url: str | None = None,
    top: int = 20,
    progress: Callable[[str], None] = _quiet,
    chunks: Mapping[str, str] | None = None,
) -> Compared:
    """Analyze runs ``run_a`` and ``run_b`` of ``store`` and compare them pair by pair.

    Raises:
        ReportError: a run with no pipeline questions (``report.diff.diff_runs``).
    """
    if run_a == run_b:
        raise ReportError(f"RUN_A and RUN_B are both {run_a!r}: give two different runs")
    done = report_from_store(
        store, cases, runs=[run_a, run_b], index_manifest=index_manifest, k=k,
        jaeger_url=jaeger_url, top=top, sample=0, progress=progress, run_order=[run_a, run_b],
        chunks=chunks,
    )  # fmt: skip
    progress("pairing the runs")
    snapshots = {r.run_id: r.config for r in done.report.runs}
    return Compared(done, diff_runs(done.result, run_a, run_b, snapshots=snapshots))


def report_from_files(
    *,
    store: str | None,
    cases: Path,
    runs: Sequence[str] | None,
    index_manifest: Path | None,
    k: Sequence[int] | None,
    jaeger_url: str | None,
    read_only: bool,
    top: int,
    sample: int,
    progress: Callable[[str], None] = _quiet,
    chunks: Path | None = None,
) -> Reported:
    """Read the cases file, open the store (read-only where it must), report on it.

    The CLI's ``ragfunnel report``: :func:`report_from_store` between a cases file and a store
    DSN (and a chunk file: ``judges.chunk_file``); the store is closed again before it returns.
    """
    progress("reading the cases")
    case_set = load_cases(cases)
    texts = chunk_file(chunks)
    check_jaeger_url(jaeger_url)  # before the long part: a typo should not cost an analysis
    with Store.open_for_analysis(store, read_only=read_only or None) as opened:
        return report_from_store(
            opened, case_set, runs=runs, index_manifest=index_manifest, k=k,
            jaeger_url=jaeger_url, top=top, sample=sample, progress=progress, chunks=texts,
        )  # fmt: skip


def diff_from_files(
    *,
    store: str | None,
    cases: Path,
    run_a: str,
    run_b: str,
    index_manifest: Path | None,
    k: Sequence[int] | None,
    jaeger_url: str | None,
    read_only: bool,
    top: int,
    progress: Callable[[str], None] = _quiet,
    chunks: Path | None = None,
) -> Compared:
    """Read the cases, open the store, and compare ``run_b`` with ``run_a`` (``ragfunnel diff``)."""
    progress("reading the cases")
    case_set = load_cases(cases)
    texts = chunk_file(chunks)
    check_jaeger_url(jaeger_url)
    with Store.open_for_analysis(store, read_only=read_only or None) as opened:
        return diff_from_store(
            opened, case_set, run_a, run_b, index_manifest=index_manifest, k=k,
            jaeger_url=jaeger_url, top=top, progress=progress, chunks=texts,
        )  # fmt: skip
