"""Funnel analysis speed: 1,000,000 synthetic questions (5,000,000 spans) in the embedded store.

    python bench/funnel.py                      # generate, then time (median of 3 runs)
    python bench/funnel.py --reuse              # time against an existing bench store
    python bench/funnel.py --questions 100000   # a smaller, quicker run
    python bench/funnel.py --cases 1000000      # one million distinct cases, each asked once

By default the million questions are 10,000 cases asked in 100 runs (an evaluation set
re-run as a pipeline changes). Each question is one trace: question → retrieve (50
candidates) → rerank (30 in, 10 out) → cut (k = 5, threshold) → generate, with 1 or 2 expected
chunks placed at random ranks (or missing), so every stage of the decision table occurs. Rows are built as Arrow columns (the
exporter's ``otel_traces`` schema, attributes as the exporter stringifies them) and inserted
directly: the materialized view parses them on insert, as it would for a collector.

Timings run in child processes so that peak RSS (``VmHWM``) covers only the analysis:
``analyze`` with the cases rebuilt in memory from the same seed, and a naive single query that
parses the JSON attributes of ``otel_traces`` on every read (the baseline; targets in bench/RESULTS.md, "Funnel").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from ragfunnel.analyzer.cases import AllOf, AnyOf, Case, CaseSet, Leaf
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import TRACES_ARROW_SCHEMA
from ragfunnel.analyzer.ingest.values import go_float
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.migrations import migrate
from ragfunnel.instrumentation import contract as c

SEED = 20240601
CORPUS = 200_000
CANDIDATES = 50
RERANK_IN = 30
RERANK_OUT = 10
CUT_K = 5
THRESHOLD = 0.3
CHUNK = 100_000
START_NS = 1_717_200_000 * 10**9


def chunk_id(n: int) -> str:
    return f"doc{n // 8:05d}#section-{n % 8}"


def plan(n: int, seed: int = SEED) -> dict[str, np.ndarray]:
    """Per case: expected chunks, evidence kind, answerability (shared by both sides)."""
    rng = np.random.default_rng(seed)
    ev = rng.choice(CORPUS, size=(n, 2), replace=True)
    ev[:, 1] = np.where(ev[:, 1] == ev[:, 0], (ev[:, 0] + 1) % CORPUS, ev[:, 1])
    return {
        "ev": ev,
        "n_ev": rng.choice([1, 2], size=n, p=[0.4, 0.6]),
        "any": rng.random(n) < 0.3,
        "answerable": rng.random(n) >= 0.05,
    }


def make_cases(n: int) -> CaseSet:
    """The n cases, rebuilt from the seed (cheaply, in any process)."""
    p = plan(n)
    cases = []
    for i in range(n):
        qid = f"q-{i:07d}"
        text = f"Question number {i}?"
        if not p["answerable"][i]:
            cases.append(Case(qid, text, answerable=False))
            continue
        leaves = tuple(Leaf(chunk_id(int(x))) for x in p["ev"][i, : p["n_ev"][i]])
        evidence = (
            leaves[0] if len(leaves) == 1 else (AnyOf(leaves) if p["any"][i] else AllOf(leaves))
        )
        cases.append(Case(qid, text, evidence, facts=(f"fact{i}",)))
    return CaseSet(tuple(cases), "bench")


def _json_strings(matrix: np.ndarray, quoted: np.ndarray) -> np.ndarray:
    return np.array(["[" + ",".join(quoted[row].tolist()) + "]" for row in matrix], dtype=object)


# Scores in [0, 1] at 4 decimals, preformatted as Go's JSON encoder writes them.
_SCORE_TEXT = np.array([go_float(i / 10_000) for i in range(10_001)], dtype=object)


def _json_floats(matrix: np.ndarray) -> np.ndarray:
    steps = np.rint(matrix * 10_000).astype(np.int64)
    return np.array(["[" + ",".join(_SCORE_TEXT[row].tolist()) + "]" for row in steps],
                    dtype=object)  # fmt: skip


def _stage_block(
    base: dict[str, Any], name: str, attrs: dict[str, Any], count: int
) -> dict[str, pa.Array]:
    """Arrow columns for ``count`` spans of one stage; attribute values are per-row lists or
    constants, stored exactly as the exporter stringifies them."""
    keys = list(attrs)
    values = np.empty((count, len(keys)), dtype=object)
    for col, key in enumerate(keys):
        values[:, col] = attrs[key]
    offsets = pa.array(np.arange(0, count * len(keys) + 1, len(keys), dtype=np.int32))
    attributes = pa.MapArray.from_arrays(
        offsets, pa.array(keys * count, pa.string()), pa.array(values.ravel(), pa.string())
    )
    return {**base, "SpanName": pa.array([name] * count), "SpanAttributes": attributes}


def build_chunk(
    first: int, count: int, p: dict[str, np.ndarray], quoted: np.ndarray, n_cases: int
) -> pa.Table:
    """Arrow rows (5 spans per question) for questions first .. first+count-1; question q
    asks case q % n_cases in run q // n_cases. Rows go stage by stage: order is irrelevant
    to the store."""
    rng = np.random.default_rng(SEED + first)
    number = np.arange(first, first + count)
    idx = number % n_cases
    cands = rng.choice(CORPUS, size=(count, CANDIDATES), replace=True)
    # Place each expected chunk at a random rank, sometimes far, sometimes not at all.
    for e in range(2):
        rank = np.minimum(rng.geometric(0.15, size=count) - 1, CANDIDATES + 5)
        rows = np.nonzero(rank < CANDIDATES)[0]
        cands[rows, rank[rows]] = p["ev"][idx[rows], e]
    scores = np.sort(rng.random((count, CANDIDATES)))[:, ::-1]
    rr_in = cands[:, :RERANK_IN]
    order = np.argsort(rng.random((count, RERANK_IN)) - np.linspace(1, 0, RERANK_IN), axis=1)
    rr_out = np.take_along_axis(rr_in, order, axis=1)[:, :RERANK_OUT]
    rr_scores = np.sort(rng.random((count, RERANK_OUT)))[:, ::-1]
    keep = np.minimum((rr_scores[:, :CUT_K] >= THRESHOLD).sum(axis=1), CUT_K)
    kept = [rr_out[i, : keep[i]] for i in range(count)]
    abstain = keep == 0
    evidence = [set(p["ev"][q, : p["n_ev"][q]].tolist()) for q in idx]
    in_prompt = np.array([ev <= set(k.tolist()) for ev, k in zip(evidence, kept, strict=True)])
    lucky = rng.random(count) < 0.1
    answers = np.where(in_prompt | lucky, [f"The answer is fact{q}." for q in idx],
                       "I think it is something else.")  # fmt: skip
    trace = np.array([f"{q:032x}" for q in number], dtype=object)
    root = np.array([f"{q * 8:016x}" for q in number], dtype=object)
    t0 = START_NS + number * 10_000
    qids = np.array([f"q-{q:07d}" for q in idx], dtype=object)
    runs = np.array([f"run-{r:04d}" for r in number // n_cases], dtype=object)
    abstained = np.where(abstain, "true", "false")
    kept_json = np.array(["[" + ",".join(quoted[k].tolist()) + "]" for k in kept], dtype=object)
    rr_json = _json_strings(rr_out, quoted)
    stages = [
        ("question", {c.STAGE: "question", c.QUESTION_ID: qids, c.RUN_ID: runs,
                      c.QUESTION_HASH: np.array([f"{q:016x}" for q in idx], dtype=object),
                      c.ANSWER_ABSTAINED: abstained}),
        ("retrieve hybrid", {c.STAGE: "retrieve", c.QUESTION_ID: qids, c.RETRIEVER_NAME: "hybrid",
                             c.TOP_K: "50", c.DOCUMENTS_IDS: _json_strings(cands, quoted),
                             c.DOCUMENTS_SCORES: _json_floats(scores)}),
        ("rerank bge", {c.STAGE: "rerank", c.QUESTION_ID: qids,
                        c.INPUT_IDS: _json_strings(rr_in, quoted), c.DOCUMENTS_IDS: rr_json,
                        c.DOCUMENTS_SCORES: _json_floats(rr_scores), c.TOP_N: "10"}),
        ("cut gate", {c.STAGE: "cut", c.QUESTION_ID: qids, c.INPUT_IDS: rr_json,
                      c.DOCUMENTS_IDS: kept_json, c.CUT_K: "5", c.CUT_THRESHOLD: "0.3",
                      c.ANSWER_ABSTAINED: abstained}),
        ("generate gpt", {c.STAGE: "generate", c.QUESTION_ID: qids, c.CONTEXT_IDS: kept_json,
                          c.ANSWER_TEXT: answers.astype(object), c.MODE: "pipeline"}),
    ]  # fmt: skip
    blocks = []
    for s, (name, attrs) in enumerate(stages):
        rows = ~abstain if name.startswith("generate") else np.ones(count, dtype=bool)
        n = int(rows.sum())
        picked = {k: (v[rows] if isinstance(v, np.ndarray) else v) for k, v in attrs.items()}
        base = {
            "Timestamp": pa.array(t0[rows] + s * 1000, pa.timestamp("ns")),
            "TraceId": pa.array(trace[rows], pa.string()),
            "SpanId": pa.array([f"{q * 8 + s:016x}" for q in number[rows]], pa.string()),
            "ParentSpanId": pa.array([""] * n if s == 0 else root[rows], pa.string()),
            "Duration": pa.array(np.full(n, 900, dtype=np.uint64)),
        }
        blocks.append(_stage_block(base, name, picked, n))
    constant = {"TraceState": "", "SpanKind": "Internal", "ServiceName": "rag-bench",
                "ScopeName": "ragfunnel", "ScopeVersion": "0.1.0", "StatusCode": "Unset",
                "StatusMessage": ""}  # fmt: skip
    tables = []
    for block in blocks:
        rows = len(block["TraceId"])
        out = []
        for field in TRACES_ARROW_SCHEMA:
            if field.name in block:
                out.append(block[field.name])
            elif field.name in constant:
                out.append(pa.array([constant[field.name]] * rows, pa.string()))
            elif field.name == "ResourceAttributes":
                out.append(
                    pa.MapArray.from_arrays(
                        pa.array(np.arange(rows + 1, dtype=np.int32)),
                        pa.array(["service.name"] * rows),
                        pa.array(["rag-bench"] * rows),
                    )
                )
            else:
                out.append(pa.array([[]] * rows, field.type))
        tables.append(pa.Table.from_arrays(out, schema=TRACES_ARROW_SCHEMA))
    return pa.concat_tables(tables).combine_chunks()


def generate(path: Path, n: int, n_cases: int) -> dict[str, float]:
    if path.exists():
        shutil.rmtree(path)
    p = plan(n_cases)
    quoted = np.array([json.dumps(chunk_id(x)) for x in range(CORPUS)], dtype=object)
    started = time.perf_counter()
    build = insert = 0.0
    with Store.open(f"chdb://{path}", create=True) as store:
        migrate(store)  # so the view parses rows as they arrive, as with a collector
        for first in range(0, n, CHUNK):
            t = time.perf_counter()
            table = build_chunk(first, min(CHUNK, n - first), p, quoted, n_cases)
            build += time.perf_counter() - t
            t = time.perf_counter()
            store.insert_traces(table)
            insert += time.perf_counter() - t
            print(f"  {min(first + CHUNK, n):>9,} questions", file=sys.stderr, end="\r")
        spans = store.query_arrow(f"SELECT count() AS n FROM {store.traces_table}")
    print(file=sys.stderr)
    return {"spans": float(spans.column("n")[0].as_py()), "build_s": build, "insert_s": insert,
            "total_s": time.perf_counter() - started}  # fmt: skip


BASELINE_CASES = "bench_cases"


def baseline_sql(traces: str, cases: str) -> str:
    """A hand-written single query over otel_traces: JSON parsed on every read.

    ``traces`` and ``cases`` are the quoted tables; bench/analyze_e2e.py and bench/read_time.py
    time the same query, so every figure compares against one baseline.
    """
    a = "SpanAttributes"
    ids = f"JSONExtract({a}['{c.DOCUMENTS_IDS}'], 'Array(String)')"
    inp = f"JSONExtract({a}['{c.INPUT_IDS}'], 'Array(String)')"
    ctx = f"JSONExtract({a}['{c.CONTEXT_IDS}'], 'Array(String)')"
    stage = f"{a}['{c.STAGE}']"
    pos = "arrayMap(e -> toUInt16(indexOf({arr}, e)), ev.items)"
    return f"""
