"""Plain shapes (cases/plain_shapes.py): a case that looks plain but is not is flagged, then reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragfunnel.analyzer.cases import (
    CaseError,
    load_cases,
)
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
