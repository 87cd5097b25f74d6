"""The README's example runs as written and writes spans that follow docs/span-contract.md."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from ragfunnel.instrumentation import contract as c

ROOT = Path(__file__).resolve().parents[2]


def readme_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return blocks[0]


def run_script(script: Path, cwd: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with none of the suite's RAGFUNNEL_* settings (it sets the exporter to
    none), only ``settings``; it must succeed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGFUNNEL_")} | settings
    out = subprocess.run(
        [sys.executable, str(script)], cwd=cwd, capture_output=True, text=True, check=False, env=env
    )
    assert out.returncode == 0, out.stderr
    return out


def otlp_spans(folder: Path) -> list[dict]:
    spans = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            for rs in json.loads(line)["resourceSpans"]:
                service = {a["key"]: a["value"] for a in rs["resource"]["attributes"]}[
                    "service.name"
                ]
                for ss in rs["scopeSpans"]:
                    for span in ss["spans"]:
                        span["service"] = service["stringValue"]
                        span["attrs"] = {a["key"]: a["value"] for a in span.get("attributes", [])}
                        spans.append(span)
    return spans


def test_readme_example_writes_contract_spans_to_the_default_place(tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(readme_example())
    out = run_script(script, tmp_path)  # on the real default exporter
    assert "Firmware 4.2.0 and 4.2.1 need a manual reset." in out.stdout
    spans = otlp_spans(tmp_path / ".ragfunnel" / "traces")
    assert sorted(s["name"] for s in spans) == [
        "cut gate",
        "generate extractive",
        "question answer",
        "retrieve keyword",
    ]
    root = next(s for s in spans if "parentSpanId" not in s or not s["parentSpanId"])
    # The example turns content capture on, so that `ragfunnel judge` can rate its answer.
    recorded = {key for span in spans for key in span["attrs"] if key in c.CONTENT_ATTRIBUTES}
    assert recorded == c.CONTENT_ATTRIBUTES - {c.CHUNKS_TEXTS}  # the example ingests nothing
    for span in spans:
        attrs = span["attrs"]
        assert span["service"] == "toy-rag"
        assert attrs[c.QUESTION_ID] == {"stringValue": "q-017"}
        assert c.STAGE in attrs and c.OPENINFERENCE_KIND in attrs
        assert not any(key.startswith("retrieval.documents.") for key in attrs)
        if span is not root:
            assert span["parentSpanId"] == root["spanId"]
    retrieve = next(s["attrs"] for s in spans if s["name"] == "retrieve keyword")
    ids = [v["stringValue"] for v in retrieve[c.DOCUMENTS_IDS]["arrayValue"]["values"]]
    scores = [v["doubleValue"] for v in retrieve[c.DOCUMENTS_SCORES]["arrayValue"]["values"]]
    assert ids[:2] == ["release-notes-4.2#known-issues", "runbook-reset#scope"]
    assert len(scores) == len(ids) == 3
    assert root["attrs"]["ragfunnel.pipeline.index_version"] == {"stringValue": "v1"}
    assert root["attrs"][c.SCHEMA] == {"stringValue": "1"}


def test_the_quickstart_example_gives_the_verdicts_its_cases_promise(tmp_path: Path) -> None:
    # What scripts/demo runs: examples/toy_pipeline.py traced to files, ingested, analyzed.
    from ragfunnel.analyzer import Store, analyze, ingest_paths

    traces = tmp_path / "traces"
    exporter = f"file:{traces}/spans-{{pid}}.jsonl"
    run_script(ROOT / "examples" / "toy_pipeline.py", tmp_path, RAGFUNNEL_EXPORTER=exporter)
    with Store.open(f"chdb://{tmp_path / 'store'}", create=True) as store:
        summary = ingest_paths(store, [traces])
        assert summary.inserted and not summary.skipped
        records = analyze(store, ROOT / "examples" / "cases.yaml").records
    verdicts = dict(records.select("question_id", "first_failure").iter_rows())
    assert verdicts == {"q-017": "ok", "q-031": "ok", "q-052": "ingestion"}
