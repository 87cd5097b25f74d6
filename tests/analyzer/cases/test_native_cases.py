"""Cases read by the native package give exactly what the msgspec path gives.

Generated JSON Lines files mix the shapes the native reader takes (string ids, ids or one group
of ids as evidence, string facts and reference, a boolean or null ``answerable``) with what it
must leave to the msgspec path (document leaves, numbers, other keys, both groups, a key twice,
blank lines, CRLF) and with values the checks flag (blank or padded ids, an empty group, an id
named twice, evidence on an unanswerable case). Each file is read with the native reader and
without it: the columns, and the problems of an invalid file, must be the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragfunnel.environment_variables as env
from ragfunnel.analyzer.cases import bulk_readers, case_columns, loading, native_cases
from ragfunnel.analyzer.cases.case_columns import CaseColumns

texts = st.text(
    st.characters(exclude_categories=("Cs",))
    | st.sampled_from([" ", "\t", '"', "\\", "\n", "\x00", "\x1f", "\u2028", "é", "😀", "\x85"]),
    max_size=6,
)
ids = st.sampled_from(["a", "b", "doc1#0", " padded", ""]) | texts
plain_evidence = st.one_of(
    st.none(),
    ids,
    st.lists(ids, max_size=3),
    st.builds(lambda key, values: {key: values}, st.sampled_from(["all_of", "any_of"]),
              st.lists(ids, max_size=3)),
)  # fmt: skip
odd_evidence = st.sampled_from(
    [
        {"all_of": ["a"], "any_of": ["b"]},
        {"document": "d", "quote": "q"},
        {"any_of": [{"document": "d", "quote": "q"}]},
        ["a", {"document": "d", "start": 0, "end": 3}],
        {"all_of": None},
        {"any_of": ["a", ["b"]]},
        7,
    ]
)


@st.composite
def cases(draw: st.DrawFn, *, odd: bool) -> dict[str, Any]:
    case: dict[str, Any] = {"id": draw(ids), "question": draw(texts | st.just("Why?"))}
    if draw(st.booleans()):
        case["evidence"] = draw(odd_evidence if odd else plain_evidence)
    if draw(st.booleans()):
        case["facts"] = draw(st.none() | texts | st.lists(texts, max_size=3))
    if draw(st.booleans()):
        case["reference"] = draw(st.none() | texts)
    if draw(st.booleans()):
        case["answerable"] = draw(st.none() | st.booleans())
    if odd and draw(st.booleans()):
        case[draw(st.sampled_from(["tags", "id", "facts"]))] = draw(
            st.sampled_from([1, 2.5, ["x"]])
        )
    return dict(draw(st.permutations(list(case.items()))))


@st.composite
def files(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A JSON Lines file, and whether every line of it is one the native reader takes."""
    clean = draw(st.booleans())
    lines = []
    for case in draw(st.lists(cases(odd=False), min_size=1, max_size=12)):
        lines.append(json.dumps(case, ensure_ascii=draw(st.booleans())))
        if not clean and draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "  ", "// note", '{"id": "x", "id": "y", '
                                               '"question": "q"}'])
                              | cases(odd=True).map(json.dumps)))  # fmt: skip
    end = "\r\n" if not clean and draw(st.booleans()) else "\n"
    text = end.join(lines) + draw(st.sampled_from([end, ""]))
    return text.encode("utf-8"), clean


@pytest.fixture
def native_taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Small blocks; each native read's outcome (taken or declined), in order."""
    monkeypatch.delenv(env.NATIVE, raising=False)
    assert native_cases.native_reader() is not None, (
        "ragfunnel-native is not installed (pip install ./native)"
    )
    outcomes: list[bool] = []

    def counted() -> Any:
        reader = native_cases.native_reader()  # None when RAGFUNNEL_NATIVE=0
        if reader is None:
            return None

        def read(block: bytes, first_line: int) -> Any:
            found = reader(block, first_line)
            outcomes.append(found is not None)
            return found

        return read

    monkeypatch.setattr(bulk_readers, "native_reader", counted)
    monkeypatch.setattr(bulk_readers, "_CHUNK_BYTES", 120)
    monkeypatch.setattr(case_columns, "_FLUSH_ROWS", 3)
    return outcomes


def _read(raw: bytes, path: Path) -> CaseColumns | None:
    """The quick path's columns (None: the reference path would read the file)."""
    return loading._quick(raw, "jsonl", path, str(path))


def _same(a: CaseColumns | None, b: CaseColumns | None) -> None:
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        assert a.frame.equals(b.frame), (a.frame, b.frame)
        assert a.frame.schema == b.frame.schema
        assert (a.trees, a.extras, a.source) == (b.trees, b.extras, b.source)
        assert a.leaf_table.equals(b.leaf_table)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=files())
def test_native_blocks_give_the_msgspec_paths_columns(
    drawn: tuple[bytes, bool], native_taken: list[bool], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    raw, clean = drawn
    path = tmp_path / "cases.jsonl"
    native_taken.clear()
    fast = _read(raw, path)
    if clean and not bulk_readers._odd_breaks(raw):  # (an odd break sends the file elsewhere)
        assert native_taken and all(native_taken), "a block of plain lines was declined"
    monkeypatch.setenv(env.NATIVE, "0")
    try:
        native_taken.clear()
        _same(fast, _read(raw, path))
        assert not native_taken
    finally:
        monkeypatch.delenv(env.NATIVE)


def test_a_declined_line_declines_its_block_only(native_taken: list[bool], tmp_path: Path) -> None:
    lines = [json.dumps({"id": f"q{i}", "question": "Why?", "evidence": ["d"]}) for i in range(12)]
    lines[6] = json.dumps({"id": "q6", "question": "Why?", "evidence": [{"document": "d",
                                                                           "quote": "x"}]})  # fmt: skip
    raw = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "cases.jsonl"
    found = _read(raw, path)
    assert isinstance(found, CaseColumns)
    assert True in native_taken and False in native_taken
    assert found.frame.get_column("line").to_list() == list(range(1, 13))
    assert found.frame.get_column("items").to_list()[6] == ['d "x"']


def test_the_native_frame_has_the_plain_frames_columns(native_taken: list[bool]) -> None:
    reader = native_cases.native_reader()
    assert reader is not None
    block = b'{"id": "a", "question": "q", "evidence": {"any_of": ["x", "y"]}, "facts": "f"}\n'
    found = reader(block, 7)
    assert found is not None
    frame, flagged = found
    assert flagged == []
    assert frame.to_dicts() == [
        {"id": "a", "question": "q", "answerable": True, "items": ["x", "y"], "root_kind": "any",
         "facts": ["f"], "reference": None, "line": 7}
    ]  # fmt: skip
    assert frame.schema["items"] == pl.List(pl.String)
