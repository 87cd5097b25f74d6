"""Evidence named by document (issue 32): the forms, every file format, resolution, rebase."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import (
    AllOf,
    AnyOf,
    Case,
    CaseError,
    ChunkSource,
    DocumentChunks,
    EvidenceError,
    Leaf,
    Quote,
    Resolver,
    Span,
    evidence_to_data,
    load_cases,
    parse_evidence,
    rebase_cases,
    write_cases,
)

QUOTE = {"document": "travel-policy-2025", "quote": "The hotel allowance is 120 EUR per night"}
SPAN = {"document": "travel-policy-2025", "start": 1520, "end": 1575}


# --- the forms ---------------------------------------------------------------------------------


def test_a_quote_a_span_and_chunk_ids_mix_in_groups() -> None:
    tree = parse_evidence({"any_of": [QUOTE, {"all_of": ["faq#3", SPAN]}]})
    assert tree == AnyOf(
        (
            Quote("travel-policy-2025", "The hotel allowance is 120 EUR per night"),
            AllOf((Leaf("faq#3"), Span("travel-policy-2025", 1520, 1575))),
        )
    )
    assert evidence_to_data(tree) == {"any_of": [QUOTE, {"all_of": ["faq#3", SPAN]}]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"document": "d"}, "a document leaf is {document, quote} or {document, start, end}"),
        ({"document": "d", "quote": " "}, "evidence.quote: expected a non-empty string"),
        ({"document": "", "quote": "x"}, "evidence.document: expected a non-empty document id"),
        ({"document": "d", "start": 5, "end": 5}, "end (5) must be greater than start (5)"),
        ({"document": "d", "start": -1, "end": 5}, "evidence.start: expected a character offset"),
        ({"document": "d", "start": "a", "end": 5}, "evidence.start: expected a character offset"),
        ({"document": "d", "quote": "x", "page": 2}, "unknown key(s) page"),
    ],
)
def test_a_malformed_document_leaf_is_named(data: dict[str, object], message: str) -> None:
    with pytest.raises(EvidenceError, match=None) as caught:
        parse_evidence(data)
    assert message in str(caught.value)


def test_a_bad_leaf_in_a_file_names_file_line_case_and_field(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(
        "- id: q1\n  question: Hotel?\n  evidence:\n    - {document: d, quote: ''}\n",
        encoding="utf-8",
    )
    with pytest.raises(CaseError) as caught:
        load_cases(path)
    assert "cases.yaml:4: case 'q1': field 'evidence': evidence[0].quote" in str(caught.value)


# --- every file format ---------------------------------------------------------------------------

EXPECTED = AllOf((Quote("travel-policy-2025", QUOTE["quote"]), Leaf("faq#3")))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "cases.yaml",
            "- id: q1\n  question: Hotel?\n  evidence:\n"
            "    all_of:\n      - document: travel-policy-2025\n"
            "        quote: The hotel allowance is 120 EUR per night\n      - faq#3\n",
        ),
        (
            "cases.json",
            json.dumps(
                [{"id": "q1", "question": "Hotel?", "evidence": {"all_of": [QUOTE, "faq#3"]}}]
            ),
        ),
        (
            "cases.jsonl",
            "// one case per line\n"
            + json.dumps({"id": "q1", "question": "Hotel?", "evidence": [QUOTE, "faq#3"]})
            + "\n",
        ),
        (
            "cases.csv",
            'id,question,evidence\nq1,Hotel?,"'
            + json.dumps([QUOTE, "faq#3"]).replace('"', '""')
            + '"\n',
        ),
    ],
)
def test_every_format_reads_document_leaves(tmp_path: Path, name: str, text: str) -> None:
    (case,) = load_cases(_write(tmp_path / name, text))
    assert case.evidence == EXPECTED
    assert case.evidence_ids == (
        'travel-policy-2025 "The hotel allowance is 120 EUR per night"',
        "faq#3",
    )


def test_csv_takes_one_document_leaf_in_plain_columns(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "cases.csv",
        "id,question,document,quote,start,end\n"
        "q1,Hotel?,travel-policy-2025,The hotel allowance is 120 EUR per night,,\n"
        "q2,Taxi?,travel-policy-2025,,1520,1575\n",
    )
    first, second = load_cases(path)
    assert first.evidence == Quote("travel-policy-2025", QUOTE["quote"])
    assert second.evidence == Span("travel-policy-2025", 1520, 1575)


def test_csv_refuses_a_document_column_beside_evidence(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "cases.csv", "id,question,evidence,document,quote\nq1,Hotel?,a#1,d,x\n"
    )
    with pytest.raises(CaseError, match=r"cases.csv:2: case 'q1': field 'evidence': give evidence"):
        load_cases(path)


def test_a_large_jsonl_file_mixes_plain_and_document_cases(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": f"q{i}", "question": f"Question {i}?", "evidence": f"c#{i}"})
        if i % 3
        else json.dumps({"id": f"q{i}", "question": f"Question {i}?", "evidence": QUOTE})
        for i in range(3000)
    ]
    cases = load_cases(_write(tmp_path / "cases.jsonl", "\n".join(lines) + "\n"))
    assert cases.by_id("q3") is not None and cases.by_id("q3").evidence == Quote(  # type: ignore[union-attr]
        "travel-policy-2025", QUOTE["quote"]
    )
    assert cases.by_id("q4").evidence == Leaf("c#4")  # type: ignore[union-attr]


# --- resolution ----------------------------------------------------------------------------------

POLICY = DocumentChunks(
    ("p#0", "p#1", "p#2"),
    (
        "Travel policy.  The hotel allowance is\n120 EUR",
        "per night in every city. Taxis are refunded",
        "up to 40 EUR. Meals are paid per diem.",
    ),
    (0, 45, 89),
    (45, 89, 127),
)


def _resolve(leaf: Quote | Span, chunks: DocumentChunks = POLICY) -> tuple[object, tuple[str, ...]]:
    found = Resolver({"p": chunks}, "v2").resolve(leaf)
    return found.evidence, found.stale


def test_a_quote_in_one_chunk_is_that_chunk_whitespace_and_case_folded() -> None:
    assert _resolve(Quote("p", "TAXIS   are refunded")) == (Leaf("p#1"), ())


def test_a_quote_across_a_chunk_border_needs_both_chunks() -> None:
    assert _resolve(Quote("p", "allowance is 120 EUR per night")) == (
        AllOf((Leaf("p#0"), Leaf("p#1"))),
        (),
    )
    three = Quote("p", "120 EUR per night in every city. Taxis are refunded up to 40")
    assert _resolve(three)[0] == AllOf((Leaf("p#0"), Leaf("p#1"), Leaf("p#2")))


def test_overlapping_chunks_are_alternatives_and_overlap_is_not_counted_twice() -> None:
    overlapping = DocumentChunks(
        ("o#0", "o#1"),
        ("The hotel allowance is 120 EUR per night in every", "120 EUR per night in every city."),
    )
    assert _resolve(Quote("p", "120 EUR per night"), overlapping)[0] == AnyOf(
        (Leaf("o#0"), Leaf("o#1"))
    )
    # Across the border: the repeated words are one text, not two.
    assert _resolve(Quote("p", "allowance is 120 EUR per night in every city"), overlapping)[
        0
    ] == AllOf((Leaf("o#0"), Leaf("o#1")))


def test_a_span_is_the_chunks_its_range_overlaps() -> None:
    assert _resolve(Span("p", 50, 60)) == (Leaf("p#1"), ())
    assert _resolve(Span("p", 40, 100))[0] == AllOf((Leaf("p#0"), Leaf("p#1"), Leaf("p#2")))
    assert _resolve(Span("p", 500, 600))[1] == (
        "span 500-600 overlaps no chunk of document p in index v2",
    )


def test_what_cannot_be_resolved_keeps_its_label_and_says_why() -> None:
    assert _resolve(Quote("p", "Business class")) == (
        Leaf('p "Business class"'),
        ('quote "Business class" found in no chunk of document p in index v2',),
    )
    bare = DocumentChunks(("p#0",))
    assert "has no chunk text" in _resolve(Quote("p", "hotel"), bare)[1][0]
    assert "has no chunk offsets" in _resolve(Span("p", 1, 2), bare)[1][0]
    missing = Resolver({}, "v2").resolve(AllOf((Quote("hr", "leave"), Leaf("x"))))
    assert missing.evidence == AllOf((Leaf('hr "leave"'), Leaf("x")))
    assert (missing.stale, missing.missing) == ((), ("hr",))


# --- rebase and writing --------------------------------------------------------------------------

OLD = {
    "p#0": ChunkSource("policy", "The hotel allowance\n is 120 EUR."),
    "p#1": ChunkSource("policy", None, 40, 80),
    "p#2": ChunkSource("policy"),
}


def test_rebase_rewrites_chunk_ids_and_says_what_it_could_not() -> None:
    cases = [
        Case("q1", "Hotel?", AllOf((Leaf("p#0"), AnyOf((Leaf("p#1"), Quote("faq", "x")))))),
        Case("q2", "Gone?", AnyOf((Leaf("p#2"), Leaf("zz#9")))),
        Case("q3", "Unanswerable?", None, answerable=False),
    ]
    done = rebase_cases(cases, OLD, "v1")
    assert done.cases[0].evidence == AllOf(
        (
            Quote("policy", "The hotel allowance is 120 EUR."),
            AnyOf((Span("policy", 40, 80), Quote("faq", "x"))),
        )
    )
    assert done.cases[1].evidence == cases[1].evidence
    assert done.cases[2] == cases[2]
    assert done.rewritten == 2
    assert [str(p) for p in done.problems] == [
        "case 'q2': p#2: index v1 recorded neither its text nor its offsets (trace the ingest "
        "with capture_content=True, or pass --chunks)",
        "case 'q2': zz#9: not a chunk of index v1",
    ]


@pytest.mark.parametrize("name", ["out.yaml", "out.json", "out.jsonl", "out.csv", "out.tsv"])
def test_written_cases_read_back_the_same(tmp_path: Path, name: str) -> None:
    cases = [
        Case("q1", "Hotel, per night?", AllOf((Quote("policy", 'He said "120"'), Leaf("faq#3"))),
             reference="120 EUR", facts=("120 EUR", "per night"), extra={"topic": "travel"}),
        Case("q2", "Taxi?", Span("policy", 40, 80)),
        Case("q3", "Parking?", None, answerable=False),
    ]  # fmt: skip
    write_cases(cases, tmp_path / name)
    back = load_cases(tmp_path / name)
    assert [(c.id, c.question, c.evidence, c.reference, c.facts, c.answerable) for c in back] == [
        (c.id, c.question, c.evidence, c.reference, c.facts, c.answerable) for c in cases
    ]
    assert back.by_id("q1").extra == {"topic": "travel"}  # type: ignore[union-attr]


def test_bulk_and_reference_readers_agree_on_document_leaves(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "question": "A?", "evidence": QUOTE},
        {"id": "b", "question": "B?", "evidence": {"any_of": [SPAN, "faq#3", QUOTE]}},
        {"id": "c", "question": "C?", "evidence": [{"document": " padded", "quote": "x"}, "z"]},
        {"id": "d", "question": "D?", "evidence": {"document": "d", "quote": "q", "all_of": ["x"]}},
        {
            "id": "e",
            "question": "E?",
            "evidence": {"all_of": [{"document": "d", "start": 3, "end": 3}]},
        },
    ]
    good = rows[:2]
    path = _write(tmp_path / "good.jsonl", "".join(json.dumps(r) + "\n" for r in good))
    bulk = load_cases(path)
    assert [c.evidence for c in bulk] == [
        Quote("travel-policy-2025", QUOTE["quote"]),
        AnyOf(
            (
                Span("travel-policy-2025", 1520, 1575),
                Leaf("faq#3"),
                Quote("travel-policy-2025", QUOTE["quote"]),
            )
        ),
    ]
    assert bulk.columns.leaf_table.height == 2  # one row per distinct leaf
    with pytest.raises(CaseError) as caught:
        load_cases(_write(tmp_path / "bad.jsonl", "".join(json.dumps(r) + "\n" for r in rows)))
    problems = [str(p) for p in caught.value.problems]
    assert (
        len(problems) == 2
        and "bad.jsonl:4: case 'd'" in problems[0]
        and "bad.jsonl:5: case 'e'" in problems[1]
    )
    # A padded document id is stripped by the full validation, as a chunk id is.
    assert load_cases(_write(tmp_path / "c.jsonl", json.dumps(rows[2]) + "\n")).by_id(
        "c"
    ).evidence == AllOf(  # type: ignore[union-attr]
        (Quote("padded", "x"), Leaf("z"))
    )
