"""Plain shapes (cases/plain_shapes.py): a case that looks plain but is not is flagged, then reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import polars as pl
import pytest

from ragfunnel.analyzer.cases import CaseError, Quote, load_cases
from ragfunnel.analyzer.cases.plain_shapes import PlainCase, plain_batch
from tests.support.case_files import plain


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


ROWS: list[dict[str, Any]] = [
    {"id": "q0", "question": "Fine?", "evidence": "a"},
    {"id": " q1", "question": "Padded id?", "evidence": "a"},
    {"id": "q2", "question": "  ", "evidence": "a"},
    {"id": "q3", "question": "Empty group?", "evidence": {"all_of": []}},
    {"id": "q4", "question": "Twice?", "evidence": ["a", "a"]},
    {"id": "q5", "question": "No evidence?"},
    {"id": "q6", "question": "Unanswerable with facts?", "answerable": False, "facts": ["x"]},
    {"id": "q7", "question": "Blank fact?", "evidence": "a", "facts": [" "]},
    {"id": "q8", "question": "Any?", "evidence": {"any_of": ["a", "b"]}, "facts": "one",
     "reference": "R"},
    {"id": "q9", "question": "Quote?", "evidence": {"document": "d", "quote": "x"}},
]  # fmt: skip


def test_a_batch_flags_the_rows_the_full_validation_must_see() -> None:
    cases = msgspec.json.decode(json.dumps(ROWS).encode(), type=list[PlainCase])
    frame, flagged, leaves = plain_batch(cases, pl.Series(range(1, 11)))
    assert flagged == [1, 2, 3, 4, 5, 6, 7]  # q0, q8 and q9 are plain and sound
    assert frame.get_column("root_kind").to_list()[8:] == ["any", "leaf"]
    assert frame.row(8) == ("q8", "Any?", True, ["a", "b"], "any", ["one"], "R", 9)
    (label,) = leaves.get_column("label").to_list()
    assert frame.get_column("items")[9].to_list() == [label]
    assert label == Quote("d", "x").id and leaves.row(0)[1:] == ("d", "x", None, None)


def test_other_shapes_are_refused_at_decoding() -> None:
    for raw in (
        b'{"id": "x", "question": "q", "tags": []}',  # an extra field
        b'{"id": 1, "question": "q"}',  # an integer id
        b'{"id": "x", "question": "q", "evidence": {"all_of": [["a"]]}}',  # nested
    ):
        with pytest.raises(msgspec.ValidationError):
            msgspec.json.decode(raw, type=PlainCase)
