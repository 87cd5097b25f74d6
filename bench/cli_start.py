"""Start-up time of the ``ragfunnel`` command line: ``--help``, ``--version``, ``COMMAND --help``.

Target (issue 20, bench/RESULTS.md "CLI start-up"): ``ragfunnel --help`` in at most 0.3 s,
median of the runs, wall clock, with ``python -c pass`` as the baseline (the interpreter's own
start, which no change of ragfunnel's can remove). Each case runs in a fresh process, the cases
interleaved so that a load spike from other work touches them all alike; the CPU time (user +
system of the child) is printed too, as it moves less than the wall clock on a shared machine.

    python bench/cli_start.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

CASES: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "ragfunnel --help": ["ragfunnel", "--help"],
    "ragfunnel --version": ["ragfunnel", "--version"],
    "ragfunnel report --help": ["ragfunnel", "report", "--help"],
    "ragfunnel judge --help": ["ragfunnel", "judge", "--help"],
}
TARGET_S = 0.3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    script = shutil.which("ragfunnel")
    if script is None:
        raise SystemExit("ragfunnel is not on PATH (pip install -e '.[analyzer]')")
    env = {**os.environ, "COLUMNS": "100"}
    times: dict[str, list[float]] = {name: [] for name in CASES}
    cpu: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.repeats):
        for name, command in CASES.items():
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
    print(f"load average {os.getloadavg()[0]:.1f} / {os.getloadavg()[1]:.1f}; "
          f"{args.repeats} runs each, {script}")  # fmt: skip
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"{name:<26} median {median:.3f} s  (min {min(runs):.3f}, max {max(runs):.3f}); "
              f"CPU median {statistics.median(cpu[name]):.3f} s")  # fmt: skip
    median = statistics.median(times["ragfunnel --help"])
    verdict = "met" if median <= TARGET_S else "MISSED"
    print(f"target: ragfunnel --help <= {TARGET_S} s: {verdict} ({median:.3f} s)")


if __name__ == "__main__":
    main()
