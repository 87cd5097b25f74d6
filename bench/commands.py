"""Speed as users meet it: whole ``ragfunnel`` commands, each a subprocess, at several sizes.

    python bench/commands.py --quick                 # 2,000 and 10,000 questions, 3 runs: minutes
    python bench/commands.py --runs 5                # the recorded figures (quiet machine):
                                                     # 10k / 50k / 200k questions = 50k / 250k /
                                                     # 1M spans, 10k / 50k / 200k distinct cases
    python bench/commands.py --runs 3 --big          # adds 1M questions: 5M spans, 1M cases
    python bench/commands.py --sizes 200000 --runs 1 --content off

A size is N questions: a cases file of N distinct one-question cases and N traces of five spans
(question root, retrieve with 20 scored candidates, rerank 20 in / 10 out, cut k = 5, generate),
written by the plain OpenTelemetry SDK (``TracerProvider``, spans ended with the usual
ragfunnel attributes of docs/span-contract.md) through ragfunnel's OTLP-JSON file exporter in
batches of 512 spans, as ``BatchSpanProcessor`` hands them over. ``--content on`` (the default)
records the question text, the query, the context texts and the answer; ``off`` leaves them out.
The evidence plan is bench/analyze_e2e.py's. Files are generated once per size and content into
``--data`` (default /work/bench-data/commands, never the repository) and reused.

Each run, for each size, into a fresh store, each step its own process, wall clock from start to
exit, peak RSS of that child alone (its ``VmHWM``, see :func:`run_child`):

1. ``ragfunnel ingest TRACES --store chdb://DIR -q``, then the same with ``--rescan`` (every
   span read again, all of them already stored: issue 19's "within 2x the first ingest");
2. ``ragfunnel analyze --cases CASES --store chdb://DIR`` — the store's first analysis, cases
   file loading and first-time preparation included;
3. ``ragfunnel report --cases CASES --store chdb://DIR --html OUT -q``;
4. ``ragfunnel judge --policy offline --cases CASES --store chdb://DIR -q``;
5. baselines: ingest — one plain ``INSERT INTO … SELECT … FROM file(TRACES, 'JSONAsString')``
   through chdb that flattens the spans with ``ARRAY JOIN`` into a table of their ids, times
   and raw attributes (no stage view); analyze — bench/analyze_e2e.py's naive child
   (``json.loads`` per case line, one hand-written query, bench/funnel.py's ``baseline_sql``).

``--steps`` runs only some of them (``ingest rescan analyze baselines`` leaves out the report
and the judge, which take minutes at 200k questions); a command's baseline always runs with it. Medians over the runs are printed as a table of spans/s and questions/s per size, with the
machine, ``os.getloadavg()`` before and after, and the command line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import analyze_e2e as e2e  # noqa: E402 - the evidence plan and the naive analysis baseline

from ragfunnel.instrumentation import contract as c  # noqa: E402

DATA = Path("/work/bench-data/commands")
DEFAULT_SIZES = [10_000, 50_000, 200_000]
QUICK_SIZES = [2_000, 10_000]
BIG = 1_000_000
BATCH = 512
T0 = 1_790_000_000_000_000_000
FILLER = (
    "Employees may carry over up to five unused days into the next year, provided their "
    "manager approves the request before the end of March. "
)


def _sdk_writer(path: Path, seed: int) -> tuple[Any, Any, Any]:
    """A tracer whose spans go, 512 at a time, through the OTLP-JSON file exporter."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.id_generator import IdGenerator

    from ragfunnel.instrumentation.file_export import JsonLinesSpanExporter

    rng = random.Random(seed)

    class Ids(IdGenerator):  # reproducible files
        def generate_span_id(self) -> int:
            return rng.getrandbits(64) or 1

        def generate_trace_id(self) -> int:
            return rng.getrandbits(128) or 1

    exporter = JsonLinesSpanExporter(path)

    class Batches(SpanProcessor):
        """BatchSpanProcessor's batches, exported in line (it drops spans past its queue)."""

        def __init__(self) -> None:
            self.pending: list[Any] = []

        def on_end(self, span: Any) -> None:
            self.pending.append(span)
            if len(self.pending) == BATCH:
                self.force_flush()

        def force_flush(self, timeout_millis: int = 30_000) -> bool:
            if self.pending:
                exporter.export(self.pending)
                self.pending = []
            return True

    processor = Batches()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "rag-api"}), id_generator=Ids()
    )
    provider.add_span_processor(processor)
    return provider.get_tracer(c.INSTRUMENTATION_SCOPE, "0.1.0"), processor, exporter


