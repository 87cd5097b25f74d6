"""Every app's answers get judged: foreign traces read through the conventions, ids-only prompts
filled from a chunk file, and the exact fix where no text was recorded anywhere."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from openinference.instrumentation import (
    Document,
    OITracer,
    TraceConfig,
    get_llm_attributes,
    get_reranker_attributes,
    get_retriever_attributes,
)
from typer.testing import CliRunner

import ragfunnel
from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.ingest import ingest_paths, ingest_spans
from ragfunnel.analyzer.judges.answers import CHUNK_TEXT_FIX, read_answers
from ragfunnel.analyzer.judges.chunk_file import load_chunks
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.traces import memory_tracing

ROOT = Path(__file__).resolve().parents[3]
HOTEL = "Die Hotelpauschale beträgt 120 EUR pro Nacht."
TAXI = "Ein Taxi ist ab 22:00 Uhr erlaubt."
PARKING = "Parken am Flughafen wird bis 20 EUR pro Tag erstattet."
QUESTION = "Was gilt für das Hotel?"
ANSWER = "Die Hotelpauschale beträgt 120 EUR pro Nacht. Ein Taxi ist jederzeit erlaubt."


def _labels(store: Store) -> list[str]:
    run = judge_store(store)
    assert (run.answers, run.judged, run.without_content) == (1, 1, 0), run.not_judged
    return list(run.rows[0]["ClaimLabels"])


def test_a_llamaindex_openinference_trace_is_judged(store: Store) -> None:
    provider, exporter = memory_tracing()
    tracer = OITracer(provider.get_tracer("llama_index"), config=TraceConfig())
    documents = [Document(id="parking", score=0.9, content=PARKING),
                 Document(id="hotel", score=0.8, content=HOTEL),
                 Document(id="taxi", score=0.7, content=TAXI)]  # fmt: skip
    with tracer.start_as_current_span("query", openinference_span_kind="chain") as root:
        root.set_input(QUESTION)
        with tracer.start_as_current_span("retrieve", openinference_span_kind="retriever") as r:
            r.set_input(QUESTION)
            r.set_attributes(get_retriever_attributes(documents=documents))
        with tracer.start_as_current_span("rerank", openinference_span_kind="reranker") as rr:
            rr.set_attributes(
                get_reranker_attributes(
                    query=QUESTION, model_name="bge", input_documents=documents,
                    output_documents=documents[1:], top_k=2,
                )
            )  # fmt: skip
        with tracer.start_as_current_span("llm", openinference_span_kind="llm") as llm:
            llm.set_attributes(
                get_llm_attributes(
                    model_name="gpt-4o-mini",
                    output_messages=[{"role": "assistant", "content": ANSWER}],
                )
            )
        root.set_output(ANSWER)
    ingest_spans(store, exporter.get_finished_spans())
    (row,) = read_answers(store).iter_rows(named=True)
    # The prompt is the reranker's output, as the funnel takes it; texts from its documents.
    assert row["context_source"] == "ranking" and row["context_ids"] == ["hotel", "taxi"]
    assert row["context_texts"] == [HOTEL, TAXI] and row["question"] == QUESTION
    assert row["model"] == "gpt-4o-mini" and row["answer"] == ANSWER
    assert _labels(store) == ["supported", "unsupported"]


def test_a_genai_convention_trace_is_judged(store: Store) -> None:
    provider, exporter = memory_tracing()
    tracer = provider.get_tracer("openllmetry")
    documents = json.dumps([{"id": "hotel", "score": 0.9, "content": HOTEL},
                            {"id": "taxi", "score": 0.5, "content": TAXI}])  # fmt: skip
    output = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])
    with tracer.start_as_current_span("rag"):
        with tracer.start_as_current_span(
            "retrieval",
            attributes={"gen_ai.operation.name": "retrieval",
                        "gen_ai.retrieval.query.text": QUESTION,
                        "gen_ai.retrieval.documents": documents},
        ):  # fmt: skip
            pass
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
                        "gen_ai.output.messages": output},
        ):  # fmt: skip
            pass
    ingest_spans(store, exporter.get_finished_spans())
    (row,) = read_answers(store).iter_rows(named=True)
    assert row["context_ids"] == ["hotel", "taxi"] and row["context_texts"] == [HOTEL, TAXI]
    assert row["question"] == QUESTION  # the retrieval query stands in for the question
    assert _labels(store) == ["supported", "unsupported"]


@ragfunnel.retrieve(name="bm25")
def _search(query: str) -> list[tuple[str, float]]:
    return [("hotel", 0.9), ("taxi", 0.5)]


@ragfunnel.generate(model="generator")
def _generate(question: str, context: list[tuple[str, float]]) -> str:
    return ANSWER


@ragfunnel.question(id="question_id")
def _ask(question_id: str, question: str) -> str:
    return _generate(question, _search(question))


def _ids_only(store: Store) -> None:
    with capture_spans(capture_content=True, run_id="ids") as spans:
        _ask("hotel", QUESTION)
    ingest_spans(store, spans.spans)


def test_an_ids_only_prompt_is_reported_with_the_fix(store: Store) -> None:
    _ids_only(store)
    run = judge_store(store)
    assert (run.answers, run.judged, run.without_answer_text, run.without_chunk_text) == (
        1, 0, 0, 1,
    )  # fmt: skip
    (message,) = run.not_judged
    assert "no text for chunk(s) hotel, taxi" in message and message.endswith(CHUNK_TEXT_FIX)
    assert "without recorded text" not in message


@pytest.mark.parametrize("kind", ["jsonl", "parquet"])
def test_a_chunk_file_fills_in_the_texts(store: Store, tmp_path: Path, kind: str) -> None:
    _ids_only(store)
    rows = [{"id": "hotel", "text": HOTEL}, {"id": "taxi", "text": TAXI, "source": "wiki"}]
    path = tmp_path / f"chunks.{kind}"
    if kind == "jsonl":
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    else:
        pl.DataFrame(rows).write_parquet(path)
    assert load_chunks(path) == {"hotel": HOTEL, "taxi": TAXI}
    run = judge_store(store, chunk_texts=path)
    assert (run.judged, run.without_content) == (1, 0)
    assert run.rows[0]["ClaimLabels"] == ["supported", "unsupported"]


def test_the_readme_example_is_judged_with_no_extra_step(tmp_path: Path) -> None:
    code = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0]
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, str(script)], cwd=tmp_path, check=True, env=env,
                   capture_output=True)  # fmt: skip
    dsn = f"chdb://{tmp_path / 'store'}"
    with Store.open(dsn, create=True) as store:
        ingest_paths(store, [tmp_path / ".ragfunnel" / "traces"])
    out = tmp_path / "verdicts.jsonl"
    result = CliRunner().invoke(app, ["judge", "--store", dsn, "--jsonl", str(out)])
    assert result.exit_code == 0, result.output
    assert re.match(r"1 answers?, 1 judged \(offline\)", result.stdout), result.stdout
    assert "not judged" not in result.stdout
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert row["Faithfulness"] == 1.0
