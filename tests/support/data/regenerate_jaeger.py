"""Re-make the Jaeger fixtures from the golden spans with a real Jaeger (not run by the tests).

    JAEGER=~/.cache/ragfunnel/bin/jaeger-1.76.0 python tests/support/data/regenerate_jaeger.py

Starts Jaeger v2 with collector_config/jaeger.yaml on spare ports, sends the spans of
golden_spans.py over OTLP/HTTP, and saves what Jaeger answers: the UI's JSON for both traces
(jaeger_ui.json, as "Download JSON" / GET /api/traces/{id} return it) and the API v3 search
answer (jaeger_v3.json).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

HERE = Path(__file__).parent
ROOT = HERE.parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return bytes(response.read())


def main() -> None:
    spec = importlib.util.spec_from_file_location("golden_spans", HERE / "golden_spans.py")
    assert spec and spec.loader
    golden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(golden)
    names = ["GRPC", "HTTP", "QUERY_HTTP", "QUERY_GRPC", "HEALTH", "METRICS"]
    ports = {name: _free_port() for name in names}
    env = dict(
        os.environ,
        **{
            f"JAEGER_{k if k.startswith('QUERY') or k in ('HEALTH', 'METRICS') else 'OTLP_' + k}_PORT": str(
                v
            )
            for k, v in ports.items()
        },
    )
    jaeger = subprocess.Popen(
        [os.environ["JAEGER"], f"--config={ROOT / 'collector_config' / 'jaeger.yaml'}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    query = f"http://127.0.0.1:{ports['QUERY_HTTP']}"
    try:
        for _ in range(100):
            try:
                _get(f"{query}/api/services")
                break
            except OSError:
                time.sleep(0.2)
        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{ports['HTTP']}/v1/traces")
        exporter.export(golden.make_spans())
        time.sleep(2)
        traces = []
        for trace_id in golden.TRACE_IDS:
            traces += json.loads(_get(f"{query}/api/traces/{trace_id:032x}"))["data"]
        (HERE / "jaeger_ui.json").write_text(json.dumps({"data": traces}, indent=2) + "\n")
        window = (
            "query.start_time_min=2023-11-14T00:00:00Z&query.start_time_max=2023-11-15T00:00:00Z"
        )
        v3 = _get(
            f"{query}/api/v3/traces?query.service_name=golden-rag&query.num_traces=20&{window}"
        )
        (HERE / "jaeger_v3.json").write_bytes(v3)
    finally:
        jaeger.terminate()
        jaeger.wait(10)


if __name__ == "__main__":
    sys.exit(main())
