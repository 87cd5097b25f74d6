"""``ragfunnel cases rebase`` (issue 32): chunk-id cases of index v1 rewritten as document +
quote, read back, and right on index v2; the input untouched unless asked; what could not be
rewritten listed with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner, Result

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.store import Store
from tests.support.rechunk_pipeline import QUESTIONS, run

OLD_IDS = {"q-hotel": "travel#0", "q-taxi": "travel#1", "q-pass": {"any_of": ["it#1", "it#7"]}}


def _store(tmp_path: Path, *, content: bool = True) -> str:
    dsn = f"chdb://{tmp_path / 'store'}"
    with Store.open(dsn, create=True) as store:
        run(store, "v1", 1, "#", content=content)
        run(store, "v2", 2, "@v2-")
    return dsn


def _cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    rows = [
        {"id": q, "question": text, "evidence": OLD_IDS[q], "facts": [fact]}
        for q, (text, fact) in QUESTIONS.items()
    ]
    path.write_text(yaml.safe_dump(rows), encoding="utf-8")
    return path


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def test_rebased_cases_are_right_on_the_new_chunking(tmp_path: Path) -> None:
    dsn = _store(tmp_path)
    cases = _cases(tmp_path)
    before = cases.read_text(encoding="utf-8")
    done = _invoke("cases", "rebase", str(cases), "--from-index", "v1", "--store", dsn)
    assert done.exit_code == 0, done.output
    out = tmp_path / "cases.rebased.yaml"
    assert done.stdout.strip() == (
        f"wrote 3 cases to {out}: 3 chunk ids rewritten as document + quote or span, "
        "1 left as they were (listed above)"
    )
    assert "not rewritten: case 'q-pass': it#7: not a chunk of index v1" in done.stderr
    assert cases.read_text(encoding="utf-8") == before  # never overwritten unless asked
    rebased = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert rebased[1]["evidence"] == {
        "document": "travel",
        "quote": "Taxis are refunded up to 40 EUR.",
    }
    assert rebased[1]["facts"] == ["40 EUR"]
    with Store.open_for_analysis(dsn, read_only=True) as store:
        old = analyze(store, cases, run="v2").records
        new = analyze(store, out, run="v2").records
    assert set(old.get_column("first_failure").cast(str)) == {"stale_case"}
    assert dict(zip(new["question_id"], new["first_failure"].cast(str), strict=True)) == {
        "q-hotel": "ok", "q-taxi": "ok", "q-pass": "ok",
    }  # fmt: skip


def test_chunk_texts_from_a_chunk_file_and_the_output_options(tmp_path: Path) -> None:
    dsn = _store(tmp_path, content=False)  # v1's ingest spans recorded ids and offsets only
    cases = _cases(tmp_path)
    spans = _invoke("cases", "rebase", str(cases), "--from-index", "v1", "--store", dsn, "-q")
    assert spans.exit_code == 0 and spans.stdout == ""
    first = yaml.safe_load((tmp_path / "cases.rebased.yaml").read_text(encoding="utf-8"))
    assert first[0]["evidence"] == {"document": "travel", "start": 0, "end": 41}
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(
        json.dumps({"id": "travel#0", "text": "The hotel allowance is 120 EUR per night."}) + "\n"
    )
    out = tmp_path / "new.jsonl"
    done = _invoke(
        "cases", "rebase", str(cases), "--from-index", "v1", "--store", dsn,
        "--chunks", str(chunks), "--output", str(out),
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["evidence"] == {
        "document": "travel",
        "quote": "The hotel allowance is 120 EUR per night.",
    }
    assert rows[1]["evidence"] == {"document": "travel", "start": 42, "end": 74}
    same = _invoke(
        "cases", "rebase", str(cases), "--from-index", "v1", "--store", dsn, "-o", str(cases)
    )
    assert same.exit_code == 2 and "pass --in-place to overwrite it" in same.stderr
    in_place = _invoke(
        "cases", "rebase", str(cases), "--from-index", "v1", "--store", dsn, "--in-place"
    )
    assert in_place.exit_code == 0, in_place.output
    assert yaml.safe_load(cases.read_text(encoding="utf-8"))[0]["evidence"]["document"] == "travel"


def test_an_unknown_index_version_is_named(tmp_path: Path) -> None:
    dsn = _store(tmp_path)
    done = _invoke("cases", "rebase", str(_cases(tmp_path)), "--from-index", "v9", "--store", dsn)
    assert done.exit_code == 2
    assert "--from-index" in done.stderr
    assert "no ingest span of index version 'v9'" in done.stderr and "'v1', 'v2'" in done.stderr


def _hotel_quote(tmp_path: Path) -> Path:
    """A cases file of one case naming its evidence by document + quote."""
    cases = tmp_path / "quotes.yaml"
    hotel = {"document": "travel", "quote": "hotel allowance is 120 EUR"}
    cases.write_text(
        yaml.safe_dump([{"id": "q-hotel", "question": QUESTIONS["q-hotel"][0],
                         "evidence": hotel, "facts": ["120 EUR"]}]),
        encoding="utf-8",
    )  # fmt: skip
    return cases


def test_analyze_reads_chunk_texts_from_a_chunk_file(tmp_path: Path) -> None:
    dsn = _store(tmp_path, content=False)  # v1's ingest spans recorded ids and offsets only
    cases = _hotel_quote(tmp_path)
    args = ["analyze", "--cases", str(cases), "--store", dsn, "--run", "v1", "--jsonl"]
    without = _invoke(*args, str(tmp_path / "a.jsonl"), "-q")
    assert without.exit_code == 0, without.output
    (row,) = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    # Nothing is wrong with the label: the trace lacks the text to look in. Not stale_case,
    # and the command says what to do.
    assert row["first_failure"] == "incomplete_trace"
    assert row["failure_reason"] == (
        "missing: chunk text of document travel in index v1 (to find a quote in)"
    )
    assert row["missing"] == ["chunk text of document travel in index v1 (to find a quote in)"]
    assert "1 case names evidence by document that index v1 recorded without chunk text" in (
        without.stderr
    )
    assert "--chunks" in without.stderr
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(
        json.dumps({"id": "travel#0", "text": "The hotel allowance is 120 EUR per night."}) + "\n"
    )
    done = _invoke(*args, str(tmp_path / "b.jsonl"), "--chunks", str(chunks), "-q")
    assert done.exit_code == 0, done.output
    (row,) = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    # Resolved: the chunk reached the prompt; the answer text was not captured, so unjudged.
    assert [(e["id"], e["in_prompt"]) for e in row["evidence"]] == [("travel#0", True)]
    assert row["first_failure"] == "unjudged"


def test_report_and_diff_read_the_chunk_file_and_the_page_names_the_note(tmp_path: Path) -> None:
    dsn = _store(tmp_path, content=False)  # v1's ingest spans recorded ids and offsets only
    cases = _hotel_quote(tmp_path)
    args = ["--cases", str(cases), "--store", dsn, "-q"]
    page, summary = tmp_path / "r.html", tmp_path / "r.json"
    without = _invoke("report", *args, "--run", "v1", "--html", str(page), "--json", str(summary))
    assert without.exit_code == 0, without.output
    note = "1 case names evidence by document that index v1 recorded without chunk text"
    assert note in without.stderr
    (written,) = json.loads(summary.read_text())["notices"]
    assert written.startswith(note) and f"ragfunnel report: note: {written}\n" in without.stderr
    assert note in page.read_text(encoding="utf-8")
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(
        json.dumps({"id": "travel#0", "text": "The hotel allowance is 120 EUR per night."}) + "\n"
    )
    done = _invoke("report", *args, "--run", "v1", "--json", str(summary), "--chunks", str(chunks))
    assert done.exit_code == 0, done.output
    assert note not in done.stderr and json.loads(summary.read_text())["notices"] == []
    both = _invoke("diff", "v1", "v2", *args, "--chunks", str(chunks), "--json", str(summary))
    assert both.exit_code == 0, both.output
    assert note not in both.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "travel#0"}\n')
    refused = _invoke("report", *args, "--chunks", str(bad))
    assert refused.exit_code == 1 and str(bad) in refused.stderr
