"""A regression check of the decision table on HotpotQA with injected faults.

Builds a BM25 pipeline over the pooled HotpotQA paragraphs (../shared/data/hotpotqa, or the
folder in RAGFUNNEL_HOTPOTQA; never copied into the repository), picks the questions whose
unfaulted funnel is healthy, injects one deterministic fault per question (a gold paragraph never
indexed, missed by search, buried by the reranker, dropped by the cut, or an answer that ignores
the context; plus fault-free controls), traces everything with the decorators, ingests the spans
into the embedded store and checks that the analyzer names the injected stage.

Each fault is built to have exactly one right answer under docs/funnel.md's rules, so 100 % here
says the decision table still does what it says on real data at scale; it does not measure how
well the analyzer diagnoses faults a real pipeline makes (the demo's faults, ``ragfunnel demo``,
are closer to that).

    python bench/faults.py [--limit N] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from _hotpotqa import CUT_K, EXPECTED, INDEX_VERSION, load, plan_faults, trace_plan, write_cases

import ragfunnel
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.store import Store


@dataclass
class FaultReport:
    """How the analyzer's first_failure compares with the injected fault, per question."""

    questions: int = 0
    correct: int = 0
    by_fault: dict[str, Counter[str]] = field(default_factory=dict)
    mistakes: list[tuple[str, str, str, str]] = field(default_factory=list)
    spans_ingested: int = 0
    spans_dropped: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.questions if self.questions else float("nan")


def run_faults(workdir: Path, *, limit: int | None = None, data: Path | None = None) -> FaultReport:
    """Trace, ingest and analyze the fault experiment in ``workdir``; compare the verdicts."""
    corpus = load(data, limit=limit)
    plan = plan_faults(corpus)
    traces = workdir / "traces"
    ragfunnel.configure(
        exporter=f"file:{traces}/spans-{{pid}}.jsonl",
        capture_content=True,
        run_id="faults",
        pipeline={"index_version": INDEX_VERSION, "k": CUT_K},
        service_name="hotpotqa-faults",
    )
    trace_plan(corpus, plan)
    ragfunnel.flush()
    report = FaultReport(spans_dropped=ragfunnel.export_stats().dropped)
    cases = workdir / "cases.jsonl"
    write_cases(cases, corpus, plan)
    with Store.open(f"chdb://{workdir / 'store'}", create=True) as store:
        report.spans_ingested = ingest_paths(store, [traces]).inserted
        result = analyze(store, cases)
    records = result.records
    verdicts = dict(zip(records["question_id"], records["first_failure"], strict=True))
    reasons = dict(zip(records["question_id"], records["failure_reason"], strict=True))
    for qid, fault in plan.faults.items():
        expected, got = EXPECTED[fault], verdicts.get(qid, "missing")
        report.questions += 1
        report.by_fault.setdefault(fault, Counter())[got] += 1
        if got == expected:
            report.correct += 1
        else:
            report.mistakes.append((qid, fault, got, str(reasons.get(qid, ""))))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="read only the first N questions")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--data", type=Path, default=None, help="HotpotQA folder (default: RAGFUNNEL_HOTPOTQA)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or Path(tmp)
        started = time.perf_counter()
        report = run_faults(workdir, limit=args.limit, data=args.data)
        elapsed = time.perf_counter() - started
    print(f"questions with an injected fault or control: {report.questions}")
    print(
        f"spans ingested: {report.spans_ingested}, dropped at export: {report.spans_dropped}; wall time {elapsed:.1f}s"
    )
    for fault, verdicts in sorted(report.by_fault.items()):
        print(f"  {fault:11} -> {dict(verdicts)}")
    print(f"decision-table agreement: {report.correct}/{report.questions} = {report.accuracy:.1%}")
    for qid, fault, got, reason in report.mistakes[:20]:
        print(f"  MISS {qid}: injected {fault}, analyzer said {got} ({reason})")


if __name__ == "__main__":
    main()
