"""Analyze a store: every question's funnel, one question's, and the abstention sweep.

Without cases, live traffic is summarised by funnel shape instead.

Each function is the sequence one command runs, taking an open ``Store`` and returning library
objects; the CLI renders them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragfunnel.analyzer import funnel
from ragfunnel.analyzer.funnel.abstention import Abstention, abstention
from ragfunnel.analyzer.judges.chunk_file import load_chunks

if TYPE_CHECKING:
    from ragfunnel.analyzer.cases import CaseSet
    from ragfunnel.analyzer.funnel import FunnelResult, Shapes
    from ragfunnel.analyzer.store import Store

__all__ = ["Thresholds", "analyze_store", "question_funnel", "thresholds_from_store"]


def chosen_runs(runs: Sequence[str] | None) -> list[str] | None:
    """The runs a command names, as the library takes them: a list, or None for every run."""
    return list(runs) if runs else None


def _quiet(_: str) -> None:
    return None


def analyze_store(
    store: Store,
    cases: CaseSet | None,
    *,
    runs: Sequence[str] | None = None,
    index_manifest: Path | None = None,
    k: Sequence[int] | None = None,
    chunks: Path | None = None,
) -> FunnelResult | Shapes:
    """With cases, every question's funnel against them; without, live traffic by shape.

    ``chunks``: a chunk file (id → text, ``judges.chunk_file``) for the cases' quotes where
    the ingest spans recorded no text.
    """
    # Looked up on the package at each call, so a caller (or a test) sees funnel.analyze as it is.
    if cases is None:
        return funnel.shapes(store, run=chosen_runs(runs))
    return funnel.analyze(
        store, cases, run=chosen_runs(runs), index_manifest=index_manifest,
        k=list(k) if k else None, chunks=chunk_file(chunks),
    )  # fmt: skip


def chunk_file(path: Path | None) -> dict[str, str] | None:
    """The chunk texts of a chunk file (``judges.chunk_file``), None without one."""
    return load_chunks(path) if path is not None else None


def question_funnel(
    store: Store,
    cases: CaseSet | None,
    question_id: str,
    *,
    runs: Sequence[str] | None = None,
    index_manifest: Path | None = None,
) -> FunnelResult | Shapes:
    """One question's records: a case id against the cases, or a trace question id's shape."""
    if cases is None:
        return funnel.shapes(store, run=chosen_runs(runs), question=question_id)
    return funnel.analyze(
        store, cases, run=chosen_runs(runs), index_manifest=index_manifest,
        question=question_id,
    )  # fmt: skip


@dataclass(frozen=True)
class Thresholds:
    """The abstention analysis of a store's records, and the analysis's notices."""

    abstention: Abstention
    notices: tuple[str, ...]


def thresholds_from_store(
    store: Store,
    cases: CaseSet,
    *,
    runs: Sequence[str] | None = None,
    cost_ratio: float = 1.0,
    progress: Callable[[str], None] = _quiet,
) -> Thresholds:
    """Analyze ``store`` against ``cases``, then sweep the abstention threshold over the records.

    ``progress`` is told each step's name before it starts.
    """
    progress("rebuilding every question's funnel")
    result = funnel.analyze(store, cases, run=chosen_runs(runs))
    progress("sweeping the threshold")
    return Thresholds(abstention(result.records, cost_ratio=cost_ratio), result.notices)
