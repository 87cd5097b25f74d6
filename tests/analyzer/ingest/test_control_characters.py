"""Control characters in a question id or text never reach the HTML report raw.

Issue 19, Why 11: a NUL in a question id reached the HTML report raw. Here a trace file whose
question id and question text hold NUL, BEL, ESC, backspace, DEL and C1 controls goes through
``ragfunnel ingest``, ``ragfunnel analyze`` and ``ragfunnel report --html``; the page holds none
of them raw, and shows each in a visible form.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from opentelemetry.exporter.otlp.json.file.trace_exporter import _encode_spans_to_dict
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from tests.support.decisions import A_ID, B_ID, WRONG, ranked
from tests.support.traces import TraceBuilder

QID = "q-\x00nul\x07bel\x1besc"
TEXT = "Which firmware\x00 fixes the \x08reset\x7f loop\x85?"
# Every C0 control but tab, newline and carriage return, DEL and the C1 controls.
_RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout


def test_control_characters_in_a_question_never_reach_the_html_raw(tmp_path: Path) -> None:
    builder = TraceBuilder()
    candidates = ranked(20, **{A_ID: 3, B_ID: 15})
    with builder.question(QID, TEXT) as question:
        question.retrieve(candidates, name="bm25", top_k=20)
        question.cut(candidates[:5], input_ids=candidates, k=5)
        question.generate(candidates[:5], WRONG)
    traces = tmp_path / "traces.jsonl"
    traces.write_text(json.dumps(_encode_spans_to_dict(builder.spans)) + "\n")
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps([{"id": QID, "question": TEXT, "evidence": [A_ID, B_ID], "facts": ["4.2"]}])
    )
    store = f"chdb://{tmp_path / 'store'}"
    assert "4 spans read: 4 inserted" in _invoke("ingest", str(traces), "--store", store)
    _invoke("analyze", "--cases", str(cases), "--store", store)
    html = tmp_path / "report.html"
    _invoke("report", "--cases", str(cases), "--store", store, "--html", str(html), "-q")
    page = html.read_text(encoding="utf-8")
    assert _RAW.search(page) is None, repr(_RAW.search(page))
    # Each shown as its escape, the text around it kept.
    assert "q-\\x00nul\\x07bel\\x1besc" in page
    assert "Which firmware\\x00 fixes the \\x08reset\\x7f loop\\x85?" in page