def write_traces(path: Path, p: dict[str, np.ndarray], content: bool) -> int:
    """One trace of five SDK spans per case; returns the span count."""
    from opentelemetry.trace import SpanKind, set_span_in_context

    tracer, processor, exporter = _sdk_writer(path, e2e.SEED)
    n = len(p["n_ev"])
    chunk_ids = [e2e.chunk_id(x) for x in range(e2e.CORPUS)]
    rng = np.random.default_rng(e2e.SEED)
    spans = 0
    for first in range(0, n, e2e.CHUNK):
        count = min(e2e.CHUNK, n - first)
        cands = rng.choice(e2e.CORPUS, size=(count, e2e.CANDIDATES), replace=True)
        for ev in range(2):  # each expected chunk at a random rank, sometimes beyond the list
            rank = np.minimum(rng.geometric(0.2, size=count) - 1, e2e.CANDIDATES + 5)
            rows = np.nonzero(rank < e2e.CANDIDATES)[0]
            cands[rows, rank[rows]] = p["ev"][first + rows, ev]
        scores = np.round(np.sort(rng.random((count, e2e.CANDIDATES)))[:, ::-1], 4).tolist()
        noise = rng.random((count, e2e.CANDIDATES)) - np.linspace(1, 0, e2e.CANDIDATES)
        rr_out = np.take_along_axis(cands, np.argsort(noise, axis=1), axis=1)[:, : e2e.RERANK_OUT]
        rr_scores = np.round(np.sort(rng.random((count, e2e.RERANK_OUT)))[:, ::-1], 4).tolist()
        lucky = (rng.random(count) < 0.1).tolist()
        for row in range(count):
            i = first + row
            qid, start = f"q-{i:07d}", T0 + i * 1_000_000
            common = {c.QUESTION_ID: qid, c.RUN_ID: e2e.RUN, c.SCHEMA: c.SCHEMA_VERSION}
            cand = [chunk_ids[x] for x in cands[row].tolist()]
            out = [chunk_ids[x] for x in rr_out[row].tolist()]
            kept = out[: e2e.CUT_K]
            evidence = {chunk_ids[x] for x in p["ev"][i, : p["n_ev"][i]].tolist()}
            in_prompt = evidence <= set(kept)
            answer = f"The answer is fact{i}." if (in_prompt or lucky[row]) else "Something else."
            question = f"Question number {i}?"
            root_attrs = {c.STAGE: "question", **common, c.ANSWER_ABSTAINED: False,
                          c.OPENINFERENCE_KIND: "CHAIN"}  # fmt: skip
            if content:
                root_attrs[c.QUESTION_TEXT] = question
            root = tracer.start_span("question", attributes=root_attrs, start_time=start,
                                     kind=SpanKind.SERVER)  # fmt: skip
            ctx = set_span_in_context(root)
            retrieve = {c.STAGE: "retrieve", **common, c.RETRIEVER_NAME: "bm25",
                        c.TOP_K: e2e.CANDIDATES, c.DOCUMENTS_IDS: cand,
                        c.DOCUMENTS_SCORES: scores[row], c.OPENINFERENCE_KIND: "RETRIEVER"}  # fmt: skip
            if content:
                retrieve[c.QUERY] = question
            rerank = {c.STAGE: "rerank", **common, c.RERANKER_MODEL: "ms-marco-MiniLM-L-6-v2",
                      c.INPUT_IDS: cand, c.DOCUMENTS_IDS: out, c.DOCUMENTS_SCORES: rr_scores[row],
                      c.TOP_N: e2e.RERANK_OUT, c.OPENINFERENCE_KIND: "RERANKER"}  # fmt: skip
            cut = {c.STAGE: "cut", **common, c.INPUT_IDS: out, c.DOCUMENTS_IDS: kept,
                   c.CUT_K: e2e.CUT_K, c.OPENINFERENCE_KIND: "CHAIN"}  # fmt: skip
            generate = {c.STAGE: "generate", **common, c.CONTEXT_IDS: kept, c.MODE: "pipeline",
                        c.GEN_AI_REQUEST_MODEL: "gpt-4o-mini", c.GEN_AI_INPUT_TOKENS: 1800,
                        c.GEN_AI_OUTPUT_TOKENS: 60, c.OPENINFERENCE_KIND: "LLM"}  # fmt: skip
            if content:
                generate[c.ANSWER_TEXT] = answer
                generate[c.CONTEXT_TEXTS] = [f"{k}: {FILLER}" for k in kept]
            for offset, (name, attrs) in enumerate(
                [("retrieve bm25", retrieve), ("rerank cross-encoder", rerank),
                 ("cut top-5", cut), ("generate gpt-4o-mini", generate)], start=1
            ):  # fmt: skip
                span = tracer.start_span(name, context=ctx, attributes=attrs,
                                         start_time=start + offset * 1_000)  # fmt: skip
                span.end(end_time=start + offset * 1_000 + 900_000)
            root.end(end_time=start + 950_000)
            spans += 5
    processor.force_flush()
    exporter.shutdown()
    return spans


