"""Writing cases back to a file, in the format its extension names (YAML, JSON, JSONL, CSV).

The inverse of the readers, field for field: ``load_cases`` reads back the cases written here
(``ragfunnel cases rebase`` writes its output so). Comments and key order of a hand-written
YAML file are not kept. Never touches the store.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from ragfunnel.analyzer.cases.case import Case
from ragfunnel.analyzer.cases.evidence import evidence_to_data
from ragfunnel.analyzer.cases.loading import format_of

__all__ = ["case_to_data", "cases_text", "write_cases"]

_CSV_FIELDS = ("id", "question", "evidence", "reference", "facts", "answerable")


def case_to_data(case: Case) -> dict[str, Any]:
    """A case as the mapping a cases file holds (fields at their defaults left out)."""
    data: dict[str, Any] = {"id": case.id, "question": case.question}
    if case.evidence is not None:
        data["evidence"] = evidence_to_data(case.evidence)
    if case.reference is not None:
        data["reference"] = case.reference
    if case.facts:
        data["facts"] = list(case.facts)
    if not case.answerable:
        data["answerable"] = False
    data.update(case.extra)
    return data


def cases_text(cases: Iterable[Case], path: str | Path) -> str:
    """The text of a cases file of ``path``'s format holding ``cases``."""
    fmt = format_of(Path(path))
    rows = [case_to_data(case) for case in cases]
    if fmt == "yaml":
        return str(yaml.safe_dump(rows, sort_keys=False, allow_unicode=True, width=100))
    if fmt == "json":
        return json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    extra = list(dict.fromkeys(k for row in rows for k in row if k not in _CSV_FIELDS))
    out = io.StringIO(newline="")
    delimiter = "\t" if Path(path).suffix.lower() == ".tsv" else ","
    writer = csv.DictWriter(out, [*_CSV_FIELDS, *extra], delimiter=delimiter, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: _cell(key, value) for key, value in row.items()})
    return out.getvalue()


def _cell(key: str, value: Any) -> str:
    if key in ("evidence", "facts") or not isinstance(value, str):
        if key == "answerable":
            return "false" if value is False else "true"
        return json.dumps(value, ensure_ascii=False)
    return value


def write_cases(cases: Iterable[Case], path: str | Path) -> None:
    """Write ``cases`` to ``path`` in the format its extension names (UTF-8)."""
    Path(path).write_text(cases_text(cases, path), encoding="utf-8")
