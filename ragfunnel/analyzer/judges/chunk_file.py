"""A chunk file: the text of each chunk id, for apps whose spans record ids only.

``ragfunnel judge --chunks chunks.jsonl`` (or ``.parquet``) fills in the text of every prompt
chunk no span recorded. The format (docs/judges.md, "Chunk text"):

- JSON Lines: one object per line with string fields ``id`` and ``text`` (other fields are
  ignored; blank lines are skipped);
- Parquet: string columns ``id`` and ``text`` (other columns are ignored).

An id given twice with the same text is fine; with two different texts it is an error. Every
problem names the file, the line (JSON Lines) or row (Parquet, 1-based) and the field, and all
are reported at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from ragfunnel.analyzer.judges.verdict_types import JudgeError

__all__ = ["load_chunks"]

_SHOWN = 20


def _problem(path: Path, where: str, field: str, what: str) -> str:
    return f"{path}:{where}: field '{field}': {what}"


def load_chunks(path: str | Path) -> dict[str, str]:
    """Chunk id → text from a JSON Lines or Parquet chunk file (see the module docstring).

    Raises:
        JudgeError: the file is missing, of another kind, or has bad lines (all named).
    """
    path = Path(path)
    if not path.is_file():
        raise JudgeError(f"{path}: no such chunk file")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        rows = _jsonl(path)
        where = "line"
    elif suffix == ".parquet":
        rows = _parquet(path)
        where = "row"
    else:
        raise JudgeError(f"{path}: a chunk file is .jsonl or .parquet, not {suffix or 'no suffix'}")
    problems: list[str] = []
    out: dict[str, str] = {}
    first: dict[str, int] = {}
    for number, record in rows:
        if isinstance(record, str):
            problems.append(f"{path}:{number}: {record}")
            continue
        bad = False
        for field in ("id", "text"):
            value = record.get(field)
            if not isinstance(value, str) or (field == "id" and not value):
                shown = (
                    "missing" if value is None else f"expected a non-empty string, got {value!r}"
                )
                problems.append(_problem(path, f"{number}", field, shown))
                bad = True
        if bad:
            continue
        chunk, text = str(record["id"]), str(record["text"])
        if chunk in out and out[chunk] != text:
            problems.append(
                _problem(path, f"{number}", "text",
                         f"chunk {chunk!r} already has another text ({where} {first[chunk]})")
            )  # fmt: skip
            continue
        out.setdefault(chunk, text)
        first.setdefault(chunk, number)
    if problems:
        more = f"\n… and {len(problems) - _SHOWN} more" if len(problems) > _SHOWN else ""
        raise JudgeError(
            f"{len(problems)} problem(s) in the chunk file:\n" + "\n".join(problems[:_SHOWN]) + more
        )
    return out


def _jsonl(path: Path) -> list[tuple[int, dict[str, object] | str]]:
    rows: list[tuple[int, dict[str, object] | str]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                rows.append((number, f"not JSON: {exc.msg} (column {exc.colno})"))
                continue
            rows.append((number, record if isinstance(record, dict) else "not a JSON object"))
    return rows


def _parquet(path: Path) -> list[tuple[int, dict[str, object] | str]]:
    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # polars raises several kinds for a file that is not Parquet
        raise JudgeError(f"{path}: cannot read as Parquet: {exc}") from exc
    missing = [c for c in ("id", "text") if c not in frame.columns]
    if missing:
        raise JudgeError(
            f"{path}: no column {', '.join(repr(c) for c in missing)} (needs id, text)"
        )
    return [
        (number, {"id": chunk, "text": text})
        for number, (chunk, text) in enumerate(frame.select("id", "text").iter_rows(), start=1)
    ]
