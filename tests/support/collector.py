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


def free_ports(names: tuple[str, ...]) -> dict[str, int]:
    """A free loopback port per name, all distinct: each is held until every one is picked."""
    held: list[socket.socket] = []
    try:
        for _ in names:
            held.append(socket.socket())
            held[-1].bind(("127.0.0.1", 0))
        return {name: int(s.getsockname()[1]) for name, s in zip(names, held, strict=True)}
    finally:
        for s in held:
            s.close()


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
        query = f"{self.query}/api/services"
        self._wait(self.jaeger, lambda: get_json(query) is not None, "Jaeger query API")

    def start_collector(self) -> None:
        self.collector.start()
        health = f"http://127.0.0.1:{self.ports['health']}/"
        self._wait(
            self.collector,
            lambda: urllib.request.urlopen(health, timeout=2).status == 200,
            "collector health",
        )

    @staticmethod
    def _wait(process: Process, check: Any, what: str) -> None:
        """Wait for ``check``; fail at once, with the process's log, if the process has ended."""

        def ready() -> Any:
            if process.proc is not None and process.proc.poll() is not None:
                raise AssertionError(f"{process.name} exited ({process.proc.returncode})")
            return check()

        try:
            wait_until(ready, what)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- {process.name} log ---\n{process.tail()}") from None

    def port_taken(self) -> bool:
        """Whether Jaeger or the collector failed because one of its ports was taken."""
        return any("address already in use" in p.tail() for p in (self.jaeger, self.collector))

    def stop(self) -> None:
        self.collector.stop()
        self.jaeger.stop()


PORTS = (
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
"""The loopback ports a stack listens on, by name."""

ATTEMPTS = 3
"""Starts tried, on new ports each, when a port picked free was taken before the binary bound it."""


def running_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Start Jaeger and the collector on free ports, yield the stack, stop both.

    A port found free can be taken before the binary binds it: the kernel hands the same range
    out as the source ports of outgoing connections, any process's. A start that fails on
    "address already in use" is tried again on new ports.
    """
    otelcol, jaeger = binaries()
    for attempt in range(1, ATTEMPTS + 1):
        s = _stack(otelcol, jaeger, tmp_path_factory.mktemp("stack"), free_ports(PORTS))
        try:
            s.start_jaeger()
            s.start_collector()
        except AssertionError:
            s.stop()
            if attempt < ATTEMPTS and s.port_taken():
                continue
            raise
        break
    try:
        yield s
    finally:
        s.stop()


def _stack(otelcol: str, jaeger: str, workdir: Path, ports: dict[str, int]) -> Stack:
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
    return Stack(
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
