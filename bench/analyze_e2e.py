"""End-to-end analysis speed as a user meets it: ``ragfunnel ingest``, then ``ragfunnel analyze``.

    python bench/analyze_e2e.py                     # 200,000 distinct cases, 3 runs
    python bench/analyze_e2e.py --cases 1000000     # the target size: a million distinct cases
    python bench/analyze_e2e.py --runs 5 --workdir /tmp/ragfunnel-e2e
    python bench/analyze_e2e.py --cases 1000000 --reuse   # the files of an earlier run, if any

N distinct one-question cases are written as a JSON Lines cases file, and one trace per case as
OTLP JSON lines, the way the SDK's JSON file exporter writes them (batches of 512 spans): a
question root, a retrieve span (20 candidates with scores), a rerank span (20 in, 10 out), a
cut span (k = 5) and a generate span with the answer text — 5 spans per case. 5 % of the cases
are unanswerable; the others need 1 or 2 chunks (``all_of`` or ``any_of``), placed at random
ranks or missing, so every first failure occurs.

Each run starts from a fresh embedded store and times, each in its own child process:

- **ingest**: ``ragfunnel ingest TRACES --store chdb:///…`` (reported as spans/s);
- **analyze**: ``ragfunnel analyze --cases FILE --store chdb:///…``, wall clock from process
  start to exit: interpreter start, loading and validating the cases file, any first-time
  preparation of the store, the funnel, the summary on stdout. Peak RSS is the child's own
  high-water mark (``VmHWM``);
- **baseline**: the naive hand-written way, in one child process: read the cases file with
  ``json.loads`` per line, insert it as a table, and run one query over ``otel_traces`` that
  parses the JSON id lists on every read, joins the cases on the question id, finds each
  expected id's rank per stage and classifies the first failure with ``multiIf`` (no reasons,
  no metrics, no intervals).

The report (JSON on stdout) gives medians over the runs and the ratio to the baseline.

``--quotes`` (issue 32: cases that survive re-chunking) adds one ingest span per document (8
chunks each, with their texts, index version v1) and a second cases file with the same evidence
named by document + quote; each run then also times ``ragfunnel analyze`` with the quote cases,
on the same store, right after the chunk-id one: the difference is what resolving the quotes
against the index costs the first analysis.
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
import pyarrow as pa
from funnel import baseline_sql

from ragfunnel.instrumentation import contract as c

SEED = 20261201
CORPUS = 400_000
CANDIDATES = 20
RERANK_OUT = 10
CUT_K = 5
BATCH = 512  # BatchSpanProcessor's default max_export_batch_size
CHUNK = 20_000
T0 = 1_790_000_000_000_000_000
RUN = "run-e2e"
BASELINE_CASES = "bench_e2e_cases"


def chunk_id(n: int) -> str:
    return f"doc{n // 8:06d}#section-{n % 8}"


def chunk_text(n: int) -> str:
    """The text of chunk n (``--quotes``): unique, the quote is its second sentence."""
    return f"Section {n % 8} of document {n // 8}. Item {n} costs {n * 7 % 1000} EUR per night."


def chunk_quote(n: int) -> dict[str, str]:
    return {"document": f"doc{n // 8:06d}", "quote": f"Item {n} costs {n * 7 % 1000} EUR"}


def plan(n: int) -> dict[str, np.ndarray]:
    """Per case: its expected chunks, how many, any_of or all_of, answerable or not."""
    rng = np.random.default_rng(SEED)
    ev = rng.choice(CORPUS, size=(n, 2), replace=True)
    ev[:, 1] = np.where(ev[:, 1] == ev[:, 0], (ev[:, 0] + 1) % CORPUS, ev[:, 1])
    return {
        "ev": ev,
        "n_ev": rng.choice([1, 2], size=n, p=[0.4, 0.6]),
        "any": rng.random(n) < 0.3,
        "answerable": rng.random(n) >= 0.05,
    }


def write_cases(path: Path, p: dict[str, np.ndarray], *, quotes: bool = False) -> None:
    """The cases as JSON Lines, one per line (evidence as document + quote with ``quotes``)."""
    leaf = chunk_quote if quotes else chunk_id
    with path.open("w", encoding="utf-8") as out:
        for i in range(len(p["n_ev"])):
            case: dict[str, Any] = {"id": f"q-{i:07d}", "question": f"Question number {i}?"}
            if not p["answerable"][i]:
                case["answerable"] = False
            else:
                ids = [leaf(int(x)) for x in p["ev"][i, : p["n_ev"][i]]]
                case["evidence"] = (
                    ids[0] if len(ids) == 1 else {("any_of" if p["any"][i] else "all_of"): ids}
                )
                case["facts"] = [f"fact{i}"]
            out.write(json.dumps(case) + "\n")


def _ids(values: list[str]) -> str:
    return '{"arrayValue":{"values":[' + ",".join(values) + "]}}"


def _attr(key: str, value: str) -> str:
    return f'{{"key":"{key}","value":{value}}}'


def _text(value: str) -> str:
    return json.dumps({"stringValue": value})


def _span(trace: str, span: str, parent: str, name: str, start: int, attrs: list[str]) -> str:
    parent_part = f'"parentSpanId":"{parent}",' if parent else ""
    return (
        f'{{"traceId":"{trace}","spanId":"{span}",{parent_part}"flags":256,"name":"{name}",'
        f'"kind":1,"startTimeUnixNano":"{start}","endTimeUnixNano":"{start + 900_000}",'
        f'"attributes":[{",".join(attrs)}],"status":{{}}}}'
    )


def question_spans(
    first: int, count: int, p: dict[str, np.ndarray], quoted: np.ndarray
) -> list[str]:
    """The spans (as OTLP JSON objects) of cases first .. first+count-1, one trace each."""
    rng = np.random.default_rng(SEED + first)
    idx = np.arange(first, first + count)
    cands = rng.choice(CORPUS, size=(count, CANDIDATES), replace=True)
    for e in range(2):  # each expected chunk at a random rank, sometimes beyond the list
        rank = np.minimum(rng.geometric(0.2, size=count) - 1, CANDIDATES + 5)
        rows = np.nonzero(rank < CANDIDATES)[0]
        cands[rows, rank[rows]] = p["ev"][idx[rows], e]
    scores = np.sort(rng.random((count, CANDIDATES)))[:, ::-1]
    order = np.argsort(rng.random((count, CANDIDATES)) - np.linspace(1, 0, CANDIDATES), axis=1)
    rr_out = np.take_along_axis(cands, order, axis=1)[:, :RERANK_OUT]
    rr_scores = np.sort(rng.random((count, RERANK_OUT)))[:, ::-1]
    kept = rr_out[:, :CUT_K]
    lucky = rng.random(count) < 0.1
    score_text = np.char.mod('{"doubleValue":%.4f}', np.round(scores, 4)).astype(object)
    rr_score_text = np.char.mod('{"doubleValue":%.4f}', np.round(rr_scores, 4)).astype(object)
    common_run = _attr(c.RUN_ID, _text(RUN))
    schema = _attr(c.SCHEMA, _text("1"))
    out = []
    for row, i in enumerate(idx.tolist()):
        trace, base = f"{i + 1:032x}", (i + 1) * 8
        root = f"{base:016x}"
        start = T0 + i * 1_000_000
        qid = _attr(c.QUESTION_ID, _text(f"q-{i:07d}"))
        evidence = set(p["ev"][i, : p["n_ev"][i]].tolist())
        in_prompt = evidence <= set(kept[row].tolist())
        answer = f"The answer is fact{i}." if (in_prompt or lucky[row]) else "Something else."
        cand_ids = _ids(quoted[cands[row]].tolist())
        out_ids = _ids(quoted[rr_out[row]].tolist())
        kept_ids = _ids(quoted[kept[row]].tolist())
        out += [
            _span(trace, f"{base + 1:016x}", root, "retrieve bm25", start + 1000, [
                _attr(c.STAGE, _text("retrieve")), qid, common_run, schema,
                _attr(c.RETRIEVER_NAME, _text("bm25")),
                _attr(c.TOP_K, f'{{"intValue":"{CANDIDATES}"}}'),
                _attr(c.DOCUMENTS_IDS, cand_ids),
                _attr(c.DOCUMENTS_SCORES, _ids(score_text[row].tolist())),
            ]),
            _span(trace, f"{base + 2:016x}", root, "rerank cross-encoder", start + 2000, [
                _attr(c.STAGE, _text("rerank")), qid, common_run, schema,
                _attr(c.INPUT_IDS, cand_ids), _attr(c.DOCUMENTS_IDS, out_ids),
                _attr(c.DOCUMENTS_SCORES, _ids(rr_score_text[row].tolist())),
                _attr(c.TOP_N, f'{{"intValue":"{RERANK_OUT}"}}'),
            ]),
            _span(trace, f"{base + 3:016x}", root, "cut top-5", start + 3000, [
                _attr(c.STAGE, _text("cut")), qid, common_run, schema,
                _attr(c.INPUT_IDS, out_ids), _attr(c.DOCUMENTS_IDS, kept_ids),
                _attr(c.CUT_K, f'{{"intValue":"{CUT_K}"}}'),
            ]),
            _span(trace, f"{base + 4:016x}", root, "generate gpt-4o-mini", start + 4000, [
                _attr(c.STAGE, _text("generate")), qid, common_run, schema,
                _attr(c.CONTEXT_IDS, kept_ids), _attr(c.ANSWER_TEXT, _text(answer)),
                _attr(c.MODE, _text("pipeline")),
            ]),
            _span(trace, root, "", "question", start, [
                _attr(c.STAGE, _text("question")), qid, common_run, schema,
                _attr(c.ANSWER_ABSTAINED, '{"boolValue":false}'),
            ]),
        ]  # fmt: skip
    return out


def ingest_spans() -> list[str]:
    """One ingest span per document of the corpus (8 chunks, with texts), index version v1."""
    version = _attr(c.INDEX_VERSION, _text("v1"))
    out = []
    for d in range(CORPUS // 8):
        chunks = range(8 * d, 8 * d + 8)
        out.append(_span(f"{10**12 + d:032x}", f"{10**12 + d:016x}", "", "ingest",
                         T0 - 10**9 + d * 1000, [
            _attr(c.STAGE, _text("ingest")), _attr(c.DOCUMENT_ID, _text(f"doc{d:06d}")), version,
            _attr(c.CHUNKS_IDS, _ids([_text(chunk_id(n)) for n in chunks])),
            _attr(c.CHUNKS_TEXTS, _ids([_text(chunk_text(n)) for n in chunks])),
        ]))  # fmt: skip
    return out


def write_traces(path: Path, p: dict[str, np.ndarray], *, ingest: bool = False) -> int:
    """One trace per case as OTLP JSON lines of 512 spans (first the ingest spans, with
    ``ingest``); returns the span count."""
    quoted = np.array([_text(chunk_id(x)) for x in range(CORPUS)], dtype=object)
    head = (
        '{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":'
        '{"stringValue":"rag-bench"}}]},"scopeSpans":[{"scope":{"name":"ragfunnel",'
        '"version":"0.1.0"},"spans":['
    )
    n, spans = len(p["n_ev"]), 0
    pending = ingest_spans() if ingest else []
    with path.open("w", encoding="utf-8") as out:
        for first in range(0, n, CHUNK):
            pending += question_spans(first, min(CHUNK, n - first), p, quoted)
            while len(pending) >= BATCH or (pending and first + CHUNK >= n):
                batch, pending = pending[:BATCH], pending[BATCH:]
                out.write(head + ",".join(batch) + "]}]}]}\n")
                spans += len(batch)
    return spans


def peak_rss() -> int:
    """This process's own peak resident memory (``VmHWM``), in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def cli_child(args: list[str], report: Path) -> None:
    """Run ``ragfunnel ARGS`` in this process as the console script does; write its peak RSS."""
    from ragfunnel.analyzer.cli import main

    sys.argv = ["ragfunnel", *args]
    code: int | str | None = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    report.write_text(json.dumps({"code": code, "rss_bytes": peak_rss()}))


