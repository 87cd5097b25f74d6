"""Attribution accuracy on injected faults (target: 100 % on deterministic faults; bench/RESULTS.md).

Builds a BM25 pipeline over the pooled HotpotQA paragraphs (../shared/data/hotpotqa), picks the
questions whose unfaulted funnel is healthy, injects one deterministic fault per question (a gold
paragraph never indexed, missed by search, buried by the reranker, dropped by the cut, or an
answer that ignores the context; plus fault-free controls), traces everything with the
decorators, ingests the spans into the embedded store and checks that the analyzer names the
injected stage.

    python bench/faults.py [--limit N] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from ragfunnel.demo.faults import run_faults


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="read only the first N questions")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or Path(tmp)
        started = time.perf_counter()
        report = run_faults(workdir, limit=args.limit)
        elapsed = time.perf_counter() - started
    print(f"questions with an injected fault or control: {report.questions}")
    print(
        f"spans ingested: {report.spans_ingested}, dropped at export: {report.spans_dropped}; wall time {elapsed:.1f}s"
    )
    for fault, verdicts in sorted(report.by_fault.items()):
        print(f"  {fault:11} -> {dict(verdicts)}")
    print(f"attribution accuracy: {report.correct}/{report.questions} = {report.accuracy:.1%}")
    for qid, fault, got, reason in report.mistakes[:20]:
        print(f"  MISS {qid}: injected {fault}, analyzer said {got} ({reason})")


if __name__ == "__main__":
    main()
