"""The fast (columnar) loading path gives exactly what the reference path gives.

``load_cases`` reads JSON and JSON Lines in bulk and keeps the cases as columns; on anything it
does not vouch for it hands the file to the reference readers and validation. These tests
feed both the same files — plain cases, every unusual-but-valid shape, broken files — and
compare the cases, the analyzer's case tables and the error messages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragfunnel.analyzer.cases import (
    AllOf,
    AnyOf,
    CaseError,
    CaseSet,
    Leaf,
    Quote,
    Span,
    bulk_readers,
    case_columns,
    load_cases,
    loading,
)
from ragfunnel.analyzer.funnel.analysis import case_tables
from tests.support.case_files import QUOTE, SPAN, mixed, plain


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def reference(path: Path) -> CaseSet:
    return loading._reference(path, str(path))


def assert_same(path: Path) -> CaseSet:
    """The quick path accepts the file and agrees with the reference path on everything."""
    built = loading._quick(path.read_bytes(), loading.format_of(path), path, str(path))
    assert built is not None, "the quick path handed a valid file to the reference path"
    fast, slow = CaseSet.from_columns(built), reference(path)
    assert fast == load_cases(path)
    assert fast.cases == slow.cases
    assert [c.source for c in fast.cases] == [c.source for c in slow.cases]
    assert case_tables(fast)[0].equals(case_tables(slow)[0])
    assert case_tables(fast)[1].equals(case_tables(slow)[1])
    return fast


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks and flushes of a few cases, so that their edges fall everywhere."""
    monkeypatch.setattr(bulk_readers, "_CHUNK_BYTES", 200)
    monkeypatch.setattr(bulk_readers, "_CHUNK_CASES", 3)
    monkeypatch.setattr(case_columns, "_FLUSH_ROWS", 2)


@pytest.mark.usefixtures("small_chunks")
def test_jsonl_mixed_shapes_match_the_reference(tmp_path: Path) -> None:
    lines = [json.dumps(case, ensure_ascii=False) for case in mixed()]
    lines[5:5] = ["", "   ", "// a comment", "  // an indented comment"]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cases = assert_same(path)
    assert cases.by_id("7") is not None and cases.by_id("padded") is not None
    assert cases.by_id("tags").extra == {"tags": ["a"], "owner": {"k": 1}}  # type: ignore[union-attr]
    assert cases.by_id("numbers").facts == ("1", "2.5", "three")  # type: ignore[union-attr]
    assert cases.by_id("q-0").source == f"{path}:1"  # type: ignore[union-attr]


def test_jsonl_crlf_bom_and_no_final_newline(tmp_path: Path) -> None:
    text = "\r\n".join(json.dumps(case) for case in mixed())
    path = tmp_path / "c.ndjson"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert_same(path)


def test_jsonl_odd_line_breaks_count_lines_as_the_reference(tmp_path: Path) -> None:
    # A lone CR and U+2028 are line breaks for str.splitlines(): lines shift (or break).
    rows = [json.dumps(plain(i)) for i in range(4)]
    path = tmp_path / "c.jsonl"
    path.write_bytes(("\n".join(rows[:2]) + "\r" + "\n".join(rows[2:])).encode())
    assert [c.source for c in load_cases(path)] == [f"{path}:{n}" for n in (1, 2, 3, 4)]
    path.write_text(
        json.dumps({**plain(0), "question": "Why\u2028now?"}, ensure_ascii=False) + "\n", "utf-8"
    )
    with pytest.raises(CaseError, match=r"c\.jsonl:1:\d+: invalid JSON"):
        load_cases(path)


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("wrapped", [False, True])
def test_json_array_and_cases_key_match_the_reference(tmp_path: Path, wrapped: bool) -> None:
    data: Any = mixed()
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"version": 2, "cases": data} if wrapped else data, indent=1))
    cases = assert_same(path)
    assert len(cases) == len(data)


def test_json_that_only_python_reads_still_loads(tmp_path: Path) -> None:
    # NaN is not JSON, but json.loads reads it (and it sits in an extra field): same as before.
    path = tmp_path / "c.json"
    path.write_text('[{"id": "a", "question": "Q?", "evidence": "x", "score": NaN}]')
    (case,) = load_cases(path)
    assert case.id == "a" and case.evidence == Leaf("x")


@pytest.mark.usefixtures("small_chunks")
def test_yaml_and_csv_match_the_reference(tmp_path: Path) -> None:
    yaml_path = tmp_path / "c.yaml"
    yaml_path.write_text("\n".join(f"- {json.dumps(case)}" for case in mixed()) + "\n")
    assert_same(yaml_path)
    csv_path = tmp_path / "c.csv"
    csv_path.write_text(
        "id,question,all_of,any_of,facts,answerable,tags\n"
        + "".join(f"q{i},Question {i}?,a{i};b{i},,f{i},,t\n" for i in range(7))
        + "u,Unanswerable?,,,,no,\n"
        + "w, Padded ,,x;y,,yes,\n"
    )
    assert_same(csv_path)


@pytest.mark.usefixtures("small_chunks")
def test_errors_in_a_large_file_name_their_lines(tmp_path: Path) -> None:
    rows = [plain(i) for i in range(40)]
    rows[17] = {**rows[17], "evidnce": ["x"]}
    rows[31] = {**rows[31], "id": "q-3"}
    rows[36] = {**rows[36], "evidence": {"all_of": []}}
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(CaseError) as info:
        load_cases(path)
    problems = [str(p) for p in info.value.problems]
    assert problems == [
        f"{path}:18: case 'q-17': field 'evidnce': unknown field (did you mean 'evidence'?)",
        f"{path}:37: case 'q-36': field 'evidence': evidence.all_of: empty group",
        f"{path}:32: case 'q-3': field 'id': duplicate id (first defined at {path}:4)",
    ]


def test_comment_line_that_is_not_utf8_is_unreadable_as_before(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(json.dumps(plain(0)).encode() + b"\n// caf\xe9\n")
    with pytest.raises(CaseError, match="cannot read"):
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
