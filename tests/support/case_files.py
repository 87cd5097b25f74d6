"""Cases files the cases tests share: a writer, document leaves, plain and unusual cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


QUOTE = {"document": "travel-policy-2025", "quote": "The hotel allowance is 120 EUR per night"}


SPAN = {"document": "travel-policy-2025", "start": 1520, "end": 1575}


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


def mixed() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, case in enumerate(UNUSUAL):
        out += [plain(3 * i), plain(3 * i + 1), case, plain(3 * i + 2)]
    return out
