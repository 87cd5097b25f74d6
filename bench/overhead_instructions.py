"""Instructions per call of each case of ``bench/overhead.py``, counted by valgrind's callgrind.

Timings on a shared two-core machine move by ±0.15 in ratio between two runs a minute apart;
instruction counts do not depend on the load. One process runs under ``valgrind
--tool=callgrind --separate-threads=yes``; for each case it makes ``--warmup`` calls, then
marks the start and the end of ``--calls`` more with ``os.getppid()``, a libc call nothing
else in the loop makes, on which callgrind dumps its counters (``--dump-before=getppid``). The
calling thread's count between the two marks, divided by the calls, is the case's cost on the
request path (the export thread is counted separately and left out, as ``overhead.py``'s
thread CPU clock leaves it out). Ratios are against the same baselines as ``overhead.py``.

    python bench/overhead_instructions.py [--calls 1000] [--warmup 200]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = 1.20


def inside(calls: int, warmup: int) -> None:
    """The measured process: every case, each between two ``getppid`` marks."""
    sys.path.insert(0, str(HERE))
    import overhead

    import ragfunnel

    cases, _ = overhead.build_cases(overhead.configure_bench())
    for fn in cases.values():
        for _ in range(warmup):
            fn()
        ragfunnel.flush()
        os.getppid()  # dump: what came before
        for _ in range(calls):
            fn()
        os.getppid()  # dump: this case's calls
    ragfunnel.flush()


def _main_thread_parts(out: Path) -> dict[int, int]:
    """Instructions of the main thread (``-01``) per dump part number."""
    parts: dict[int, int] = {}
    for path in out.parent.glob(out.name + "*"):
        match = re.fullmatch(re.escape(out.name) + r"\.(\d+)-01", path.name)
        if match is None:
            continue
        for line in path.read_text().splitlines():
            if line.startswith("summary:"):
                parts[int(match.group(1))] = int(line.split()[1])
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        inside(args.calls, args.warmup)
        return
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is not on PATH (apt-get install valgrind)")
    sys.path.insert(0, str(HERE))
    import overhead
    from opentelemetry.sdk.trace import TracerProvider

    cases, baseline_of = overhead.build_cases(TracerProvider())  # names only: nothing is called
    names = list(cases)
    with tempfile.TemporaryDirectory(prefix="ragfunnel-callgrind-") as tmp:
        out = Path(tmp) / "cg"
        subprocess.run(
            [
                valgrind,
                "--tool=callgrind",
                "--separate-threads=yes",
                "--dump-before=getppid",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--inside",
                f"--calls={args.calls}",
                f"--warmup={args.warmup}",
            ],
            check=True,
            stderr=subprocess.DEVNULL,
        )
        parts = _main_thread_parts(out)
    # Dump k is written just before the k-th getppid: case i's calls end at mark 2i + 2.
    per_call = {name: parts[2 * i + 2] / args.calls for i, name in enumerate(names)}
    print(f"instructions per call (callgrind, {args.calls} calls after {args.warmup} warm-up)")
    print(f"{'case':32} {'k instr':>9} {'x its bare span':>16}")
    worst = 0.0
    for name, count in per_call.items():
        if name in baseline_of:
            ratio = count / per_call[baseline_of[name]]
            worst = max(worst, ratio)
            print(f"{'@ragfunnel.' + name:32} {count / 1e3:9.1f} {ratio:16.3f}")
        else:
            print(f"{name:32} {count / 1e3:9.1f}")
    print(f"worst ratio {worst:.3f} (target <= {TARGET:.2f})")


if __name__ == "__main__":
    main()
