"""Folders of small files: N one-span files (one file per process is the default layout).

    python bench/ingest_small_files.py [--files 10000]

Writes N files of one OTLP JSON line with one stage span each (as ``spans-<pid>.jsonl`` files
of short-lived processes look), then in a child process: ingests the folder into a fresh
embedded store (what ``ragfunnel ingest`` does, the store migrated first), ingests it again
(every file unchanged: passed over), and ``--rescan``s it (every file read again, every span a
duplicate). Prints the seconds of each.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

T0 = 1_790_000_000_000_000_000


def write_files(folder: Path, files: int) -> None:
    """``files`` files of one span each, a question id and stage apiece."""
    for number in range(files):
        span = {
            "traceId": f"{number + 1:032x}",
            "spanId": f"{number + 1:016x}",
            "name": "retrieve bm25",
            "kind": 1,
            "startTimeUnixNano": str(T0 + number * 1_000_000),
            "endTimeUnixNano": str(T0 + number * 1_000_000 + 500_000),
            "attributes": [
                {"key": "ragfunnel.stage", "value": {"stringValue": "retrieve"}},
                {"key": "ragfunnel.question.id", "value": {"stringValue": f"q-{number}"}},
                {"key": "ragfunnel.schema.version", "value": {"stringValue": "1"}},
            ],
        }
        document = {
            "resourceSpans": [
                {
                    "resource": {
                        "attributes": [{"key": "service.name", "value": {"stringValue": "rag"}}]
                    },
                    "scopeSpans": [{"scope": {"name": "ragfunnel"}, "spans": [span]}],
                }
            ]
        }
        (folder / f"spans-{number}.jsonl").write_text(json.dumps(document) + "\n")


def child(folder: str, store_path: str) -> None:
    """Time the three ingests in this process (one embedded store per process)."""
    from ragfunnel.analyzer.ingest import ingest_paths
    from ragfunnel.analyzer.store import Store

    with Store.open(f"chdb://{store_path}", create=True) as store:
        for label, rescan in (
            ("first ingest", False),
            ("again, unchanged", False),
            ("--rescan", True),
        ):
            start = time.perf_counter()
            summary = ingest_paths(store, [folder], rescan=rescan)
            took = time.perf_counter() - start
            print(f"{label}: {took:.2f} s — {summary.describe()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory(prefix="ragfunnel-small-") as tmp:
        folder = Path(tmp) / "traces"
        folder.mkdir()
        write_files(folder, args.files)
        print(f"{args.files:,} one-span files")
        subprocess.run(
            [sys.executable, __file__, "--child", str(folder), str(Path(tmp) / "store")],
            check=True,
        )


if __name__ == "__main__":
    main()
