"""``load_cases``: read a cases file in the format its extension names, validate, and report.

Never touches the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ragfunnel.analyzer.cases.caseset import CaseSet
from ragfunnel.analyzer.cases.problems import CaseError, CaseProblem
from ragfunnel.analyzer.cases.readers import csv_records, json_records, jsonl_records, yaml_records
from ragfunnel.analyzer.cases.validation import check_duplicates, to_case

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
                "unknown cases format: use .yaml/.yml, .json, .jsonl or .csv",
            )
        ]
    )


def load_cases(path: str | Path) -> CaseSet:
    """Read and validate a cases file (YAML, JSON, JSON Lines or CSV, chosen by extension).

    Raises :class:`CaseError` listing every problem, each naming file, line, case and field.
    """
    p = Path(path)
    name = str(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseError([CaseProblem(name, None, None, None, f"cannot read: {exc}")]) from exc
    fmt = format_of(p)
    problems: list[CaseProblem] = []
    if fmt == "yaml":
        records = yaml_records(text, name, problems)
    elif fmt == "json":
        records = json_records(text, name, problems)
    elif fmt == "jsonl":
        records = jsonl_records(text, name, problems)
    else:
        records = csv_records(text, name, problems, delimiter="\t" if p.suffix == ".tsv" else ",")
    cases = [c for r in records if (c := to_case(r, name, problems)) is not None]
    check_duplicates(cases, name, problems)
    if not cases and not problems:
        problems.append(CaseProblem(name, None, None, None, "no cases found"))
    if problems:
        raise CaseError(problems)
    return CaseSet(tuple(cases), name)
