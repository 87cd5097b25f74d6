"""The real OpenTelemetry Collector and the real Jaeger v2, started on free loopback ports.

The binaries come from ``collector_config/build.sh`` (cached under ``~/.cache/ragfunnel/bin``);
``.ci/run`` builds them and exports their paths. A missing binary fails the tests with the command
to run — these tests are never skipped.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "collector_config"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def binaries() -> tuple[str, str]:
    otelcol, jaeger = os.environ.get("RAGFUNNEL_OTELCOL"), os.environ.get("RAGFUNNEL_JAEGER")
    if not (otelcol and jaeger):
        out = subprocess.run(
            ["bash", str(CONFIG / "build.sh"), "--print"],
            capture_output=True,
            text=True,
            check=False,
        )
        paths = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
        otelcol, jaeger = paths.get("OTELCOL"), paths.get("JAEGER")
    for path in (otelcol, jaeger):
        if not path or not Path(path).is_file():
            pytest.fail(
                "collector/Jaeger binaries are not built: run `bash collector_config/build.sh` "
                "(.ci/run does it)"
            )
    assert otelcol and jaeger
    return otelcol, jaeger


def get_json(url: str, timeout: float = 5.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:  # loopback only
        return json.loads(response.read())


def wait_until(check: Any, what: str, timeout: float = 30.0, interval: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (OSError, urllib.error.URLError, ValueError) as exc:
            last = exc
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


@dataclass
class Process:
    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as handle:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(
                self.argv, env={**os.environ, **self.env}, stdout=handle, stderr=handle
            )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""


@dataclass
class Stack:
    """Jaeger and the collector, wired together, each on its own free ports."""

    workdir: Path
    jaeger: Process
    collector: Process
    ports: dict[str, int] = field(default_factory=dict)

    @property
    def otlp_grpc(self) -> str:
        return f"http://127.0.0.1:{self.ports['otlp_grpc']}"

    @property
    def query(self) -> str:
        return f"http://127.0.0.1:{self.ports['jaeger_query']}"

    @property
    def file_path(self) -> Path:
        return self.workdir / "collector-spans.jsonl"

    @property
    def logs_path(self) -> Path:
        return self.workdir / "collector-logs.jsonl"

    @property
    def otlp_http(self) -> str:
        return f"http://127.0.0.1:{self.ports['otlp_http']}"

    def start_jaeger(self) -> None:
        self.jaeger.start()
        wait_until(lambda: get_json(f"{self.query}/api/services") is not None, "Jaeger query API")

    def start_collector(self) -> None:
        self.collector.start()
        health = f"http://127.0.0.1:{self.ports['health']}/"
        try:
            wait_until(
                lambda: urllib.request.urlopen(health, timeout=2).status == 200, "collector health"
            )
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- collector log ---\n{self.collector.tail()}") from None

    def stop(self) -> None:
        self.collector.stop()
        self.jaeger.stop()


def running_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Start Jaeger and the collector on free ports, yield the stack, stop both."""
    otelcol, jaeger = binaries()
    workdir = tmp_path_factory.mktemp("stack")
    ports = {
        name: free_port()
        for name in (
            "otlp_grpc",
            "otlp_http",
            "health",
            "metrics",
            "jaeger_grpc",
            "jaeger_http",
            "jaeger_query",
            "jaeger_query_grpc",
            "jaeger_health",
            "jaeger_metrics",
        )
    }
    jaeger_env = {
        "JAEGER_OTLP_GRPC_PORT": str(ports["jaeger_grpc"]),
        "JAEGER_OTLP_HTTP_PORT": str(ports["jaeger_http"]),
        "JAEGER_QUERY_HTTP_PORT": str(ports["jaeger_query"]),
        "JAEGER_QUERY_GRPC_PORT": str(ports["jaeger_query_grpc"]),
        "JAEGER_HEALTH_PORT": str(ports["jaeger_health"]),
        "JAEGER_METRICS_PORT": str(ports["jaeger_metrics"]),
    }
    collector_env = {
        "RAGFUNNEL_OTLP_GRPC_ENDPOINT": f"127.0.0.1:{ports['otlp_grpc']}",
        "RAGFUNNEL_OTLP_HTTP_ENDPOINT": f"127.0.0.1:{ports['otlp_http']}",
        "RAGFUNNEL_HEALTH_ENDPOINT": f"127.0.0.1:{ports['health']}",
        "RAGFUNNEL_COLLECTOR_METRICS_PORT": str(ports["metrics"]),
        "JAEGER_OTLP_ENDPOINT": f"127.0.0.1:{ports['jaeger_grpc']}",
        "RAGFUNNEL_FILE_PATH": str(workdir / "collector-spans.jsonl"),
        "RAGFUNNEL_LOGS_FILE_PATH": str(workdir / "collector-logs.jsonl"),
    }
    s = Stack(
        workdir=workdir,
        jaeger=Process(
            "jaeger",
            [jaeger, f"--config={CONFIG / 'jaeger.yaml'}"],
            jaeger_env,
            workdir / "jaeger.log",
        ),
        collector=Process(
            "collector",
            [otelcol, f"--config={CONFIG / 'otelcol-nodb.yaml'}"],
            collector_env,
            workdir / "collector.log",
        ),
        ports=ports,
    )
    try:
        s.start_jaeger()
        s.start_collector()
        yield s
    finally:
        s.stop()
