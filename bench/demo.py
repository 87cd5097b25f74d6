"""Wall time of `ragfunnel demo` (target: under 60 s on two cores), median of several runs.

Each run is a fresh process, as a user starts it: interpreter, imports, both traced runs of the
pipeline, ingest, analysis and the closing text, into a fresh work directory. The baseline,
timed in the same session, is `ragfunnel --help`: the start-up cost every command pays.

    python bench/demo.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def ragfunnel_command() -> list[str]:
    found = shutil.which("ragfunnel")
    return [found] if found else [sys.executable, "-m", "ragfunnel.analyzer.cli"]


def timed(args: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the child) and the child's output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    command = ragfunnel_command()
    demo_times: list[float] = []
    demo_cpu: list[float] = []
    help_times: list[float] = []
    help_cpu: list[float] = []
    last = ""
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            wall, cpu, last = timed(
                [*command, "demo", "--no-progress", "--workdir", str(Path(tmp))]
            )
            demo_times.append(wall)
            demo_cpu.append(cpu)
        wall, cpu, _ = timed([*command, "--help"])
        help_times.append(wall)
        help_cpu.append(cpu)
    demo, base = statistics.median(demo_times), statistics.median(help_times)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"ragfunnel demo: {', '.join(f'{t:.1f}' for t in demo_times)} s -> median {demo:.1f} s")
    print(f"  CPU (user + system): median {statistics.median(demo_cpu):.1f} s")
    print(
        f"ragfunnel --help (baseline): median {base:.2f} s wall, "
        f"{statistics.median(help_cpu):.2f} s CPU"
    )
    print(f"ratio: the demo takes {demo / base:.1f}x the start-up's wall time")
    agreement = next((line for line in last.splitlines() if "names the injected stage" in line), "")
    print(agreement.strip())


if __name__ == "__main__":
    main()
