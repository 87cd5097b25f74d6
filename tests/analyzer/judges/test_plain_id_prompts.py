"""A prompt passed as plain id strings is judged against its chunks' texts, never against the
ids themselves (issue 34, reproductions 1 and 2).

The app of the reproduction: ``@ragfunnel.generate`` receives ``["tep-en#hotel-cap",
"tep-en#taxi"]``. Spans of today's decorators record ids only; spans written before recorded the
ids as their own texts (built here with the plain SDK, as such a span was). Either way
``--chunks`` fills every text, says how many, and the answer is judged right; a service that
records only question and answer is judged the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragfunnel
from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.answers import read_answers
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.store import Store
from ragfunnel.instrumentation import contract as c
from ragfunnel.testing import capture_spans
from tests.support.traces import TraceBuilder

CHUNKS = {
    "tep-en#hotel-cap": "The hotel allowance is 150 GBP per night in London.",
    "tep-en#taxi": "Taxi rides are covered between 22:00 and 06:00.",
}
ANSWER = "In London the hotel allowance is 150 GBP per night."


@ragfunnel.retrieve(name="bm25")
def _search(query: str) -> list[str]:
    return list(CHUNKS)


@ragfunnel.generate(model="generator")
def _generate(question: str, context: list[str]) -> str:
    return ANSWER


@ragfunnel.question(id="question_id")
def _ask(question_id: str, question: str) -> str:
    return _generate(question, _search(question))


def _chunk_file(tmp_path: Path) -> Path:
    path = tmp_path / "chunks.jsonl"
    path.write_text(
        "".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in CHUNKS.items()),
        encoding="utf-8",
    )
    return path


def _app_spans(store: Store, capture: object) -> None:
    with capture_spans(capture_content=capture, run_id="plain-ids") as spans:  # type: ignore[arg-type]
        _ask("q-hotel", "What is the hotel allowance in London?")
    ingest_spans(store, spans.spans)


def _old_spans(store: Store) -> None:
    """A generate span as the decorators wrote it before: the ids recorded as their texts."""
    builder = TraceBuilder()
    with builder.question("q-hotel", text="What is the hotel allowance in London?") as q:
        q.retrieve(list(CHUNKS), name="bm25")
        q.generate(list(CHUNKS), answer=ANSWER, texts=list(CHUNKS))
    ingest_spans(store, builder.spans)


@pytest.mark.parametrize("capture", [True, ("question", "answer")])
def test_plain_id_strings_with_chunks_are_judged_right(
    store: Store, tmp_path: Path, capture: object
) -> None:
    _app_spans(store, capture)
    (row,) = read_answers(store).iter_rows(named=True)
    assert row["context_ids"] == list(CHUNKS)
    assert not row["has_context"] and row["missing_texts"] == list(CHUNKS)
    run = judge_store(store, chunk_texts=_chunk_file(tmp_path))
    assert (run.judged, run.without_content) == (1, 0), run.not_judged
    assert (run.filled_chunks, run.filled_answers) == (2, 1)
    assert list(run.rows[0]["ClaimLabels"]) == ["supported"]


def test_ids_recorded_as_their_own_text_are_no_text(store: Store, tmp_path: Path) -> None:
    _old_spans(store)
    (row,) = read_answers(store).iter_rows(named=True)
    assert row["missing_texts"] == list(CHUNKS)  # not judged against "tep-en#taxi"
    run = judge_store(store, chunk_texts=_chunk_file(tmp_path))
    assert run.filled_chunks == 2
    assert list(run.rows[0]["ClaimLabels"]) == ["supported"]


def test_ids_with_spaces_read_as_texts_are_ids_when_the_ranking_lists_them(
    store: Store, tmp_path: Path
) -> None:
    spaced = {"Travel Policy.pdf#" + k: v for k, v in CHUNKS.items()}
    builder = TraceBuilder()
    with builder.question("q-hotel", text="What is the hotel allowance in London?") as q:
        q.retrieve(list(spaced), name="bm25")
        q.generate(
            [c.text_id(t) for t in spaced], answer=ANSWER, texts=list(spaced),
        )  # fmt: skip
    ingest_spans(store, builder.spans)
    (row,) = read_answers(store, chunk_texts=spaced).iter_rows(named=True)
    assert row["context_ids"] == list(spaced)
    assert row["context_texts"] == list(spaced.values())
    assert row["filled_texts"] == list(spaced)


def test_the_cli_says_how_many_texts_the_chunk_file_filled(
    store_path: Path, tmp_path: Path
) -> None:
    dsn = f"chdb://{tmp_path / 'store'}"
    with Store.open(dsn, create=True) as store:
        _app_spans(store, ("question", "answer"))
    result = CliRunner().invoke(
        app, ["judge", "--store", dsn, "--chunks", str(_chunk_file(tmp_path))]
    )
    assert result.exit_code == 0, result.output
    assert "--chunks: filled the text of 2 chunks, in 1 answer's prompt" in result.stdout
    assert "mean faithfulness: 1.000" in result.stdout