def baseline_child(store: str, cases: Path, report: Path) -> None:
    """The naive way end to end: json.loads per line, a cases table, one query."""
    from ragfunnel.analyzer.store import Store

    ids, items, any_of, answerable, facts = [], [], [], [], []
    with cases.open(encoding="utf-8") as lines:
        for line in lines:
            case = json.loads(line)
            ev = case.get("evidence")
            group = ev if isinstance(ev, dict) else {"all_of": [ev] if ev else []}
            ids.append(case["id"])
            items.append(next(iter(group.values())))
            any_of.append("any_of" in group)
            answerable.append(case.get("answerable", True))
            facts.append((case.get("facts") or [""])[0])
    table = pa.table({"case_id": ids, "items": items, "any_of": any_of,
                      "answerable": answerable, "fact": facts})  # fmt: skip
    # Paused merges, as for `ragfunnel analyze` (Store.open_for_analysis): the same machine.
    with Store.open(store, create=True) as opened, opened.merges_paused():
        db = opened.database
        opened.command(f"DROP TABLE IF EXISTS `{db}`.{BASELINE_CASES}")
        opened.command(
            f"CREATE TABLE `{db}`.{BASELINE_CASES} (case_id String, items Array(String), "
            "any_of Bool, answerable Bool, fact String) ENGINE = MergeTree ORDER BY case_id"
        )
        opened.insert_arrow(BASELINE_CASES, table)
        rows = opened.query_arrow(baseline_sql(f"`{db}`.otel_traces", f"`{db}`.{BASELINE_CASES}"))
        counts: dict[str, int] = {}
        for value in rows.column("first_failure").to_pylist():
            counts[value] = counts.get(value, 0) + 1
        opened.command(f"DROP TABLE IF EXISTS `{db}`.{BASELINE_CASES}")
    report.write_text(json.dumps({"code": 0, "rss_bytes": peak_rss(), "rows": rows.num_rows,
                                  "first_failures": counts}))  # fmt: skip


