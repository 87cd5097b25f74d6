"""``load_cases``: read a cases file in the format its extension names, validate, and report.

Two paths with one outcome. The quick one decodes the file in bulk (msgspec for JSON and
JSON Lines; the reference readers for YAML and CSV) into columns, checking each plain record
in a few operations and only the others in full. When it meets anything wrong, or anything it
does not vouch for, the reference path reads the file again and validates every case as a
``Case`` value: it alone words the problems (all of them, each with file, line, case and field),
so errors read the same whichever path found them first. Never touches the store.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from ragfunnel.analyzer.cases.bulk_readers import BOM, json_into, jsonl_into
from ragfunnel.analyzer.cases.case_columns import CaseColumns, ColumnBuilder
from ragfunnel.analyzer.cases.caseset import CaseSet
from ragfunnel.analyzer.cases.problems import CaseError, CaseProblem
from ragfunnel.analyzer.cases.readers import csv_records, json_records, jsonl_records, yaml_records
from ragfunnel.analyzer.cases.validation import Record, check_duplicates, to_case

__all__ = ["Format", "format_of", "load_cases"]

Format = Literal["yaml", "json", "jsonl", "csv"]


def format_of(path: Path) -> Format:
    """The cases format an extension names; raises :class:`CaseError` for any other."""
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix == ".json":
        return "json"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    raise CaseError(
        [
            CaseProblem(
                str(path),
                None,
                None,
                None,
                "unknown cases format: use .yaml/.yml, .json, .jsonl/.ndjson or .csv/.tsv",
            )
        ]
    )


def load_cases(path: str | Path) -> CaseSet:
    """Read and validate a cases file (YAML, JSON, JSON Lines or CSV, chosen by extension).

    JSON and JSON Lines are the fast formats (about a million cases in a few seconds, stored as
    columns); YAML is parsed node by node and is several times slower.

    Raises :class:`CaseError` listing every problem, each naming file, line, case and field.
    """
    p = Path(path)
    name = str(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise CaseError([CaseProblem(name, None, None, None, f"cannot read: {exc}")]) from exc
    try:
        fmt = format_of(p)
    except CaseError:
        return _reference(p, name)  # an unreadable file says so before its extension is judged
    with _collector_paused():
        columns = _quick(raw, fmt, p, name)
    del raw
    if columns is None:
        return _reference(p, name)
    return CaseSet.from_columns(columns)


@contextmanager
def _collector_paused() -> Iterator[None]:
    # Decoding makes millions of short-lived containers and no cycles: without the pause the
    # cyclic collector rescans the growing heap over and over (several times the decoding).
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _quick(raw: bytes, fmt: Format, path: Path, name: str) -> CaseColumns | None:
    """The columns of a valid file, or None: then the reference path decides and reports."""
    builder = ColumnBuilder(name)
    if fmt == "jsonl":
        if not jsonl_into(raw, builder):
            return None
    elif fmt == "json":
        if not json_into(raw, builder):
            return None
    else:
        try:
            text = raw.removeprefix(BOM).decode("utf-8")
        except UnicodeDecodeError:
            return None
        # What read_text's universal newlines make of line ends, so lines count the same.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if fmt == "yaml":
            records = yaml_records(text, name, builder.problems)
        else:
            records = csv_records(text, name, builder.problems, _delimiter(path))
        builder.add_records(records)
    return builder.build() if len(builder) else None


def _delimiter(path: Path) -> str:
    return "\t" if path.suffix == ".tsv" else ","


def _reference(p: Path, name: str) -> CaseSet:
    """Every case validated as a ``Case`` value; raises :class:`CaseError` with every problem."""
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseError([CaseProblem(name, None, None, None, f"cannot read: {exc}")]) from exc
    fmt = format_of(p)
    problems: list[CaseProblem] = []
    records: list[Record]
    if fmt == "yaml":
        records = yaml_records(text, name, problems)
    elif fmt == "json":
        records = json_records(text, name, problems)
    elif fmt == "jsonl":
        records = jsonl_records(text, name, problems)
    else:
        records = csv_records(text, name, problems, _delimiter(p))
    cases = [c for r in records if (c := to_case(r, name, problems)) is not None]
    check_duplicates(cases, name, problems)
    if not cases and not problems:
        problems.append(CaseProblem(name, None, None, None, "no cases found"))
    if problems:
        raise CaseError(problems)
    return CaseSet(tuple(cases), name)
