"""``run_demo``: trace the demo pipeline clean and with faults, then analyze what went wrong.

Two runs over the shipped cases — ``demo-clean`` and ``demo-faulty`` (the faults of
:mod:`.faults`, planned by :mod:`.plan`) — export OTLP-JSON spans under the work directory, are
ingested into an embedded store there, judged by the offline judge, and analyzed against the
cases; the injection log says
where each fault must be attributed. A third run, ``demo-rechunked``, is the clean pipeline on
a second chunking of the same corpus (:mod:`.rechunk` checks it): the cases, rebased once, are
right on both chunkings, and the chunk-id cases on the new one are ``stale_case``. It configures ragfunnel for the calling process (two
``ragfunnel.configure`` calls), and writes only inside the work directory, replacing its own
earlier output (``traces/``, ``store/``, ``cases.yaml``, ``cases.rebased.yaml``,
``injections.jsonl``, ``report.html``)
and nothing else:
a directory whose ``traces/`` or ``store/`` the demo did not write is refused.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import yaml

import ragfunnel
from ragfunnel.analyzer.cases import Case, case_to_data, load_cases
from ragfunnel.analyzer.funnel import FunnelResult
from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.judges.run.batch import JudgeRun, judge_store
from ragfunnel.analyzer.report import Report
from ragfunnel.analyzer.report.diff import RunDiff, diff_runs
from ragfunnel.analyzer.report.html import write_html
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.workflows import report_from_store
from ragfunnel.demo import DEFAULT_WORKDIR
from ragfunnel.demo.corpus import CASES_PATH, Document, load_documents, split_windows
from ragfunnel.demo.faults import (
    DEFAULT_FAULTS,
    LLM_UNPLANNED,
    DemoError,
    Injection,
    check_faults,
)
from ragfunnel.demo.pipeline import LLM, Chunking, Outcome, Pipeline, Settings
from ragfunnel.demo.plan import Truth, plan_faults, truths, write_log
from ragfunnel.demo.rechunk import RECHUNKED_RUN, Rechunk, check_rechunk

CLEAN_RUN = "demo-clean"
FAULTY_RUN = "demo-faulty"

Progress = Callable[[str, int, int], None]
"""``progress(step, done, total)``: called as the demo advances (for a progress display)."""


@dataclass
class DemoResult:
    """Where the demo wrote its files, what the analysis found, and how it compares."""

    workdir: Path
    store: str
    cases_path: Path
    injection_log: Path
    truths: list[Truth]
    analysis: FunnelResult
    report: Report
    """The report of both runs (what ``ragfunnel report`` prints)."""
    diff: RunDiff
    """The faulty run against the clean one, case by case (what ``ragfunnel diff`` prints)."""
    html: Path
    """The HTML report of both runs, with the comparison on top."""
    clean: dict[str, Outcome]
    faulty: dict[str, Outcome]
    spans: int
    judged: JudgeRun
    """What the offline judge did: answers judged, abstentions, verdict rows written."""
    seconds: float
    disagreements: list[tuple[Truth, str, str]] = field(default_factory=list)
    """(truth, the analyzer's first_failure, its reason) where the two differ."""
    missed_flags: list[Truth] = field(default_factory=list)
    """Truths whose expected flag (``conflicting_sources``) the analysis did not raise."""
    rechunk: Rechunk | None = None
    """The clean pipeline on the second chunking, and how the analysis read it."""

    @property
    def records(self) -> pl.DataFrame:
        """The analysis's records, one per question and run."""
        return self.analysis.records


def run_demo(
    workdir: str | Path = DEFAULT_WORKDIR,
    *,
    faults: Sequence[str] = DEFAULT_FAULTS,
    cases: int | None = None,
    llm: LLM | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> DemoResult:
    """Run, trace, ingest and analyze the demo in ``workdir``.

    Args:
        workdir: where traces, the embedded store, the cases and the injection log go.
        faults: names from :data:`ragfunnel.demo.faults.FAULTS` (default: all of them).
        cases: use N of the shipped cases, spread evenly over them (default: all).
        llm: answer with an OpenAI-compatible endpoint instead of the offline generator (the
            faults whose truth depends on the generator's words are then not injected).
        settings: the pipeline's top_k, candidate depth, k and threshold.
        progress: ``progress(step, done, total)`` callback.
    """
    started = time.perf_counter()
    chosen = check_faults(list(faults))
    if llm is not None:  # their truth depends on what the generator says
        chosen = tuple(f for f in chosen if f not in LLM_UNPLANNED)
    if cases is not None and cases < 1:
        raise DemoError(f"cases must be at least 1, not {cases}", argument="cases")
    settings = settings or Settings()
    report = progress or (lambda _step, _done, _total: None)
    root = Path(workdir)
    _prepare(root)
    traces = root / "traces"

    case_list = spread(list(load_cases(CASES_PATH)), cases)
    cases_path = root / "cases.yaml"
    _write_cases(cases_path, case_list)
    documents = load_documents()

    def traced(
        run_id: str, injection: Injection | None, chunking: Chunking | None = None
    ) -> dict[str, Outcome]:
        return _traced_run(
            run_id, traces, documents=documents, cases=case_list, settings=settings, llm=llm,
            injection=injection, report=report, chunking=chunking,
        )  # fmt: skip

    try:
        clean = traced(CLEAN_RUN, None)
        injection, planned = plan_faults(case_list, clean, documents, chosen, settings)
        faulty = traced(FAULTY_RUN, injection)
        rechunked = traced(RECHUNKED_RUN, None, split_windows)
    except _llm_errors(llm) as exc:
        assert llm is not None  # no LLM: nothing is caught
        raise DemoError(f"the LLM at {llm.base_url} failed: {exc}", argument="llm") from exc
    found = truths(planned, case_list, clean, faulty, FAULTY_RUN)
    log = root / "injections.jsonl"
    write_log(log, found)

    report("analyze and report", 0, 1)
    store = f"chdb://{root / 'store'}"
    case_set = load_cases(cases_path)
    with Store.open(store, create=True) as opened:
        spans = ingest_paths(opened, [traces]).inserted
        # What `ragfunnel judge` does: every answer of both runs, offline, with correctness.
        judged = judge_store(opened, policy="offline", cases=case_set)
        reported = report_from_store(opened, case_set, runs=[CLEAN_RUN, FAULTY_RUN])
        rechunk = check_rechunk(
            opened, cases_path, reported.result, rechunked, documents,
            from_index=index_version(CLEAN_RUN), clean_run=CLEAN_RUN,
        )  # fmt: skip
    analysis, built, snapshots = reported.result, reported.report, reported.snapshots
    diff = diff_runs(analysis, CLEAN_RUN, FAULTY_RUN, snapshots=snapshots)
    html = write_html(built, root / "report.html", diff=diff)
    report("analyze and report", 1, 1)
    result = DemoResult(
        workdir=root, store=store, cases_path=cases_path, injection_log=log, truths=found,
        analysis=analysis, report=built, diff=diff, html=html, clean=clean, faulty=faulty,
        spans=spans, judged=judged, seconds=time.perf_counter() - started,
    )  # fmt: skip
    result.disagreements = compare(found, analysis.records)
    result.missed_flags = missed_flags(found, analysis.records)
    result.rechunk = rechunk
    return result


def spread(items: Sequence[Case], n: int | None) -> list[Case]:
    """``n`` of ``items`` spread evenly over the list (all of them without ``n``).

    The shipped cases are grouped by topic, unanswerable ones last: an even spread keeps every
    kind in a small demo.
    """
    if n is None or n >= len(items):
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def compare(found: Sequence[Truth], records: pl.DataFrame) -> list[tuple[Truth, str, str]]:
    """The truths whose stage the analysis does not name (with what it named, and why)."""
    rows = {
        (r["run_id"], r["question_id"]): r
        for r in records.filter(pl.col("latest")).iter_rows(named=True)
    }
    wrong: list[tuple[Truth, str, str]] = []
    for truth in found:
        row = rows.get((truth.run_id, truth.case_id))
        got = row["first_failure"] if row else "missing"
        reason = (row["failure_reason"] or "") if row else ""
        if got != truth.stage:
            wrong.append((truth, got, reason))
    return wrong


def missed_flags(found: Sequence[Truth], records: pl.DataFrame) -> list[Truth]:
    """The truths whose expected flag the analysis did not raise."""
    rows = {
        (r["run_id"], r["question_id"]): r["flags"] or []
        for r in records.filter(pl.col("latest")).iter_rows(named=True)
    }
    return [t for t in found if t.flag and t.flag not in rows.get((t.run_id, t.case_id), [])]


def pipeline_snapshot(
    run_id: str, settings: Settings, llm: LLM | None, faults: Sequence[str] = ()
) -> dict[str, object]:
    """The ``configure(pipeline=...)`` snapshot of one demo run (its own index version).

    The faulty run lists its faults, so a diff of the two runs names what changed.
    """
    return {
        "faults": sorted(faults) or ["none"],
        "index_version": index_version(run_id),
        "chunker": "sentence-windows" if run_id == RECHUNKED_RUN else "sections",
        "k": settings.k,
        "threshold": settings.threshold,
        "retrievers": ["bm25", "lsa"],
        "reranker": "cross-feature-v1",
        "models": {"generator": llm.model if llm else "extractive-v1"},
    }


def index_version(run_id: str) -> str:
    """The index version a demo run builds (each run its own index)."""
    return f"policies-{run_id}"


def run_pipeline(
    run_id: str,
    documents: Sequence[Document],
    cases: Sequence[Case],
    *,
    settings: Settings,
    llm: LLM | None = None,
    injection: Injection | None = None,
    progress: Progress | None = None,
    chunking: Chunking | None = None,
) -> dict[str, Outcome]:
    """Build the index and ask every case once; spans go wherever ragfunnel is configured to."""
    report = progress or (lambda _step, _done, _total: None)
    pipeline = Pipeline(documents, injection=injection, settings=settings, llm=llm)
    if chunking is not None:
        pipeline.chunking = chunking
    report(f"{run_id}: index", 0, 1)
    pipeline.build_index()
    report(f"{run_id}: index", 1, 1)
    for n, case in enumerate(cases, start=1):
        pipeline.answer(case.id, case.question)
        report(f"{run_id}: questions", n, len(cases))
    return pipeline.outcomes


def _traced_run(
    run_id: str,
    traces: Path,
    *,
    documents: Sequence[Document],
    cases: Sequence[Case],
    settings: Settings,
    llm: LLM | None,
    injection: Injection | None,
    report: Progress,
    chunking: Chunking | None = None,
) -> dict[str, Outcome]:
    ragfunnel.configure(
        exporter=f"file:{traces}/{run_id}-{{pid}}.jsonl",
        capture_content=True,
        run_id=run_id,
        service_name="ragfunnel-demo",
        pipeline=pipeline_snapshot(run_id, settings, llm, _fault_names(injection)),
    )
    outcomes = run_pipeline(
        run_id, documents, cases, settings=settings, llm=llm, injection=injection,
        progress=report, chunking=chunking,
    )  # fmt: skip
    ragfunnel.flush()
    dropped = ragfunnel.export_stats().dropped
    if dropped:  # a lost ingest span reads as "never indexed": the analysis would be wrong
        raise RuntimeError(f"run {run_id}: {dropped} spans were dropped at export")
    return outcomes


def _fault_names(injection: Injection | None) -> list[str]:
    """Every fault the injection holds (for the run's configuration snapshot)."""
    if injection is None:
        return []
    names = set(injection.questions.values())
    names |= {"dropped_document"} if injection.dropped_documents else set()
    names |= {"empty_ocr"} if injection.empty_ocr else set()
    return sorted(names)


def _llm_errors(llm: LLM | None) -> tuple[type[Exception], ...]:
    """The errors an LLM endpoint raises (none to catch without one)."""
    if llm is None:
        return ()
    import openai  # present: the pipeline could not have been built otherwise

    return (openai.OpenAIError,)


MARKER = ".ragfunnel-demo"
"""The file that marks a work directory as the demo's (so its own output may be replaced)."""


def _prepare(root: Path) -> None:
    """Make ``root`` ready; replace only what an earlier demo run wrote there."""
    owned = [root / "traces", root / "store"]
    if any(p.exists() for p in owned) and not (root / MARKER).exists():
        raise DemoError(
            f"{root} already has traces/ or store/ that the demo did not write; "
            "choose another work directory",
            argument="workdir",
        )
    for path in owned:
        shutil.rmtree(path, ignore_errors=True)
    root.mkdir(parents=True, exist_ok=True)
    (root / MARKER).write_text("written by ragfunnel demo\n", encoding="utf-8")


def _write_cases(path: Path, cases: Sequence[Case]) -> None:
    rows = [case_to_data(case) for case in cases]
    path.write_text(
        yaml.safe_dump({"cases": rows}, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