def timed(argv: list[str], report: Path) -> dict[str, Any]:
    """Run a child to completion; its wall time (process start to exit) and its report."""
    report.unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0 or not report.exists():
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"child failed: {' '.join(argv)}")
    result: dict[str, Any] = json.loads(report.read_text())
    if result["code"] not in (0, None):
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"ragfunnel exited with {result['code']}: {' '.join(argv)}")
    return {**result, "seconds": seconds, "stdout": done.stdout}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=200_000, help="distinct cases (= questions)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path(".ragfunnel/bench-e2e"))
    parser.add_argument(
        "--reuse", action="store_true", help="keep the cases and traces files of the same size"
    )
    parser.add_argument(
        "--quotes", action="store_true", help="also time the cases as document + quote"
    )
    parser.add_argument("--cli", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cli:
        cli_child(args.cli[1:], Path(args.cli[0]))
        return
    if args.baseline:
        store, cases, report = args.baseline
        baseline_child(store, Path(cases), Path(report))
        return
    work = args.workdir.absolute()
    work.mkdir(parents=True, exist_ok=True)
    n = args.cases
    cases, traces, report = work / "cases.jsonl", work / "traces.jsonl", work / "child.json"
    quoted = work / "cases-quotes.jsonl"
    meta = work / "files.json"
    made = json.loads(meta.read_text()) if args.reuse and meta.exists() else {}
    same = made.get("cases") == n and made.get("seed") == SEED and made.get("quotes") == args.quotes
    if same and traces.exists():
        spans = int(made["spans"])
    else:
        p = plan(n)
        t = time.perf_counter()
        write_cases(cases, p)
        if args.quotes:
            write_cases(quoted, p, quotes=True)
        spans = write_traces(traces, p, ingest=args.quotes)
        meta.write_text(
            json.dumps({"cases": n, "seed": SEED, "spans": spans, "quotes": args.quotes})
        )
        print(f"wrote {n:,} cases and {spans:,} spans in {time.perf_counter() - t:.0f} s "
              f"({traces.stat().st_size / 2**20:,.0f} MiB of traces)", file=sys.stderr)  # fmt: skip
    me = [sys.executable, str(Path(__file__).absolute())]
    runs: list[dict[str, Any]] = []
    for i in range(args.runs):
        path = work / "store"
        shutil.rmtree(path, ignore_errors=True)
        dsn = f"chdb://{path}"
        ingest = timed([*me, "--cli", str(report), "ingest", str(traces), "--store", dsn, "-q"],
                       report)  # fmt: skip
        analyze = timed([*me, "--cli", str(report), "analyze", "--cases", str(cases),
                         "--store", dsn], report)  # fmt: skip
        quotes = None
        if args.quotes:
            quotes = timed([*me, "--cli", str(report), "analyze", "--cases", str(quoted),
                            "--store", dsn], report)  # fmt: skip
        base = timed([*me, "--baseline", dsn, str(cases), str(report)], report)
        runs.append({"ingest": ingest, "analyze": analyze, "baseline": base, "quotes": quotes})
        print(f"run {i + 1}: ingest {ingest['seconds']:.1f} s, analyze {analyze['seconds']:.1f} s "
              f"({analyze['rss_bytes'] / 2**20:,.0f} MiB), baseline {base['seconds']:.1f} s"
              + (f", analyze with quotes {quotes['seconds']:.1f} s" if quotes else ""),
              file=sys.stderr)  # fmt: skip
    shutil.rmtree(work / "store", ignore_errors=True)

    def median(kind: str, key: str = "seconds") -> float:
        return statistics.median(run[kind][key] for run in runs)

    analyze_s, base_s, ingest_s = median("analyze"), median("baseline"), median("ingest")
    quoted_report = {}
    if args.quotes:
        quotes_s = median("quotes")
        quoted_report = {
            "quotes_analyze_median_s": round(quotes_s, 2),
            "quotes_analyze_runs_s": [round(r["quotes"]["seconds"], 2) for r in runs],
            "quotes_peak_rss_mib": [round(r["quotes"]["rss_bytes"] / 2**20) for r in runs],
            "quotes_over_ids": round(quotes_s / analyze_s, 3),
            "quotes_summary": runs[-1]["quotes"]["stdout"].splitlines()[:12],
        }
    print(json.dumps({
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_at_end": round(os.getloadavg()[0], 2),
        "cases": n,
        "spans": spans,
        "ingest_median_s": round(ingest_s, 2),
        "ingest_spans_per_s": round(spans / ingest_s),
        "ingest_runs_s": [round(r["ingest"]["seconds"], 2) for r in runs],
        "analyze_median_s": round(analyze_s, 2),
        "analyze_questions_per_s": round(n / analyze_s),
        "analyze_runs_s": [round(r["analyze"]["seconds"], 2) for r in runs],
        "analyze_peak_rss_mib": [round(r["analyze"]["rss_bytes"] / 2**20) for r in runs],
        "baseline_median_s": round(base_s, 2),
        "baseline_questions_per_s": round(n / base_s),
        "baseline_runs_s": [round(r["baseline"]["seconds"], 2) for r in runs],
        "baseline_peak_rss_mib": [round(r["baseline"]["rss_bytes"] / 2**20) for r in runs],
        "speedup_vs_baseline": round(base_s / analyze_s, 2),
        "baseline_first_failures": runs[-1]["baseline"]["first_failures"],
        "analyze_summary": runs[-1]["analyze"]["stdout"].splitlines()[:12],
        **quoted_report,
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