SELECT qid, first_failure, count() OVER () AS questions FROM (
  SELECT g.qid AS qid,
    arrayMap(i -> if(g.prompt[i] > 0, 5, if(g.rr_out[i] BETWEEN 1 AND g.k, 4,
      if(g.rr_in[i] > 0, 3, if(g.cand[i] > 0, 2, 1)))), arrayEnumerate(g.cand)) AS codes,
    multiIf(NOT g.answerable, if(g.abstained, 'ok', 'cut'),
            empty(codes), 'incomplete_trace',
            (if(g.any_of, arrayMax(codes), arrayMin(codes)) AS root) = 5,
              if(g.answer_ok, 'ok', 'generation'),
            g.answer_ok, 'ok_without_evidence',
            ['ingestion_or_search', 'search', 'rerank', 'cut'][root]) AS first_failure
  FROM (
    SELECT TraceId, {a}['{c.QUESTION_ID}'] AS qid, any(ev.answerable) AS answerable, any(ev.any_of) AS any_of,
      argMaxIf({pos.format(arr=ids)}, Timestamp, {stage} = 'retrieve') AS cand,
      argMaxIf({pos.format(arr=inp)}, Timestamp, {stage} = 'rerank') AS rr_in,
      argMaxIf({pos.format(arr=ids)}, Timestamp, {stage} = 'rerank') AS rr_out,
      argMaxIf({pos.format(arr=ctx)}, Timestamp, {stage} = 'generate') AS prompt,
      argMaxIf(toInt64OrZero({a}['{c.CUT_K}']), Timestamp, {stage} = 'cut') AS k,
      max({a}['{c.ANSWER_ABSTAINED}'] = 'true') AS abstained,
      maxIf(positionCaseInsensitive({a}['{c.ANSWER_TEXT}'], ev.fact) > 0,
            {stage} = 'generate') AS answer_ok
    FROM {traces} AS t
    INNER JOIN {cases} AS ev ON t.{a}['{c.QUESTION_ID}'] = ev.case_id
    WHERE {stage} != ''
    GROUP BY TraceId, qid
  ) AS g
)"""


def load_baseline_cases(store: Store, cases: CaseSet) -> None:
    store.command(f"DROP TABLE IF EXISTS `{store.database}`.{BASELINE_CASES}")
    store.command(
        f"CREATE TABLE `{store.database}`.{BASELINE_CASES} (case_id String, items Array(String), any_of Bool, "
        "answerable Bool, fact String) ENGINE = MergeTree ORDER BY case_id"
    )
    table = pa.table(
        {
            "case_id": [x.id for x in cases],
            "items": [list(x.evidence_ids) for x in cases],
            "any_of": [isinstance(x.evidence, AnyOf) for x in cases],
            "answerable": [x.answerable for x in cases],
            "fact": [x.facts[0] if x.facts else "" for x in cases],
        }
    )
    store.insert_arrow(BASELINE_CASES, table)


def child(kind: str, path: Path, n: int, n_cases: int, runs: int) -> None:
    """Run only one kind of analysis, ``runs`` times; print timings and peak RSS as JSON."""
    times = []
    extra: dict[str, Any] = {}
    with Store.open(f"chdb://{path}", create=True) as store:
        if kind == "analyze":
            t = time.perf_counter()
            cases = make_cases(n_cases)
            extra["cases_build_s"] = time.perf_counter() - t
            for i in range(runs):
                t = time.perf_counter()
                result = analyze(store, cases)
                times.append(time.perf_counter() - t)
                if i == 0:
                    extra["records"] = result.records.height
                    extra["failures"] = (
                        result.failures.group_by("first_failure").agg(pl.col("count").sum())
                        .sort("first_failure").rows()
                    )  # fmt: skip
                    extra["first_run_rss_bytes"] = peak_rss()
                # Drop the result before the next run: the peak is one analysis's, not two.
                del result
        else:
            sql = baseline_sql(store.traces_table, f"`{store.database}`.{BASELINE_CASES}")
            for _ in range(runs):
                t = time.perf_counter()
                rows = store.query_arrow(sql)
                times.append(time.perf_counter() - t)
                extra["records"] = rows.num_rows
                del rows
    print(json.dumps({"times": times, "rss_bytes": peak_rss(), **extra}))


def peak_rss() -> int:
    """This process's peak resident memory. ``ru_maxrss`` would also count the parent's
    memory at fork (Linux keeps it across exec), so read the address space's own high-water
    mark instead."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_child(kind: str, path: Path, n: int, n_cases: int, runs: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--store", str(path), "--questions", str(n),
         "--cases", str(n_cases), "--runs", str(runs)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=1_000_000)
    parser.add_argument("--store", type=Path, default=Path(".ragfunnel/bench-funnel"))
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--child", choices=["analyze", "baseline"])
    args = parser.parse_args()
    path = args.store.absolute()
    if args.child:
        child(args.child, path, args.questions, args.cases, args.runs)
        return
    n, n_cases = args.questions, min(args.cases, args.questions)
    if not args.reuse:
        print(f"generating {n:,} questions into {path} ...", file=sys.stderr)
        made = generate(path, n, n_cases)
        print(f"  {made['spans']:,.0f} spans: build {made['build_s']:.1f} s, insert "
              f"{made['insert_s']:.1f} s (view parses on insert)", file=sys.stderr)  # fmt: skip
        with Store.open(f"chdb://{path}", create=True) as store:
            load_baseline_cases(store, make_cases(n_cases))
    ours = run_child("analyze", path, n, n_cases, args.runs)
    base = run_child("baseline", path, n, n_cases, args.runs)
    ours_s, base_s = statistics.median(ours["times"]), statistics.median(base["times"])
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "questions": n,
        "cases": n_cases,
        "analyze_median_s": round(ours_s, 3),
        "analyze_first_run_s": round(ours["times"][0], 3),
        "analyze_questions_per_s": round(n / ours_s),
        "analyze_runs_s": [round(t, 3) for t in ours["times"]],
        "analyze_peak_rss_mb": round(ours["rss_bytes"] / 2**20),
        "analyze_first_run_peak_rss_mb": round(ours["first_run_rss_bytes"] / 2**20),
        "cases_build_s": round(ours["cases_build_s"], 2),
        "baseline_median_s": round(base_s, 3),
        "baseline_questions_per_s": round(n / base_s),
        "baseline_peak_rss_mb": round(base["rss_bytes"] / 2**20),
        "speedup_vs_baseline": round(base_s / ours_s, 2),
        "records": ours["records"],
        "first_failures_latest_per_run": dict(ours["failures"]),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
