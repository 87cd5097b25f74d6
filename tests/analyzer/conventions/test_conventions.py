"""Span conventions as data: the assembled SELECT against the hand-written one it replaced, and
a convention declared on the test side that feeds the whole funnel."""

from __future__ import annotations

import importlib.util
import json
import math
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.conventions import (
    CONVENTIONS,
    STAGE_COLUMN_NAMES,
    Attr,
    Convention,
    ConventionError,
    JsonList,
    SpanName,
    SpanNamed,
    StageFields,
    StageRule,
    catalog,
    stage_select_sql,
)
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_COLUMNS
from ragfunnel.instrumentation.contract import Stage
from ragfunnel.testing import capture_spans
from tests.support.data import DATA
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, filler
from tests.support.hybrid_pipeline import answer, ingest
from tests.support.openinference import oi_question
from tests.support.traces import TraceBuilder

_spec = importlib.util.spec_from_file_location("golden_spans", DATA / "golden_spans.py")
assert _spec is not None and _spec.loader is not None
golden_spans = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden_spans)


def _plain_tracer() -> tuple[Any, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("fixtures"), exporter


def _builder_traces(b: TraceBuilder) -> None:
    """Every stage method of the builder, with and without its optional attributes."""
    b.ingest("doc-a", [A_ID, "f1"], version="v1")
    b.ingest("doc-b", [B_ID], version="v2", error="OSError: parser")
    with b.question("q-017", Q, index_version="v1") as q:
        q.retrieve(filler(3), name="bm25", top_k=3, scores=[0.9, 0.5, 0.1])
        q.retrieve([A_ID], name="dense", error="TimeoutError")
        q.retrieve([A_ID, *filler(2)], name="rrf", fused_from=["bm25", "dense"])
        q.rerank([A_ID, "f1"], input_ids=[A_ID, *filler(2)], scores=[2.0, math.nan], top_n=2)
        q.cut([A_ID], input_ids=[A_ID, "f1"], k=1, threshold=0.5, token_budget=800)
        q.generate([A_ID], WRONG, logprobs_min=-3.5, low_confidence=["4.2.0"])
        q.generate([A_ID], RIGHT, sample_index=1)
        q.generate([A_ID, B_ID], RIGHT, mode="oracle")
    with b.question("q-018", "Another question?", run="run-2") as q:
        q.cut([], input_ids=["f1"], abstained=True)
        q.generate(None, None, error="RateLimitError")
    with b.question(None, "No id given") as q:
        q.retrieve([])
        q.abstain()
    with b.question("q-019", root=False) as q:
        q.rerank([B_ID])
        q.generate([B_ID], RIGHT)


def _genai_traces() -> list[Any]:
    tracer, exporter = _plain_tracer()
    docs = json.dumps([{"id": A_ID, "score": 0.9}, {"id": "f1"}])
    for operation, output in (("chat", RIGHT), ("text_completion", WRONG)):
        messages = json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": output}]}]
        )
        with tracer.start_as_current_span("rag"):
            with tracer.start_as_current_span("retrieval", attributes={
                "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": Q,
                "gen_ai.retrieval.documents": docs,
            }):  # fmt: skip
                pass
            with tracer.start_as_current_span(f"{operation} gpt", attributes={
                "gen_ai.operation.name": operation, "gen_ai.output.messages": messages,
                "gen_ai.request.model": "gpt-4o-mini",
            }):  # fmt: skip
                pass
    return list(exporter.get_finished_spans())


def _openinference_traces() -> list[Any]:
    from openinference.instrumentation import OITracer, TraceConfig

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = OITracer(provider.get_tracer("llama_index"), config=TraceConfig())
    oi_question(tracer, Q, [A_ID, *filler(3), B_ID], reranked=[B_ID, "f1"], answer=WRONG)
    oi_question(tracer, "Without a reranker?", [A_ID])
    with tracer.start_as_current_span("agent", openinference_span_kind="agent") as agent:
        agent.set_input(json.dumps({"q": Q}), mime_type="application/json")
    with tracer.start_as_current_span("tool", openinference_span_kind="tool"):
        pass
    return list(exporter.get_finished_spans())


