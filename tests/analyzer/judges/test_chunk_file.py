"""The chunk file (judges/chunk_file.py): chunk id -> text from JSON Lines or Parquet, problems named."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from ragfunnel.analyzer.judges import JudgeError
from ragfunnel.analyzer.judges.chunk_file import load_chunks


def test_bad_chunk_files_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "chunks.jsonl"
    path.write_text(
        '{"id": "a", "text": "x"}\n{"id": "b"}\nnot json\n{"id": 3, "text": "y"}\n'
        '{"id": "a", "text": "other"}\n[1]\n',
        encoding="utf-8",
    )
    with pytest.raises(JudgeError) as caught:
        load_chunks(path)
    text = str(caught.value)
    assert f"{path}:2: field 'text': missing" in text
    assert f"{path}:3: not JSON" in text
    assert f"{path}:4: field 'id': expected a non-empty string, got 3" in text
    assert f"{path}:5: field 'text': chunk 'a' already has another text (line 1)" in text
    assert f"{path}:6: not a JSON object" in text
    (tmp_path / "x.csv").write_text("id,text\n", encoding="utf-8")
    with pytest.raises(JudgeError, match=r"is \.jsonl or \.parquet"):
        load_chunks(tmp_path / "x.csv")
    pl.DataFrame({"id": ["a"]}).write_parquet(tmp_path / "c.parquet")
    with pytest.raises(JudgeError, match="no column 'text'"):
        load_chunks(tmp_path / "c.parquet")


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson", ".JSONL"])
def test_json_lines_ignore_other_fields_blank_lines_and_a_repeated_id_with_its_text(
    tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"chunks{suffix}"
    path.write_text(
        '{"id": "a", "text": "Ein Taxi.", "source": "wiki"}\n\n   \n'
        '{"id": "b", "text": ""}\n{"id": "a", "text": "Ein Taxi."}',  # no final newline
        encoding="utf-8",
    )
    assert load_chunks(str(path)) == {"a": "Ein Taxi.", "b": ""}


def test_parquet_rows_are_named_by_their_number_from_one(tmp_path: Path) -> None:
    path = tmp_path / "chunks.parquet"
    pl.DataFrame(
        {"id": ["a", None, "a", ""], "text": ["x", "y", "other", "z"], "extra": [1, 2, 3, 4]}
    ).write_parquet(path)
    with pytest.raises(JudgeError) as caught:
        load_chunks(path)
    text = str(caught.value)
    assert text.startswith("3 problem(s) in the chunk file:")
    assert f"{path}:2: field 'id': missing" in text
    assert f"{path}:3: field 'text': chunk 'a' already has another text (row 1)" in text
    assert f"{path}:4: field 'id': expected a non-empty string, got ''" in text


def test_a_missing_file_and_a_file_that_is_not_parquet_are_named(tmp_path: Path) -> None:
    with pytest.raises(JudgeError, match="no such chunk file"):
        load_chunks(tmp_path / "absent.jsonl")
    fake = tmp_path / "fake.parquet"
    fake.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    with pytest.raises(JudgeError, match=f"{fake}: cannot read as Parquet"):
        load_chunks(fake)
    bare = tmp_path / "chunks"
    bare.write_text("", encoding="utf-8")
    with pytest.raises(JudgeError, match="not no suffix"):
        load_chunks(bare)


def test_every_problem_is_counted_and_the_first_twenty_shown(tmp_path: Path) -> None:
    path = tmp_path / "chunks.jsonl"
    path.write_text("".join(f'{{"id": "c{n}"}}\n' for n in range(25)), encoding="utf-8")
    with pytest.raises(JudgeError) as caught:
        load_chunks(path)
    text = str(caught.value)
    assert text.startswith("25 problem(s)")
    assert f"{path}:20: field 'text': missing" in text
    assert f"{path}:21:" not in text
    assert text.endswith("… and 5 more")
