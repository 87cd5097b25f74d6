"""Analysis at read time: no stage table, ``otel_traces`` parsed by every query, on a read-only store.

    python bench/read_time.py                       # 1,000,000 questions, median of 3 runs
    python bench/read_time.py --questions 200000    # quicker
    python bench/read_time.py --reuse               # time against an existing bench store

What a user meets who points ragfunnel at a production store it may not write to: ``analyze``
on ``Store.open(..., read_only=True)`` before anyone ran ``ragfunnel store migrate``, so the
stage SELECT runs as a subquery of every funnel query. The baseline, measured in the same run
on the same store, is ``bench/funnel.py``'s hand-written naive query: one GROUP BY over
``otel_traces`` that parses the JSON attributes on every read and classifies each question's
first failure. Target: the read-time analysis within 2x of the baseline. For reference, the
same analysis is timed again after ``migrate`` (the stage table path).

The questions are ``bench/funnel.py``'s (the same generator and seed), inserted without the
view. Timings run in child processes, so peak RSS covers one analysis only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from funnel import (
    BASELINE_CASES,
    CHUNK,
    CORPUS,
    baseline_sql,
    build_chunk,
    chunk_id,
    load_baseline_cases,
    make_cases,
    peak_rss,
    plan,
)

from ragfunnel.analyzer.funnel import READ_TIME_NOTICE, analyze
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.migrations import migrate
from ragfunnel.analyzer.store.schema import stage_table_ready


def generate(path: Path, n: int, n_cases: int) -> float:
    """``n`` questions into a fresh store at ``path``, with no stage table; returns the seconds."""
    if path.exists():
        shutil.rmtree(path)
    p = plan(n_cases)
    quoted = np.array([json.dumps(chunk_id(x)) for x in range(CORPUS)], dtype=object)
    started = time.perf_counter()
    with Store.open(f"chdb://{path}", create=True) as store:
        for first in range(0, n, CHUNK):
            store.insert_traces(build_chunk(first, min(CHUNK, n - first), p, quoted, n_cases))
            print(f"  {min(first + CHUNK, n):>9,} questions", file=sys.stderr, end="\r")
        load_baseline_cases(store, make_cases(n_cases))
        # One part, so that no run shares the machine with merges or reads a different layout.
        store.command(f"OPTIMIZE TABLE {store.traces_table} FINAL")
    print(file=sys.stderr)
    return time.perf_counter() - started


def child(kind: str, path: Path, n_cases: int, runs: int) -> None:
    """Time one kind of analysis ``runs`` times; print the timings and peak RSS as JSON."""
    times: list[float] = []
    extra: dict[str, Any] = {}
    read_only = kind == "read_time"
    with Store.open(f"chdb://{path}", read_only=read_only) as store:
        if kind == "baseline":
            sql = baseline_sql(store.traces_table, f"`{store.database}`.{BASELINE_CASES}")
            for _ in range(runs):
                t = time.perf_counter()
                rows = store.query_arrow(sql)
                times.append(time.perf_counter() - t)
                extra["records"] = rows.num_rows
                del rows
        else:
            assert stage_table_ready(store) == (kind == "stage_table"), kind
            cases = make_cases(n_cases)
            for _ in range(runs):
                t = time.perf_counter()
                result = analyze(store, cases)
                times.append(time.perf_counter() - t)
                assert (READ_TIME_NOTICE in result.notices) == read_only
                extra["records"] = result.records.height
                del result
    print(json.dumps({"times": times, "rss_bytes": peak_rss(), **extra}))


def run_child(kind: str, path: Path, n_cases: int, runs: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--store", str(path), "--cases", str(n_cases),
         "--runs", str(runs)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=1_000_000)
    parser.add_argument("--store", type=Path, default=Path(".ragfunnel/bench-read-time"))
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--child", choices=["read_time", "baseline", "stage_table"])
    args = parser.parse_args()
    path = args.store.absolute()
    if args.child:
        child(args.child, path, args.cases, args.runs)
        return
    n, n_cases = args.questions, min(args.cases, args.questions)
    if not args.reuse:
        print(f"generating {n:,} questions into {path} (no stage table) ...", file=sys.stderr)
        print(f"  {generate(path, n, n_cases):.1f} s", file=sys.stderr)
    with Store.open(f"chdb://{path}", create=True) as store:
        if stage_table_ready(store):
            raise SystemExit(f"{path} has a stage table: generate it again (without --reuse)")
    # Interleaved, so that a quieter or busier moment of the machine falls on both sides.
    read_time: list[float] = []
    baseline: list[float] = []
    rss = {"read_time": 0, "baseline": 0}
    records = 0
    for _ in range(args.runs):
        ours = run_child("read_time", path, n_cases, 1)
        base = run_child("baseline", path, n_cases, 1)
        read_time += ours["times"]
        baseline += base["times"]
        rss["read_time"] = max(rss["read_time"], ours["rss_bytes"])
        rss["baseline"] = max(rss["baseline"], base["rss_bytes"])
        records = ours["records"]
    with Store.open(f"chdb://{path}", create=True) as store:
        t = time.perf_counter()
        migrate(store)
        migrate_s = time.perf_counter() - t
    table = run_child("stage_table", path, n_cases, args.runs)
    ours_s, base_s = statistics.median(read_time), statistics.median(baseline)
    table_s = statistics.median(table["times"])
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "questions": n,
        "cases": n_cases,
        "records": records,
        "read_time_runs_s": [round(x, 2) for x in read_time],
        "read_time_median_s": round(ours_s, 2),
        "read_time_questions_per_s": round(n / ours_s),
        "read_time_peak_rss_mb": round(rss["read_time"] / 2**20),
        "baseline_runs_s": [round(x, 2) for x in baseline],
        "baseline_median_s": round(base_s, 2),
        "baseline_peak_rss_mb": round(rss["baseline"] / 2**20),
        "read_time_over_baseline": round(ours_s / base_s, 2),
        "migrate_s": round(migrate_s, 2),
        "stage_table_runs_s": [round(x, 2) for x in table["times"]],
        "stage_table_median_s": round(table_s, 2),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
