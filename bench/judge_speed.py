"""``ragfunnel judge --policy offline`` as a user meets it, at real prompt sizes (issue 35).

Answers of five real sentences against prompts of four to eight real paragraphs (chunks added
until the prompt holds about 1,400 words), in two shapes:

- ``shared``: every prompt draws its chunks from one corpus of paragraphs, so the same chunks
  come back in many prompts, as in a real app (1,000 paragraphs: each in ~20 of 3,000 prompts);
- ``fresh``: every prompt new — each chunk is a paragraph with its sentences in an order of its
  own, so no chunk text repeats and no chunk cache can help.

Each answer has five claims: three sentences of its prompt, one of them with a number changed
when it has one, one sentence of a paragraph outside the prompt and one more of the prompt.
Paragraphs: the PubMedQA abstracts that bench/judge_data.py extracts (``--data``, default
/work/judge-data/pubmedqa-abstracts.jsonl; never shipped).

The answers are written once per shape and size as OTLP-JSON traces (a question span and a
generate span with the prompt's chunk ids and texts and the answer), ingested once; each run
times ``ragfunnel judge --policy offline --store chdb://STORE -q`` on it as a subprocess (the
offline policy reads no earlier verdicts: each run judges every answer and writes its rows), wall clock from start to exit, with the child's peak RSS (``VmHWM``, as
bench/commands.py measures it). The baseline, in the same run over the same pairs: a child that
reads the pairs and scores each claim by the naive word overlap of bench/judge.py.

``--tree NAME=DIR`` (repeatable) runs the judge from a source tree (a ``git archive`` of another
commit: ``PYTHONPATH=DIR``, so the judge's workers import it too), alternating the trees within
each run, and checks that every tree wrote the same verdict rows (judged-at times left out),
counting the rows that differ from the first tree's. ``--judge-args NAME=ARGS`` adds arguments
to the command of the tree NAME, or runs the installed ragfunnel under a new NAME with them
(``--judge-args w1="--workers 1" --judge-args w2="--workers 2"``). Beside the child's own peak RSS and
CPU, the whole process tree's (the judge's workers, ``--workers``, are grandchildren), polled.

    python bench/judge_speed.py --answers 3000 --runs 3 \
        --tree before=/tmp/before --tree after=/tmp/after
    python bench/judge_speed.py --answers 10000 100000 --runs 1 --shapes shared   # memory
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from commands import _sdk_writer, run_child  # noqa: E402 - the SDK writer and child timing

from ragfunnel.instrumentation import contract as c  # noqa: E402

DATA = Path(os.environ.get("RAGFUNNEL_JUDGE_DATA", "/work/judge-data"))
WORK = Path("/work/bench-data/judge-speed")
SHAPES = ("shared", "fresh")
PROMPT_WORDS = 1_400
T0 = 1_790_000_000_000_000_000
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def paragraphs(data: Path, count: int) -> list[list[str]]:
    """The first ``count`` abstracts (of at least three sentences), each as its sentences."""
    rows = (json.loads(line) for line in (data / "pubmedqa-abstracts.jsonl").open())
    out = [[s for s in _SENTENCE.split(r["evidence"].strip()) if s] for r in rows]
    return [p for p in out if len(p) >= 3][:count]


def _changed(sentence: str, rng: random.Random) -> str:
    """The sentence with its first number changed (an unsupported claim), else as it is."""
    return _NUMBER.sub(lambda m: str(int(float(m.group(0))) + rng.randint(2, 9)), sentence, 1)


def workload(
    corpus: list[list[str]], n: int, shape: str, seed: int = 35
) -> Iterator[dict[str, Any]]:
    """``n`` answers with their prompts (see the module docstring), one at a time: a million
    of them (~10 GB of prompt text) are written out as they are made, never held."""
    rng = random.Random(seed)
    for i in range(n):
        picks: list[int] = []
        words = 0
        while len(picks) < 4 or (words < PROMPT_WORDS and len(picks) < 8):
            p = rng.randrange(len(corpus))
            if p not in picks:
                picks.append(p)
                words += sum(len(s.split()) for s in corpus[p])
        chunks = []
        for p in picks:
            sentences = list(corpus[p])
            if shape == "fresh":
                rng.shuffle(sentences)
                while sentences == corpus[p]:
                    rng.shuffle(sentences)
            chunks.append((f"pm{p}" + ("" if shape == "shared" else f"-{i}"), " ".join(sentences)))
        inside = [s for _, text in chunks for s in _SENTENCE.split(text)]
        claims = rng.sample(inside, 4)
        claims[1] = _changed(claims[1], rng)
        outside = rng.randrange(len(corpus))
        while outside in picks:
            outside = rng.randrange(len(corpus))
        claims.insert(3, rng.choice(corpus[outside]))
        yield {"answer": " ".join(claims), "chunks": chunks}


def write_traces(path: Path, items: Iterable[dict[str, Any]]) -> None:
    """A question span and a generate span per answer, through the OTLP-JSON file exporter."""
    from opentelemetry.trace import SpanKind, set_span_in_context

    tracer, processor, exporter = _sdk_writer(path, 35)
    for i, item in enumerate(items):
        common = {c.QUESTION_ID: f"q-{i:07d}", c.RUN_ID: "judge-speed",
                  c.SCHEMA: c.SCHEMA_VERSION}  # fmt: skip
        start = T0 + i * 1_000_000
        root = tracer.start_span("question", start_time=start, kind=SpanKind.SERVER,
                                 attributes={c.STAGE: "question", **common,
                                             c.QUESTION_TEXT: f"Question {i}?"})  # fmt: skip
        generate = {c.STAGE: "generate", **common, c.MODE: "pipeline",
                    c.CONTEXT_IDS: [k for k, _ in item["chunks"]],
                    c.CONTEXT_TEXTS: [t for _, t in item["chunks"]],
                    c.ANSWER_TEXT: item["answer"], c.GEN_AI_REQUEST_MODEL: "gpt-4o-mini"}  # fmt: skip
        span = tracer.start_span("generate", context=set_span_in_context(root),
                                 attributes=generate, start_time=start + 1_000)  # fmt: skip
        span.end(end_time=start + 900_000)
        root.end(end_time=start + 950_000)
    processor.force_flush()
    exporter.shutdown()


def prepared_store(work: Path, data: Path, n: int, shape: str, corpus: int) -> tuple[Path, Path]:
    """The ingested store and the pairs file of ``n`` answers of a shape (made once)."""
    folder = work / f"{shape}-{n}-{corpus}"
    store, pairs = folder / "store", folder / "pairs.jsonl"
    if (folder / "done").exists():
        return store, pairs
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    traces = folder / "traces.jsonl"
    with pairs.open("w") as out:

        def kept(items: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
            for item in items:  # each pair written beside its traces, as it is made
                out.write(json.dumps(item) + "\n")
                yield item

        write_traces(traces, kept(workload(paragraphs(data, corpus), n, shape)))
    ragfunnel = shutil.which("ragfunnel") or "ragfunnel"
    subprocess.run([ragfunnel, "ingest", str(traces), "--store", f"chdb://{store}", "-q"],
                   check=True)  # fmt: skip
    traces.unlink()
    (folder / "done").write_text("")
    return store, pairs


def baseline_child(pairs: str) -> None:
    """The naive word overlap (bench/judge.py) of every claim of every pair, as one process."""
    from judge import naive_answer

    count = 0
    with open(pairs) as lines:
        for line in lines:
            item = json.loads(line)
            count += len(naive_answer(item["answer"], item["chunks"]))
    print(count)


def _judge_argv(tree: Path | None, store: Path, jsonl: Path | None, extra: list[str]) -> list[str]:
    if tree is None:
        head = [shutil.which("ragfunnel") or "ragfunnel"]
    else:
        # On PYTHONPATH too: a fork server started by an older tree's workers (before 97e6163)
        # imported the judge from its own path, not from the parent's sys.path.
        head = ["env", f"PYTHONPATH={tree}", sys.executable, "-c",
                "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                "from ragfunnel.analyzer.cli import main; sys.argv[0] = 'ragfunnel'; main()",
                str(tree)]  # fmt: skip
    argv = [*head, "judge", "--policy", "offline", "--store", f"chdb://{store}", "-q", *extra]
    return [*argv, "--jsonl", str(jsonl)] if jsonl else argv


def _tree(root: int) -> list[int]:
    """``root`` and every process below it (the judge's fork server and its workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _usage(pid: int) -> tuple[int, float]:
    """A process's resident KiB and CPU seconds (user + system), or zeros once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/status") as status:
            rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0, 0.0
    return rss, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(argv: list[str]) -> dict[str, Any]:
    """``run_child``'s wall seconds and peak RSS, and the child's CPU seconds (user + system).

    Beside them, the whole process tree's (the child, its fork server and workers; polled every
    50 ms): ``tree_rss``, the peak of the summed resident memory, and ``tree_cpu``, each
    process's CPU seconds as last seen (a worker's last 50 ms may be missed). The workers of
    ``--workers`` are the fork server's children, so ``RUSAGE_CHILDREN`` may not count them.
    """
    import threading

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak, cpu, done = [0], {}, threading.Event()
    baseline = set(_tree(os.getpid()))

    def watch() -> None:
        while not done.is_set():
            total = 0
            for pid in set(_tree(os.getpid())) - baseline:
                rss, seconds = _usage(pid)
                total += rss
                if seconds:
                    cpu[pid] = seconds
            peak[0] = max(peak[0], total)
            done.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    result = run_child(argv)
    done.set()
    watcher.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["cpu"] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    result["tree_rss"] = peak[0] * 1024
    result["tree_cpu"] = sum(cpu.values())
    return result


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.open()]
    for r in rows:
        r.pop("JudgedAt", None)
    return sorted(rows, key=lambda r: (r["TraceId"], r["QuestionKey"]))


def _differing(first: list[dict[str, Any]], other: list[dict[str, Any]]) -> int:
    """How many rows (by trace and question key) differ from, or are missing in, ``first``."""
    mine = {(r["TraceId"], r["QuestionKey"]): r for r in first}
    theirs = {(r["TraceId"], r["QuestionKey"]): r for r in other}
    return sum(mine.get(k) != theirs.get(k) for k in mine.keys() | theirs.keys())


def measure(args: argparse.Namespace, work: Path) -> list[dict[str, Any]]:
    trees: list[tuple[str, Path | None]] = [
        (name, Path(path)) for name, path in (t.split("=", 1) for t in args.tree)
    ]
    extra = {name: shlex.split(a) for name, a in (t.split("=", 1) for t in args.judge_args)}
    trees += [(name, None) for name in extra if name not in dict(trees)]
    trees = trees or [("installed", None)]
    results = []
    for n in args.answers:
        for shape in args.shapes:
            store, pairs = prepared_store(args.workdir, args.data, n, shape, args.corpus)
            steps: dict[str, list[dict[str, Any]]] = {}
            rows: dict[str, list[dict[str, Any]]] = {}
            for run in range(args.runs):
                order = trees if run % 2 == 0 else trees[::-1]  # alternate who goes first
                for name, tree in order:
                    jsonl = work / f"rows-{name}.jsonl" if run == 0 and args.check else None
                    result = timed(_judge_argv(tree, store, jsonl, extra.get(name, [])))
                    steps.setdefault(name, []).append(result)
                    if jsonl is not None:
                        rows[name] = _rows(jsonl)
                    print(f"  {shape} {n:,}, run {run + 1}: {name} {result['seconds']:.1f} s, "
                          f"{n / result['seconds']:,.0f} answers/s, CPU {result['cpu']:.1f} s "
                          f"(tree {result['tree_cpu']:.1f} s), {result['rss'] / 2**20:,.0f} MiB "
                          f"(tree {result['tree_rss'] / 2**20:,.0f} MiB), load "
                          f"{os.getloadavg()[0]:.2f}", file=sys.stderr)  # fmt: skip
                base = timed([sys.executable, str(Path(__file__).resolve()),
                                  "--baseline-child", str(pairs)])  # fmt: skip
                steps.setdefault("word overlap", []).append(base)
                print(f"  {shape} {n:,}, run {run + 1}: word overlap {base['seconds']:.1f} s",
                      file=sys.stderr)  # fmt: skip
            same, differing = None, {}
            if len(rows) > 1:
                first = next(iter(rows.values()))
                same = all(r == first for r in rows.values())
                differing = {name: _differing(first, found) for name, found in rows.items()}
            results.append({"answers": n, "shape": shape, "same_rows": same,
                            "differing_rows": differing, "steps": {
                name: {"median_s": statistics.median(r["seconds"] for r in found),
                       "runs_s": [round(r["seconds"], 2) for r in found],
                       "median_cpu_s": statistics.median(r["cpu"] for r in found),
                       "median_tree_cpu_s": statistics.median(r["tree_cpu"] for r in found),
                       "peak_rss_mib": max(r["rss"] for r in found) / 2**20,
                       "peak_tree_rss_mib": max(r["tree_rss"] for r in found) / 2**20}
                for name, found in steps.items()}})  # fmt: skip
    return results


def print_table(results: list[dict[str, Any]]) -> None:
    names = list(results[0]["steps"])
    print("| shape | answers | " + " | ".join(f"{n} answers/s: wall, tree CPU (peak MiB: "
                                             "process, tree)" for n in names)
          + " | same verdict rows |")  # fmt: skip
    print("|---|---|" + "---|" * len(names) + "---|")
    for r in results:
        cells = [f"{r['answers'] / s['median_s']:,.0f}, "
                 f"{r['answers'] / max(s['median_tree_cpu_s'], s['median_cpu_s']):,.0f} "
                 f"({s['peak_rss_mib']:,.0f}, {s['peak_tree_rss_mib']:,.0f})"
                 for s in r["steps"].values()]  # fmt: skip
        counts = ", ".join(f"{k}: {v}" for k, v in list(r["differing_rows"].items())[1:])
        same = "-" if r["same_rows"] is None else ("yes" if r["same_rows"] else "**no**")
        same += f" (rows differing from the first: {counts})" if counts else ""
        print(f"| {r['shape']} | {r['answers']:,} | " + " | ".join(cells) + f" | {same} |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answers", type=int, nargs="+", default=[3000])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", type=int, default=1000,
                        help="paragraphs the prompts draw from (shared: each in ~6.5 n / corpus)")  # fmt: skip
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--judge-args", action="append", default=[], metavar="NAME=ARGS",
                        help="more arguments for the judge command of tree NAME (or of the "
                        "installed ragfunnel under a new NAME), e.g. w1='--workers 1'")  # fmt: skip
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--workdir", type=Path, default=WORK, help="stores, made once, reused")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="do not compare the trees' verdict rows")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--baseline-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline_child:
        baseline_child(args.baseline_child)
        return
    load_before = os.getloadavg()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ragfunnel-judge-speed-") as tmp:
        results = measure(args, Path(tmp))
    setting = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "medians of": f"{args.runs} runs ({time.perf_counter() - started:,.0f} s in all)",
        "load average 1/5/15 min before": " ".join(f"{x:.2f}" for x in load_before),
        "after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    print(f"command: {' '.join(sys.argv)}")
    print("; ".join(f"{k}: {v}" for k, v in setting.items()))
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps({**setting, "results": results}, indent=2))


if __name__ == "__main__":
    main()