def _decorated_traces() -> list[Any]:
    with capture_spans(capture_content=True, run_id="e2e", pipeline={"index_version": "v7"}) as s:
        for document in ("release-notes-4.2", "warranty"):
            ingest(document)
        answer("q-017", Q)
        answer("q-031", "Refund for a cancelled flight?")
    return list(s.spans)


@pytest.fixture
def fixtures(store: Store) -> Store:
    b = TraceBuilder()
    _builder_traces(b)
    b.into(store)
    for spans in (
        _genai_traces(),
        _openinference_traces(),
        _decorated_traces(),
        golden_spans.make_spans(),
    ):
        ingest_spans(store, spans)
    return store


def _stage_rows(store: Store, select: str) -> list[dict[str, Any]]:
    rows = store.query_arrow(f"SELECT * FROM ({select}) ORDER BY TraceId, SpanId").to_pylist()

    def same_nan(value: Any) -> Any:
        if isinstance(value, float) and math.isnan(value):
            return "nan"
        if isinstance(value, list):
            return [same_nan(v) for v in value]
        return value

    return [{k: same_nan(v) for k, v in row.items()} for row in rows]


def test_assembled_select_gives_the_stage_rows_of_the_hand_written_one(fixtures: Store) -> None:
    traces = fixtures.traces_table
    before = (DATA / "stage_select_v1.sql").read_text().replace("__TRACES__", traces)
    # One intended difference: the table keeps ids as text for ingest spans only (index truth
    # reads them there); every other stage is compared by the hashes, which must not change.
    expected = [
        row if row["Stage"] == "ingest" else {**row, "Ids": []}
        for row in _stage_rows(fixtures, before)
    ]
    got = _stage_rows(fixtures, stage_select_sql(traces))
    kinds = {(r["Source"], r["Stage"]) for r in expected}
    assert kinds == {("ragfunnel", stage.value) for stage in Stage} | {
        ("openinference", s) for s in ("question", "retrieve", "rerank", "generate")
    } | {("genai", "retrieve"), ("genai", "generate")}
    assert len(got) == len(expected) > 40
    for mine, theirs in zip(got, expected, strict=True):
        assert mine == theirs


def test_a_select_for_some_stages_keeps_every_row_of_those_stages(fixtures: Store) -> None:
    """The pre-filter repeats the rules' conditions, so it must never drop one of their rows."""
    traces = fixtures.traces_table
    wanted = {Stage.QUESTION.value, Stage.INGEST.value}
    every = [r for r in _stage_rows(fixtures, stage_select_sql(traces)) if r["Stage"] in wanted]
    some = _stage_rows(fixtures, stage_select_sql(traces, stages=(Stage.QUESTION, Stage.INGEST)))
    assert {r["Source"] for r in every} == {"ragfunnel", "openinference"}
    assert [r for r in some if r["Stage"] in wanted] == every
    # ... and that it reads fewer spans: those of the other stages need not be parsed.
    assert len(some) < len(_stage_rows(fixtures, stage_select_sql(traces)))


def test_the_select_names_the_rule_number_where_the_engine_does_not_copy_it(
    fixtures: Store,
) -> None:
    """The view's SELECT is analysed and planned on every insert (tens of ms each time).

    The engine's analyzer copies an alias's whole expression wherever the same SELECT names
    it: with the rule number an alias beside the ~30 columns that test it, the query tree
    was 16,241 lines and an insert of 128 spans took 68-70 ms; read from the level below,
    1,793 lines and 32-40 ms. The bound leaves room for more conventions, not for that copy.
    """
    tree = fixtures.query_arrow("EXPLAIN QUERY TREE " + stage_select_sql(fixtures.traces_table))
    assert 500 < tree.num_rows < 5_000


def test_the_stage_table_has_the_columns_the_select_gives() -> None:
    assert tuple(name for name, _ in STAGE_COLUMNS) == STAGE_COLUMN_NAMES


