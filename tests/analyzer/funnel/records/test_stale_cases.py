"""Cases that survive re-chunking, end to end with the real decorators (issue 32).

One corpus chunked twice (index v1: sentence chunks, v2: larger chunks with other ids), the same
questions asked on both. Document + quote cases resolve on both chunkings; the old chunk-id
cases come out ``stale_case`` on v2, never ingestion.
"""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.cases import Case, CaseSet, Leaf, parse_evidence
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.store import Store
from tests.support.rechunk_pipeline import CORPUS, QUESTIONS, run


@pytest.fixture
def two_chunkings(store: Store) -> Store:
    run(store, "v1", 1, "#")
    run(store, "v2", 2, "@v2-")
    return store


def _cases(evidence: dict[str, object]) -> CaseSet:
    unasked = Case("q-none", "Is there a gym?", None, answerable=False)  # no items to resolve
    return CaseSet.of(
        [
            *(
                Case(qid, q, parse_evidence(evidence[qid]), facts=(fact,))
                for qid, (q, fact) in QUESTIONS.items()
            ),
            unasked,
        ]
    )


def _first_failures(result: object, run_id: str) -> dict[str, tuple[str, str]]:
    records = result.records  # type: ignore[attr-defined]
    return {
        r["question_id"]: (r["first_failure"], r["failure_reason"])
        for r in records.iter_rows(named=True)
        if r["run_id"] == run_id
    }


def test_document_quote_cases_are_right_on_both_chunkings(two_chunkings: Store) -> None:
    cases = _cases(
        {
            "q-hotel": {"document": "travel", "quote": "The hotel  allowance is 120 EUR"},
            "q-taxi": {"document": "travel", "quote": "TAXIS are refunded up to 40 EUR"},
            "q-pass": {"document": "it", "quote": "Passwords expire after ninety days"},
        }
    )
    result = analyze(two_chunkings, cases)
    for version in ("v1", "v2"):
        found = _first_failures(result, version)
        assert {q: f for q, (f, _) in found.items()} == {
            "q-hotel": "ok", "q-taxi": "ok", "q-pass": "ok",
        }, (version, found)  # fmt: skip
    v2 = result.records.filter(run_id="v2", question_id="q-taxi").row(0, named=True)
    assert [e["id"] for e in v2["evidence"]] == ["travel@v2-0"]
    v1 = result.records.filter(run_id="v1", question_id="q-taxi").row(0, named=True)
    assert [e["id"] for e in v1["evidence"]] == ["travel#1"]


def test_a_quote_across_a_chunk_border_needs_both_chunks(two_chunkings: Store) -> None:
    quote = "120 EUR per night. Taxis are refunded"  # v1: two chunks; v2: one
    cases = CaseSet.of(
        [
            Case(
                "q-hotel",
                QUESTIONS["q-hotel"][0],
                parse_evidence({"document": "travel", "quote": quote}),
                facts=("120 EUR",),
            )
        ]
    )
    result = analyze(two_chunkings, cases)
    v1 = result.records.filter(run_id="v1").row(0, named=True)
    assert sorted(e["id"] for e in v1["evidence"]) == ["travel#0", "travel#1"]
    # The hotel question does not find the taxi sentence: half the quote is lost at search
    # (the answer states the fact anyway).
    assert v1["first_failure"] == "ok_without_evidence"
    assert v1["failure_reason"].startswith("answer correct although travel#1 was lost at search")
    v2 = result.records.filter(run_id="v2").row(0, named=True)
    assert [e["id"] for e in v2["evidence"]] == ["travel@v2-0"]
    assert v2["first_failure"] == "ok"


def test_a_span_resolves_by_the_recorded_offsets(two_chunkings: Store) -> None:
    start = CORPUS["travel"].index("Taxis")
    cases = _cases(
        {
            "q-hotel": {"document": "travel", "quote": "hotel allowance"},
            "q-taxi": {"document": "travel", "start": start, "end": start + 20},
            "q-pass": "it#1",
        }
    )
    result = analyze(two_chunkings, cases, run="v2")
    taxi = result.record("q-taxi").row(0, named=True)
    assert [e["id"] for e in taxi["evidence"]] == ["travel@v2-0"]
    assert taxi["first_failure"] == "ok"


def test_old_chunk_ids_on_the_new_chunking_are_stale_not_ingestion(two_chunkings: Store) -> None:
    cases = _cases({"q-hotel": "travel#0", "q-taxi": "travel#1", "q-pass": "it#1"})
    result = analyze(two_chunkings, cases)
    assert {q: f for q, (f, _) in _first_failures(result, "v1").items()} == {
        "q-hotel": "ok", "q-taxi": "ok", "q-pass": "ok",
    }  # fmt: skip
    v2 = _first_failures(result, "v2")
    assert {f for f, _ in v2.values()} == {"stale_case"}
    assert v2["q-taxi"][1].startswith("chunk id(s) travel#1 of document travel not in index v2")
    counts = dict(result.failures.filter(run_id="v2").select("first_failure", "count").iter_rows())
    assert counts.get("stale_case") == 3 and not counts.get("ingestion")


def test_a_quote_in_no_chunk_of_an_ingested_document_is_named(two_chunkings: Store) -> None:
    cases = _cases(
        {
            "q-hotel": {"document": "travel", "quote": "Business class is allowed"},
            "q-taxi": {"document": "travel", "quote": "Taxis are refunded"},
            "q-pass": {"document": "hr", "quote": "Holidays"},  # never ingested anywhere
        }
    )
    result = analyze(two_chunkings, cases, run="v1")
    hotel = result.record("q-hotel").row(0, named=True)
    assert hotel["first_failure"] == "stale_case"
    assert hotel["failure_reason"] == (
        'quote "Business class is allowed" found in no chunk of document travel in index v1'
    )
    never = result.record("q-pass").row(0, named=True)
    assert never["first_failure"] in ("ingestion", "ok_without_evidence")
    assert never["evidence"][0]["id"] == 'hr "Holidays"'
    assert Leaf("x") != never  # the label is no chunk id of the index


