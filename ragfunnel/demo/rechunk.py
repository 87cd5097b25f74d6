"""The re-chunked run: the clean pipeline on a second chunking, and what the analysis makes of it.

Every RAG team re-chunks; the cases' chunk ids then name chunks the new index does not have.
The demo's third run, ``demo-rechunked``, builds its index from :func:`~.corpus.split_windows`
(windows of sentences across section borders, other ids) and asks every case again. The
shipped cases are rebased once (``ragfunnel cases rebase``, from the clean run's index) into
``cases.rebased.yaml`` — document + quote instead of chunk ids — and :func:`check_rechunk`
analyzes:

- the rebased cases on the clean run: the same verdict as the chunk-id cases, case by case;
- the rebased cases on the re-chunked run: each verdict agrees with what the app itself did
  (the evidence, resolved against the chunks the app built, reached its prompt or not);
- the chunk-id cases on the re-chunked run: every answerable one ``stale_case``, none
  ingestion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ragfunnel.analyzer.cases import CaseSet, DocumentChunks, Resolver, load_cases
from ragfunnel.analyzer.funnel import FunnelResult, analyze
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.workflows import rebase_from_store
from ragfunnel.demo.corpus import Document, split_windows
from ragfunnel.demo.pipeline import Outcome
from ragfunnel.demo.plan import holds

__all__ = ["RECHUNKED_RUN", "Rechunk", "check_rechunk"]

RECHUNKED_RUN = "demo-rechunked"

UPSTREAM = frozenset({"ingestion", "ingestion_or_search", "search", "rerank", "cut"})
"""The verdicts that say the evidence never reached the prompt."""


@dataclass
class Rechunk:
    """What the re-chunked run showed (see the module docstring)."""

    rebased_path: Path
    rewritten: int
    """Chunk ids the rebase rewrote as document + quote."""
    not_rewritten: tuple[str, ...]
    rebased: FunnelResult
    """The rebased cases on the clean and the re-chunked run."""
    old_ids: FunnelResult
    """The chunk-id cases on the re-chunked run."""
    disagreements: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(run, case, what was expected, what the analysis said) where the two differ."""

    def verdicts(self, result: FunnelResult, run_id: str) -> dict[str, str]:
        """Case → first failure on one run."""
        records = result.records.filter(pl.col("run_id") == run_id, pl.col("latest"))
        return dict(
            zip(records["question_id"], records["first_failure"].cast(pl.String), strict=True)
        )


def check_rechunk(
    store: Store,
    cases_path: Path,
    analysis: FunnelResult,
    outcomes: Mapping[str, Outcome],
    documents: Sequence[Document],
    *,
    from_index: str,
    clean_run: str,
) -> Rechunk:
    """Rebase the cases once, analyze both chunkings with them and the old ids on the new one."""
    done = rebase_from_store(store, cases_path, from_index=from_index)
    rebased_cases = load_cases(done.output)
    found = Rechunk(
        rebased_path=done.output,
        rewritten=done.rewritten,
        not_rewritten=tuple(str(p) for p in done.problems),
        rebased=analyze(store, rebased_cases, run=[clean_run, RECHUNKED_RUN]),
        old_ids=analyze(store, cases_path, run=RECHUNKED_RUN),
    )
    chunk_ids = found.verdicts(analysis, clean_run)
    for case, got in found.verdicts(found.rebased, clean_run).items():
        if got != chunk_ids.get(case):
            found.disagreements.append((clean_run, case, str(chunk_ids.get(case)), got))
    found.disagreements += _against_the_app(found, rebased_cases, outcomes, documents)
    answerable = {c.id for c in rebased_cases if c.answerable}
    for case, got in found.verdicts(found.old_ids, RECHUNKED_RUN).items():
        if case in answerable and got != "stale_case":
            found.disagreements.append((RECHUNKED_RUN, f"{case} (chunk ids)", "stale_case", got))
    return found


def _against_the_app(
    found: Rechunk,
    cases: CaseSet,
    outcomes: Mapping[str, Outcome],
    documents: Sequence[Document],
) -> list[tuple[str, str, str, str]]:
    """Rebased cases on the re-chunked run against the app's own record of each question."""
    latest: dict[str, Document] = {}
    for document in documents:  # the clean pipeline ingests each document's latest version
        if document.id not in latest or document.version > latest[document.id].version:
            latest[document.id] = document
    chunks: dict[str, DocumentChunks] = {}
    for document in latest.values():  # OCR reads a scanned page's body: the same text
        windows = split_windows(document, document.body)
        if windows:
            chunks[document.id] = DocumentChunks(
                tuple(w.id for w in windows), tuple(w.text for w in windows)
            )
    resolver = Resolver(chunks)
    verdicts = found.verdicts(found.rebased, RECHUNKED_RUN)
    wrong = []
    for case in cases:
        outcome, got = outcomes.get(case.id), verdicts.get(case.id)
        if case.evidence is None or outcome is None or got is None:
            continue
        prompt = set(outcome.prompt)
        reached = holds(resolver.resolve(case.evidence).evidence, prompt.__contains__)
        if reached and got in UPSTREAM | {"stale_case", "ok_without_evidence"}:
            wrong.append((RECHUNKED_RUN, case.id, "evidence in the prompt", got))
        elif not reached and got not in UPSTREAM | {"ok_without_evidence"}:
            wrong.append((RECHUNKED_RUN, case.id, "evidence lost before the prompt", got))
    return wrong
