"""One reader per cases format: text in, :class:`Record` values (raw data with lines) out.

Each reader appends what is wrong with the file's syntax to ``problems`` and returns the
records it could read; checking the records is ``validation``'s job. Never touches the store.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

import yaml

from ragfunnel.analyzer.cases.problems import CaseProblem
from ragfunnel.analyzer.cases.validation import Record

__all__ = ["csv_records", "json_records", "jsonl_records", "yaml_records"]


def yaml_records(text: str, name: str, problems: list[CaseProblem]) -> list[Record]:
    """A YAML list of cases, or a mapping with a ``cases:`` list; every key keeps its line."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        problems.append(
            CaseProblem(name, line, None, None, f"invalid YAML: {_yaml_reason(exc)}", column)
        )
        return []
    if root is None:
        return []
    if isinstance(root, yaml.MappingNode):
        # Also accept ``cases: [...]`` so a file can carry other top-level keys.
        inner = [v for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == "cases"]
        if not inner:
            problems.append(
                CaseProblem(
                    name,
                    root.start_mark.line + 1,
                    None,
                    None,
                    "expected a list of cases (or a 'cases:' list)",
                )
            )
            return []
        root = inner[0]
    if not isinstance(root, yaml.SequenceNode):
        problems.append(
            CaseProblem(name, root.start_mark.line + 1, None, None, "expected a list of cases")
        )
        return []
    records = []
    for node in root.value:
        data = _construct(node)
        key_lines: dict[str, int] = {}
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode):
                    key_lines[k.value] = v.start_mark.line + 1
        records.append(Record(data, node.start_mark.line + 1, key_lines))
    return records


def _yaml_reason(exc: yaml.YAMLError) -> str:
    """PyYAML's reason without its ``in "<unicode string>"`` marks (the file is named already)."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return str(exc)
    parts = []
    if exc.context:
        mark = exc.context_mark
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        parts.append(f"{exc.context}{at}")
    if exc.problem:
        parts.append(exc.problem)
    return ": ".join(parts) or str(exc)


def _construct(node: yaml.Node) -> Any:
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    finally:
        loader.dispose()


def json_records(text: str, name: str, problems: list[CaseProblem]) -> list[Record]:
    """A JSON array of cases, or an object with a ``cases`` array (no lines per case)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(
            CaseProblem(name, exc.lineno, None, None, f"invalid JSON: {exc.msg}", exc.colno)
        )
        return []
    if isinstance(data, Mapping) and "cases" in data:
        data = data["cases"]
    if not isinstance(data, list):
        problems.append(CaseProblem(name, None, None, None, "expected a JSON array of cases"))
        return []
    return [Record(item, None) for item in data]


def jsonl_records(text: str, name: str, problems: list[CaseProblem]) -> list[Record]:
    """One JSON case per line; blank lines and ``//`` comment lines are skipped."""
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            records.append(Record(json.loads(line), number))
        except json.JSONDecodeError as exc:
            problems.append(
                CaseProblem(name, number, None, None, f"invalid JSON: {exc.msg}", exc.colno)
            )
    return records


# CSV cells are strings: structured fields take JSON, or ';'-separated lists for the flat forms.
_CSV_LIST_COLUMNS = ("all_of", "any_of")
# One document leaf as plain columns: document with quote, or document with start and end.
_CSV_DOCUMENT_COLUMNS = ("document", "quote", "start", "end")
_REST = "\x00rest"


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(";") if v.strip()]


def _csv_cell(key: str, value: str) -> Any:
    if key == "evidence":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return _split(value)
    if key == "facts":
        if value.startswith("["):
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                return value
        return _split(value)
    if key in _CSV_LIST_COLUMNS:
        return _split(value)
    if key in ("start", "end"):
        try:
            return int(value)
        except ValueError:
            return value  # the evidence parser names the cell
    return value


def csv_records(text: str, name: str, problems: list[CaseProblem], delimiter: str) -> list[Record]:
    """One case per row under a header.

    Evidence as JSON (``evidence``), ``;``-separated flat groups (``all_of`` or ``any_of``),
    or one document leaf in plain columns: ``document`` with ``quote``, or ``document`` with
    ``start`` and ``end``.
    """
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter, restkey=_REST)
    records = []
    for row in reader:
        line = reader.line_num
        data: dict[str, Any] = {}
        for raw_key, raw_value in row.items():
            if raw_key == _REST:
                problems.append(
                    CaseProblem(name, line, None, None, "more cells than header columns")
                )
                continue
            if not isinstance(raw_value, str) or not raw_value.strip():
                continue
            key = raw_key.strip()
            data[key] = _csv_cell(key, raw_value.strip())
        groups = [k for k in _CSV_LIST_COLUMNS if k in data]
        leaf = {k: data.pop(k) for k in _CSV_DOCUMENT_COLUMNS if k in data}
        if leaf:
            if "evidence" in data or groups:
                message = "give evidence in one way: evidence (JSON), all_of, any_of or document"
                problems.append(CaseProblem(name, line, str(data.get("id")), "evidence", message))
            else:
                data["evidence"] = leaf
        elif groups:
            if "evidence" in data or len(groups) > 1:
                message = "give evidence in one column: evidence (JSON), all_of or any_of"
                problems.append(CaseProblem(name, line, str(data.get("id")), "evidence", message))
            else:
                data["evidence"] = {groups[0]: data.pop(groups[0])}
        records.append(Record(data, line))
    return records