def test_chunks_recorded_without_text_are_incomplete_not_stale(store: Store) -> None:
    run(store, "v1", 1, "#", content=False)  # ids and offsets only: no text to find quotes in
    quotes = {
        "q-hotel": {"document": "travel", "quote": "hotel allowance is 120 EUR"},
        "q-taxi": {"document": "travel", "start": 42, "end": 60},  # offsets were recorded
        "q-pass": "it#1",
    }
    result = analyze(store, _cases(quotes), run="v1")
    found = _first_failures(result, "v1")
    assert found["q-hotel"] == (
        "incomplete_trace",
        "missing: chunk text of document travel in index v1 (to find a quote in)",
    )
    assert found["q-taxi"][0] != "incomplete_trace"  # a span needs offsets only
    assert found["q-pass"][0] != "incomplete_trace"
    (notice,) = [n for n in result.notices if "without chunk text" in n]
    assert notice.startswith(
        "1 case names evidence by document that index v1 recorded without chunk text (or "
        "offsets) to look in, so its question is incomplete_trace, not stale_case: "
    )
    with_texts = analyze(store, _cases(quotes), run="v1", chunks=INDEX_TEXTS)
    hotel = with_texts.record("q-hotel").row(0, named=True)
    # Resolved and reached the prompt; no answer text was captured: unjudged, not blamed.
    assert [(e["id"], e["in_prompt"]) for e in hotel["evidence"]] == [("travel#0", True)]
    assert hotel["first_failure"] == "unjudged"
    assert not [n for n in with_texts.notices if "without chunk text" in n]


INDEX_TEXTS = {f"travel#{n}": text for n, text in enumerate(
    ("The hotel allowance is 120 EUR per night.", "Taxis are refunded up to 40 EUR.")
)}  # fmt: skip


@pytest.mark.parametrize("case", ["quote", "span"])
def test_a_run_naming_no_index_among_several_is_incomplete_not_a_loss(
    two_chunkings: Store, case: str
) -> None:
    # The questions asked of v2's index, the run's pipeline naming no version: which
    # chunking to resolve the quote in cannot be told, so nothing is blamed.
    run(two_chunkings, "v2", 2, "@v2-", named=False, ingested=False, run_id="unnamed")
    leaf = (
        {"document": "travel", "quote": "Taxis are refunded up to 40 EUR"}
        if case == "quote"
        else {"document": "travel", "start": 42, "end": 60}
    )
    cases = _cases({"q-hotel": "travel@v2-0", "q-taxi": leaf, "q-pass": "gone#1"})
    result = analyze(two_chunkings, cases, run="unnamed")
    found = _first_failures(result, "unnamed")
    # A chunk id not retrieved: ingestion or search, and the reason says why not told apart.
    (lost,) = result.record("q-pass").row(0, named=True)["evidence"]
    assert lost["lost_at"] == "ingestion_or_search"
    assert lost["reason"].startswith("not retrieved (")
    assert lost["reason"].endswith(
        "; the index version the question searched is not known (ingested: v1, v2; name it "
        "with configure(pipeline={'index_version': ...})) to tell ingestion from search"
    )
    version = (
        "the index version the run searched (ingested: v1, v2; name it with "
        "configure(pipeline={'index_version': ...}))"
    )
    lacks = f"{version}, to resolve evidence named by document in"
    assert found["q-taxi"] == ("incomplete_trace", f"missing: {lacks}")
    assert result.record("q-taxi").row(0, named=True)["missing"] == [lacks]
    assert found["q-hotel"][0] != "incomplete_trace"  # chunk ids need no resolving
    assert (
        f"1 case names evidence by document, and the trace lacks {version} to resolve it in: "
        "its question is incomplete_trace"
    ) in result.notices
    # Named, the same questions resolve and are right.
    run(two_chunkings, "v2", 2, "@v2-", ingested=False, run_id="named")
    named = analyze(two_chunkings, cases, run="named")
    assert _first_failures(named, "named")["q-taxi"][0] == "ok"


def test_the_diagnosis_counts_stale_cases_apart_from_failures(two_chunkings: Store) -> None:
    from ragfunnel.analyzer.workflows import report_from_store

    cases = _cases({"q-hotel": "travel#0", "q-taxi": "travel#1", "q-pass": "it#1"})
    report = report_from_store(two_chunkings, cases, runs=["v2"]).report
    (run_report,) = report.runs
    assert run_report.diagnosis == (
        "Of 3 questions, 0 were answered wrongly or incompletely. 3 cases name evidence this "
        "run's index does not hold (stale labels, not ingestion failures: `ragfunnel cases "
        "rebase` rewrites them as document + quote)."
    )


def test_a_chunk_lost_from_the_same_chunking_is_ingestion_not_stale(store: Store) -> None:
    run(store, "v1", 1, "#")
    run(store, "v3", 1, "#", drop="travel#1")  # same chunking, the taxi sentence lost
    cases = _cases({"q-hotel": "travel#0", "q-taxi": "travel#1", "q-pass": "it#1"})
    taxi = analyze(store, cases, run="v3").record("q-taxi").row(0, named=True)
    assert taxi["first_failure"] == "ingestion"
    assert taxi["failure_reason"] == "never indexed (parser, connector, scope)"