def test_select_reads_a_subquery_as_its_source(fixtures: Store) -> None:
    sub = f"(SELECT * FROM {fixtures.traces_table} WHERE SpanName LIKE 'retrieve%')"
    rows = _stage_rows(fixtures, stage_select_sql(sub))
    assert rows and {r["Stage"] for r in rows} == {"retrieve"}


# ---------------------------------------------------------------------------------------------
# A convention of the test's own: spans named "search" and "llm" with toy.* attributes.

TOY = Convention(
    name="toy",
    marker=SpanNamed(("search", "llm")),
    rules=(
        StageRule(
            Stage.RETRIEVE,
            SpanNamed(("search",)),
            StageFields(
                name=SpanName(),
                question_text=Attr("toy.query"),
                top_k=Attr("toy.k"),
                documents=JsonList("toy.doc_ids", scores="toy.scores"),
            ),
        ),
        StageRule(
            Stage.GENERATE,
            SpanNamed(("llm",)),
            StageFields(documents=JsonList("toy.context_ids"), answer=Attr("toy.answer")),
        ),
    ),
)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy declaration added to the catalog, as a new convention would be."""
    monkeypatch.setattr(catalog, "CONVENTIONS", (*CONVENTIONS, TOY))


def _toy_question(
    tracer: Any, question: str, found: list[str], prompt: list[str], said: str
) -> None:
    with tracer.start_as_current_span("handle"):
        with tracer.start_as_current_span("search", attributes={
            "toy.query": question, "toy.k": len(found), "toy.doc_ids": found,
            "toy.scores": [1.0 - n / 10 for n in range(len(found))],
        }):  # fmt: skip
            pass
        with tracer.start_as_current_span("llm", attributes={
            "toy.context_ids": prompt, "toy.answer": said,
        }):  # fmt: skip
            pass


def test_a_toy_convention_declared_here_feeds_the_funnel(store: Store, toy: None) -> None:
    tracer, exporter = _plain_tracer()
    other = "Which gateways does the reset apply to?"
    _toy_question(tracer, Q, [*filler(3), A_ID, B_ID], [A_ID, B_ID], WRONG)
    _toy_question(tracer, other, [A_ID, *filler(5)], [A_ID, "f1"], WRONG)
    ingest_spans(store, exporter.get_finished_spans())
    cases = CaseSet.of([case(), case({"all_of": [B_ID]}, id="q-020", question=other)])
    result = analyze(store, cases, index_manifest=[A_ID, B_ID, *filler(5)])
    rows = {r["question_id"]: r for r in result.records.iter_rows(named=True)}
    assert rows["q-017"]["first_failure"] == "generation"
    assert rows["q-017"]["candidates"] == 5 and rows["q-017"]["prompt_source"] == "generate"
    assert {e["id"]: e["candidate_rank"] for e in rows["q-017"]["evidence"]} == {A_ID: 4, B_ID: 5}
    assert rows["q-020"]["first_failure"] == "search"
    assert rows["q-020"]["failure_reason"].startswith("not retrieved (top_k = 6)")
    assert rows["q-020"]["failure_item"] == B_ID
    assert rows["q-017"]["question_key"].startswith("trace:")


def test_without_the_declaration_the_toy_spans_are_not_stage_spans(store: Store) -> None:
    tracer, exporter = _plain_tracer()
    _toy_question(tracer, Q, [A_ID, B_ID], [A_ID, B_ID], RIGHT)
    ingest_spans(store, exporter.get_finished_spans())
    assert analyze(store, CaseSet.of([case()])).records.height == 0


def test_conventions_that_cannot_be_assembled_are_refused() -> None:
    with pytest.raises(ConventionError, match="convention names repeat"):
        stage_select_sql("t", [TOY, TOY])
    with pytest.raises(ConventionError, match="at least one stage rule"):
        stage_select_sql("t", [Convention("empty", SpanNamed(("x",)), rules=())])
