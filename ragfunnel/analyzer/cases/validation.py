"""Checking one record read from a cases file and turning it into a :class:`Case`.

Every problem is appended to the caller's list (never raised one at a time), located by file,
line, case and field, so that one pass reports them all. Never reads files.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragfunnel.analyzer.cases.case import Case
from ragfunnel.analyzer.cases.evidence import Evidence, parse_evidence
from ragfunnel.analyzer.cases.problems import CaseError, CaseProblem, EvidenceError
from ragfunnel.instrumentation.contract import normalize_question

__all__ = ["FIELDS", "Record", "check_case_set", "check_duplicates", "to_case"]

FIELDS = ("id", "question", "evidence", "reference", "facts", "answerable")
TRUE = frozenset({"true", "yes", "1", "y"})
FALSE = frozenset({"false", "no", "0", "n"})


@dataclass
class Record:
    """One case as a reader found it: the raw value, its line, and the line of each key."""

    data: Any
    line: int | None
    key_lines: Mapping[str, int] = field(default_factory=dict)


def to_case(record: Record, name: str, problems: list[CaseProblem]) -> Case | None:
    """The case of one record, or None after appending its problems."""
    data = record.data
    if not isinstance(data, Mapping):
        problems.append(
            CaseProblem(
                name,
                record.line,
                None,
                None,
                f"a case must be a mapping, got {type(data).__name__}",
            )
        )
        return None
    before = len(problems)
    raw_id = data.get("id")
    case_id = (
        str(raw_id).strip()
        if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool)
        else None
    )

    def problem(fld: str | None, message: str) -> None:
        line = record.key_lines.get(fld, record.line) if fld else record.line
        problems.append(CaseProblem(name, line, case_id, fld, message))

    if not case_id:
        problem("id", "required: a non-empty string")
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        problem("question", "required: a non-empty string")
        question = ""
    extra: dict[str, Any] = {}
    for key in data:
        if key in FIELDS:
            continue
        close = difflib.get_close_matches(str(key), FIELDS, n=1, cutoff=0.75)
        if close:
            problem(str(key), f"unknown field (did you mean {close[0]!r}?)")
        else:
            extra[str(key)] = data[key]
    evidence: Evidence | None = None
    if data.get("evidence") is not None:
        try:
            evidence = parse_evidence(data["evidence"])
        except EvidenceError as exc:
            problem("evidence", str(exc))
    reference = data.get("reference")
    if reference is not None and not isinstance(reference, str):
        problem("reference", f"expected a string, got {type(reference).__name__}")
        reference = None
    facts_raw = data.get("facts")
    facts: tuple[str, ...] = ()
    if isinstance(facts_raw, str):
        facts = (facts_raw,)
    elif isinstance(facts_raw, list):
        if all(isinstance(f, (str, int, float)) and not isinstance(f, bool) for f in facts_raw):
            facts = tuple(str(f) for f in facts_raw)
        else:
            problem("facts", "expected a list of strings")
    elif facts_raw is not None:
        problem("facts", f"expected a list of strings, got {type(facts_raw).__name__}")
    if any(not f.strip() for f in facts):
        problem("facts", "facts must be non-empty strings")
    answerable = True
    raw_answerable = data.get("answerable")
    if isinstance(raw_answerable, bool):
        answerable = raw_answerable
    elif isinstance(raw_answerable, str) and raw_answerable.strip().lower() in TRUE | FALSE:
        answerable = raw_answerable.strip().lower() in TRUE
    elif raw_answerable is not None:
        problem("answerable", f"expected true or false, got {raw_answerable!r}")
    if len(problems) > before:
        return None
    case = Case(
        id=str(case_id),
        question=question,
        evidence=evidence,
        reference=reference,
        facts=facts,
        answerable=answerable,
        extra=extra,
        source=name + (f":{record.line}" if record.line else ""),
    )
    check_case_logic(case, name, record.line, problems)
    return case if len(problems) == before else None


def check_case_logic(case: Case, name: str, line: int | None, problems: list[CaseProblem]) -> None:
    """The rules between fields: evidence iff answerable, no facts when unanswerable."""
    if case.answerable and case.evidence is None:
        problems.append(
            CaseProblem(
                name,
                line,
                case.id,
                "evidence",
                "required for an answerable case: list the chunk ids a correct answer needs "
                "(all_of / any_of), or set answerable: false",
            )
        )
    if not case.answerable and case.evidence is not None:
        problems.append(
            CaseProblem(
                name,
                line,
                case.id,
                "evidence",
                "an unanswerable case (answerable: false) cannot require evidence",
            )
        )
    if not case.answerable and case.facts:
        problems.append(
            CaseProblem(
                name,
                line,
                case.id,
                "facts",
                "an unanswerable case (answerable: false) has no facts",
            )
        )
    if not normalize_question(case.question):
        problems.append(CaseProblem(name, line, case.id, "question", "empty after normalisation"))


def check_duplicates(cases: Sequence[Case], name: str, problems: list[CaseProblem]) -> None:
    """A problem for every case whose id an earlier case already has."""
    first: dict[str, Case] = {}
    for case in cases:
        if case.id in first:
            problems.append(
                CaseProblem(
                    name,
                    _line_of(case),
                    case.id,
                    "id",
                    f"duplicate id (first defined at {first[case.id].source or 'an earlier case'})",
                )
            )
        else:
            first[case.id] = case


def check_case_set(cases: Sequence[Case], source: str) -> None:
    """The file loader's checks for cases built in code; raises :class:`CaseError`."""
    problems: list[CaseProblem] = []
    check_duplicates(cases, source, problems)
    for case in cases:
        check_case_logic(case, source, None, problems)
    if problems:
        raise CaseError(problems)


def _line_of(case: Case) -> int | None:
    _, _, tail = case.source.rpartition(":")
    return int(tail) if tail.isdigit() else None
