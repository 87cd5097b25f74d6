"""Run the HotpotQA pipeline with injected faults and score the analyzer's attributions.

Used by ``bench/faults.py`` (the DESIGN §8 target: 100 % on deterministic faults) and by the test
suite on a smaller sample.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import ragfunnel
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.store import Store
from ragfunnel.demo.hotpotqa import (
    CUT_K,
    EXPECTED,
    INDEX_VERSION,
    load,
    plan_faults,
    trace_plan,
    write_cases,
)


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
        """Share of questions whose first failure is the injected stage (NaN with none)."""
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
    with Store.open(f"chdb://{workdir / 'store'}") as store:
        report.spans_ingested = ingest_paths(store, [traces]).inserted
        result = analyze(store, cases)
    verdicts = dict(
        zip(result.records["question_id"], result.records["first_failure"], strict=True)
    )
    reasons = dict(
        zip(result.records["question_id"], result.records["failure_reason"], strict=True)
    )
    for qid, fault in plan.faults.items():
        expected, got = EXPECTED[fault], verdicts.get(qid, "missing")
        report.questions += 1
        report.by_fault.setdefault(fault, Counter())[got] += 1
        if got == expected:
            report.correct += 1
        else:
            report.mistakes.append((qid, fault, got, str(reasons.get(qid, ""))))
    return report
