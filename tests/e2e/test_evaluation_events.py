"""Verdicts back into OpenTelemetry: ``ragfunnel judge --emit otlp`` through the real collector.

The demo writes real traces and verdicts into an embedded store; ``ragfunnel judge --emit otlp``
sends each verdict to the collector's OTLP/HTTP receiver as a ``gen_ai.evaluation.result`` log
record, and the collector's logs pipeline writes it to its file exporter, where this test reads
it back: the event name, the GenAI attributes, per-claim detail, and the judged span's ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.export import EVENT_NAME, EmitError, emit_verdicts
from ragfunnel.analyzer.judges.tables import read_verdicts
from ragfunnel.analyzer.store import Store
from tests.support.collector import Stack, wait_until


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for resource in json.loads(line).get("resourceLogs", []):
            for scope in resource.get("scopeLogs", []):
                for record in scope.get("logRecords", []):
                    record["attrs"] = {
                        a["key"]: next(iter(a["value"].values()), None)
                        for a in record.get("attributes", [])
                    }
                    found.append(record)
    return found


def test_judge_emit_otlp_reaches_the_collector(stack: Stack, tmp_path: Path) -> None:
    work = tmp_path / "demo"
    runner = CliRunner()
    demo = runner.invoke(app, ["demo", "--workdir", str(work), "--cases", "6", "--no-progress",
                               "--fault", "threshold_high", "--quiet"])  # fmt: skip
    assert demo.exit_code == 0, demo.output
    store = f"chdb://{work / 'store'}"
    result = runner.invoke(
        app, ["judge", "--store", store, "--emit", "otlp", "--otlp-endpoint", stack.otlp_http]
    )
    assert result.exit_code == 0, result.output
    with Store.open_for_analysis(store, read_only=True) as opened:
        verdicts = read_verdicts(opened)
    sent = int(result.stdout.split("sent ")[1].split()[0].replace(",", ""))
    assert sent > 0 and f"sent {sent:,} gen_ai.evaluation.result events" in result.stdout

    records = wait_until(
        lambda: (found := _records(stack.logs_path)) and len(found) >= sent and found,
        "evaluation events in the collector's logs file",
        timeout=30,
    )
    assert len(records) == sent
    assert {r.get("eventName") for r in records} == {EVENT_NAME}
    spans = {(t, s) for t, s in verdicts.select("TraceId", "SpanId").iter_rows()}
    assert {(r["traceId"], r["spanId"]) for r in records} <= spans  # parented to judged spans
    by_label = {r["attrs"]["gen_ai.evaluation.score.label"] for r in records}
    assert by_label <= {"supported", "partial", "unsupported", "abstained"}
    for record in records:
        attrs = record["attrs"]
        assert attrs["gen_ai.evaluation.name"] == "faithfulness"
        assert attrs["gen_ai.evaluation.explanation"]
        assert attrs["ragfunnel.run.id"] in {"demo-clean", "demo-faulty", "demo-rechunked"}
        if attrs["gen_ai.evaluation.score.label"] != "abstained":
            assert 0.0 <= float(attrs["gen_ai.evaluation.score.value"]) <= 1.0
            claims = attrs["ragfunnel.evaluation.claims.text"]["values"]
            scores = attrs["ragfunnel.evaluation.claims.score"]["values"]
            assert len(claims) == len(scores) > 0


def test_an_unreachable_endpoint_is_an_error_not_silence(tmp_path: Path) -> None:
    row = {"TraceId": "0af7651916cd43dd8448eb211c80319c", "SpanId": "b7ad6b7169203331",
           "Judge": "offline", "Faithfulness": 1.0, "ClaimTexts": ["x"], "ClaimVerdicts": [1.0]}  # fmt: skip
    with pytest.raises(
        EmitError, match=r"sent 0 of 1 evaluation events to http://127\.0\.0\.1:9/v1/logs"
    ):
        emit_verdicts([row], endpoint="http://127.0.0.1:9")
