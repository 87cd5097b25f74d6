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

import polars as pl
import pytest

from ragfunnel.analyzer.cases import (
    Case,
    CaseError,
    CaseSet,
    Leaf,
    bulk_readers,
    case_columns,
    load_cases,
    loading,
)
from ragfunnel.analyzer.funnel.analysis import case_tables

UNUSUAL: list[dict[str, Any]] = [
    {"id": 7, "question": "An integer id?", "evidence": "x"},
    {"id": " padded ", "question": "Padded id?", "evidence": [" a ", "b"]},
    {"id": "nested", "question": "Nested?", "evidence": {"all_of": ["a", {"any_of": ["b", "c"]}]}},
    {"id": "twice", "question": "Same id twice in a group?", "evidence": {"any_of": ["a", "a"]}},
    {"id": "int-leaf", "question": "Integer chunk id?", "evidence": 42},
    {"id": "yes", "question": "Answerable as a word?", "evidence": "x", "answerable": "yes"},
    {"id": "no", "question": "Unanswerable as a word?", "answerable": " No "},
    {"id": "nulls", "question": "Nulls?", "evidence": "x", "reference": None, "facts": None,
     "answerable": None},
    {"id": "tags", "question": "Extra fields?", "evidence": "x", "tags": ["a"], "owner": {"k": 1}},
    {"id": "numbers", "question": "Numeric facts?", "evidence": "x", "facts": [1, 2.5, "three"]},
    {"id": "one-fact", "question": "A single fact?", "evidence": ["x"], "facts": "only"},
    {"id": "kanji", "question": "日本語の質問", "evidence": {"any_of": ["p", "q"]}},
    {"id": "unanswerable", "question": "Refund for a cancelled flight?", "answerable": False},
    {"id": "reference", "question": "With a reference?", "evidence": ["a", "b"], "reference": "R"},
]  # fmt: skip


def plain(i: int) -> dict[str, Any]:
    kinds: list[Any] = [f"c{i}", [f"c{i}", f"d{i}"], {"any_of": [f"c{i}", "d"]}, {"all_of": ["e"]}]
    return {"id": f"q-{i}", "question": f"Question {i}?", "evidence": kinds[i % 4],
            "facts": [f"fact {i}"], "reference": f"Answer {i}."}  # fmt: skip


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


def mixed() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, case in enumerate(UNUSUAL):
        out += [plain(3 * i), plain(3 * i + 1), case, plain(3 * i + 2)]
    return out


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


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"id": "", "question": "Q?", "evidence": "x"}, "field 'id': required"),
        ({"id": "a", "question": "  ", "evidence": "x"}, "field 'question': required"),
        ({"id": "a", "question": "?!", "evidence": "x"}, "empty after normalisation"),
        ({"id": "a", "question": "Q?"}, "field 'evidence': required for an answerable case"),
        ({"id": "a", "question": "Q?", "answerable": False, "facts": ["f"]}, "has no facts"),
        ({"id": "a", "question": "Q?", "evidence": ["x", " "]}, "empty chunk id"),
        ({"id": "a", "question": "Q?", "evidence": "x", "facts": [" "]}, "non-empty strings"),
        ({"id": "a", "question": "Q?", "evidence": {"all_of": ["x"], "any_of": ["y"]}},
         "exactly one key"),
        ({"id": "a", "question": "Q?", "evidence": {}}, "got no keys"),
        ({"id": "a", "question": "Q?", "evidence": True}, "expected a chunk id"),
        ({"id": True, "question": "Q?", "evidence": "x"}, "field 'id': required"),
    ],
)  # fmt: skip
def test_every_plain_looking_mistake_is_reported(
    tmp_path: Path, case: dict[str, Any], message: str
) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(plain(0)) + "\n" + json.dumps(case) + "\n")
    with pytest.raises(CaseError, match=rf"c\.jsonl:2: .*{message}"):
        load_cases(path)


def test_comment_line_that_is_not_utf8_is_unreadable_as_before(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(json.dumps(plain(0)).encode() + b"\n// caf\xe9\n")
    with pytest.raises(CaseError, match="cannot read"):
        load_cases(path)


def test_loaded_and_built_sets_give_the_same_tables(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(case) for case in mixed()) + "\n")
    loaded = load_cases(path)
    built = CaseSet(tuple(loaded), loaded.source)
    assert case_tables(loaded)[0].equals(case_tables(built)[0])
    assert loaded.ambiguous_hashes() == built.ambiguous_hashes() == frozenset()
    assert loaded.question_hashes().equals(built.question_hashes())
    assert loaded.by_id("missing") is None and built.by_id("missing") is None
    assert loaded == built
    assert isinstance(loaded.columns.frame, pl.DataFrame)
    assert loaded.columns.frame.height == len(loaded) == len(built)


def test_case_set_of_a_generator_is_checked() -> None:
    cases = CaseSet.of(Case(f"c{i}", f"Q {i}?", Leaf("x")) for i in range(3))
    assert [c.id for c in cases] == ["c0", "c1", "c2"]
    assert case_tables(cases)[0].get_column("question_id").to_list() == ["c0", "c1", "c2"]


def test_many_lookups_in_a_loaded_set(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(plain(i)) + "\n" for i in range(50)))
    cases = load_cases(path)
    found = [cases.by_id(f"q-{i}") for i in range(49, -1, -1)]  # scans first, then the index
    assert [c.id for c in found if c is not None] == [f"q-{i}" for i in range(49, -1, -1)]
    assert cases.by_id("q-50") is None
    assert cases.ambiguous_hashes() is cases.ambiguous_hashes()  # computed once