def files_for(data: Path, n: int, content: bool) -> tuple[Path, Path, int]:
    """The cases and traces files of ``n`` questions, written once and reused."""
    folder = data / f"q{n}-content-{'on' if content else 'off'}"
    meta = folder / "files.json"
    cases, traces = folder / "cases.jsonl", folder / "traces.jsonl"
    if meta.exists() and traces.exists() and cases.exists():
        return cases, traces, int(json.loads(meta.read_text())["spans"])
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    p = e2e.plan(n)
    e2e.write_cases(cases, p)
    spans = write_traces(traces, p, content)
    meta.write_text(json.dumps({"questions": n, "spans": spans, "seed": e2e.SEED}))
    print(f"generated {n:,} cases and {spans:,} SDK spans ({traces.stat().st_size / 1e6:,.0f} MB, "
          f"{traces.stat().st_size / spans:,.0f} B/span) in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)  # fmt: skip
    return cases, traces, spans


INGEST_BASELINE = """
INSERT INTO spans
SELECT JSONExtractString(s, 'traceId'), JSONExtractString(s, 'spanId'),
       JSONExtractString(s, 'parentSpanId'), JSONExtractString(s, 'name'),
       toUInt64OrZero(JSONExtractString(s, 'startTimeUnixNano')),
       toUInt64OrZero(JSONExtractString(s, 'endTimeUnixNano')), JSONExtractRaw(s, 'attributes')
FROM file('{path}', 'JSONAsString')
ARRAY JOIN JSONExtractArrayRaw(json, 'resourceSpans') AS rs
ARRAY JOIN JSONExtractArrayRaw(rs, 'scopeSpans') AS ss
ARRAY JOIN JSONExtractArrayRaw(ss, 'spans') AS s
"""


def ingest_baseline_child(store: str, traces: str) -> None:
    """The plain way: one INSERT … SELECT … FROM file() through chdb, no ragfunnel."""
    from chdb import session

    with session.Session(store) as db:  # type: ignore[no-untyped-call]
        db.query(
            "CREATE TABLE spans (TraceId String, SpanId String, ParentSpanId String, "
            "Name String, Start UInt64, End UInt64, Attributes String) "
            "ENGINE = MergeTree ORDER BY (Name, Start)"
        )
        db.query(INGEST_BASELINE.format(path=traces.replace("'", "\\'")))
        print(db.query("SELECT count() FROM spans", "CSV").bytes().decode().strip())


def run_child(argv: list[str]) -> dict[str, Any]:
    """Run a child to exit: its wall seconds and its own peak RSS (``VmHWM``, polled).

    Not ``os.wait4``'s ``ru_maxrss``: Linux carries the spawning process's high-water mark
    across ``exec`` into the child, so a child of this process (which may have generated the
    traces and hold them) would "peak" at this process's size. ``Popen`` returns after the
    ``exec``, so every reading is the child's own memory; ``VmHWM`` only grows, so polling every
    20 ms misses at most the last 20 ms of growth.
    """
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak_kb = [0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            try:
                with open(f"/proc/{child.pid}/status") as status:
                    for line in status:
                        if line.startswith("VmHWM:"):
                            peak_kb[0] = max(peak_kb[0], int(line.split()[1]))
            except OSError:
                pass
            done.wait(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out, err = child.communicate()
    done.set()
    watcher.join()
    seconds = time.perf_counter() - started
    if child.returncode:
        sys.stderr.write(out.decode(errors="replace") + err.decode(errors="replace"))
        raise SystemExit(f"failed ({child.returncode}): {' '.join(argv)}")
    return {"seconds": seconds, "rss": peak_kb[0] * 1024, "stdout": out.decode()}


STEPS = ("ingest", "rescan", "analyze", "report", "judge", "baselines")


def one_size(
    work: Path, n: int, runs: int, content: bool, data: Path, steps_run: tuple[str, ...] = STEPS
) -> dict[str, Any]:
    cases, traces, spans = files_for(data, n, content)
    ragfunnel = shutil.which("ragfunnel") or "ragfunnel"
    me = [sys.executable, str(Path(__file__).resolve())]
    steps: dict[str, list[dict[str, Any]]] = {}
    for run in range(runs):
        store = work / f"store-{n}-{run}"
        shutil.rmtree(store, ignore_errors=True)
        dsn, html = f"chdb://{store}", work / f"report-{n}.html"
        plan = {
            "ingest": [ragfunnel, "ingest", str(traces), "--store", dsn, "-q"],
            "rescan": [ragfunnel, "ingest", str(traces), "--store", dsn, "-q", "--rescan"],
            "analyze": [ragfunnel, "analyze", "--cases", str(cases), "--store", dsn],
            "report": [
                ragfunnel,
                "report",
                "--cases",
                str(cases),
                "--store",
                dsn,
                "--html",
                str(html),
                "-q",
            ],
            "judge": [
                ragfunnel,
                "judge",
                "--policy",
                "offline",
                "--cases",
                str(cases),
                "--store",
                dsn,
                "-q",
            ],
            "analyze baseline": [*me, "--analyze-baseline", dsn, str(cases), str(work / "b.json")],
            "ingest baseline": [
                *me,
                "--ingest-baseline",
                str(work / f"plain-{n}-{run}"),
                str(traces),
            ],
        }
        for step, argv in plan.items():
            if step.replace(" baseline", "") not in steps_run and not (
                step.endswith("baseline") and "baselines" in steps_run
            ):
                continue
            result = run_child(argv)
            steps.setdefault(step, []).append(result)
            print(f"  {n:,} questions, run {run + 1}: {step} {result['seconds']:.2f} s, "
                  f"{result['rss'] / 2**20:,.0f} MiB", file=sys.stderr)  # fmt: skip
        shutil.rmtree(store, ignore_errors=True)
        shutil.rmtree(work / f"plain-{n}-{run}", ignore_errors=True)
    return {
        "questions": n,
        "spans": spans,
        "bytes": traces.stat().st_size,
        "steps": {
            step: {
                "median_s": statistics.median(r["seconds"] for r in results),
                "runs_s": [round(r["seconds"], 2) for r in results],
                "peak_rss_mib": max(r["rss"] for r in results) / 2**20,
            }
            for step, results in steps.items()
        },
    }


def print_table(results: list[dict[str, Any]]) -> None:
    print("| questions | spans (MB) | ingest spans/s (peak MiB) | plain INSERT spans/s | "
          "rescan s (x first ingest) | first analyze q/s (peak MiB) | naive query q/s | "
          "report s | judge s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        s = r["steps"]

        def rate(step: str, count: int, s: dict[str, Any] = s) -> str:
            return f"{count / s[step]['median_s']:,.0f}" if step in s else "-"

        def secs(step: str, s: dict[str, Any] = s) -> str:
            return f"{s[step]['median_s']:.2f}" if step in s else "-"

        def peak(step: str, s: dict[str, Any] = s) -> str:
            return f"{s[step]['peak_rss_mib']:,.0f}" if step in s else "-"

        times = (
            f"{s['rescan']['median_s'] / s['ingest']['median_s']:.2f}"
            if "rescan" in s and "ingest" in s
            else "-"
        )

        print(
            f"| {r['questions']:,} | {r['spans']:,} ({r['bytes'] / 1e6:,.0f}) | "
            f"{rate('ingest', r['spans'])} ({peak('ingest')}) | "
            f"{rate('ingest baseline', r['spans'])} | {secs('rescan')} ({times}) | "
            f"{rate('analyze', r['questions'])} ({peak('analyze')}) | "
            f"{rate('analyze baseline', r['questions'])} | {secs('report')} | {secs('judge')} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", help="questions per size")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="2,000 and 10,000 questions, 3 runs")
    parser.add_argument("--big", action="store_true", help="add 1,000,000 questions (5M spans)")
    parser.add_argument("--content", choices=["on", "off"], default="on")
    parser.add_argument("--data", type=Path, default=DATA, help="generated files (reused)")
    parser.add_argument("--workdir", type=Path, default=None, help="stores (default: a temp dir)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--steps", nargs="+", choices=STEPS, default=list(STEPS))
    parser.add_argument("--ingest-baseline", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--analyze-baseline", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ingest_baseline:
        ingest_baseline_child(*args.ingest_baseline)
        return
    if args.analyze_baseline:
        store, cases, report = args.analyze_baseline
        e2e.baseline_child(store, Path(cases), Path(report))
        return
    sizes = args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)
    runs = 3 if args.quick and args.runs == 5 else args.runs
    if args.big and BIG not in sizes:
        sizes = [*sizes, BIG]
    import tempfile

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="ragfunnel-commands-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        steps = tuple(args.steps)
        results = [one_size(work, n, runs, args.content == "on", args.data, steps) for n in sizes]
    load_after = os.getloadavg()
    print(f"command: {' '.join(sys.argv)}")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, medians of {runs} runs, content capture {args.content}")  # fmt: skip
    print(f"load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; "
          f"after: {', '.join(f'{x:.2f}' for x in load_after)}")  # fmt: skip
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps({"load_before": load_before, "load_after": load_after,
                                         "runs": runs, "results": results}, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
