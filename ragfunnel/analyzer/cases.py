"""Evaluation cases (DESIGN §4): load, validate, and flatten them for the funnel.

A case names a question, the evidence a correct answer needs (``all_of`` / ``any_of`` groups,
nestable), and optionally a reference answer, the facts a correct answer must state, or
``answerable: false``. Cases come from YAML, JSON, JSON Lines or CSV; every problem is reported
with the file, the line where the format allows it, the case and the field, and all problems are
reported at once so a 500-case file is fixed in one pass.

This module only reads files and builds plain values: it never touches the store.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import yaml

from ragfunnel.instrumentation.contract import normalize_question, question_hash

__all__ = [
    "AllOf",
    "AnyOf",
    "Case",
    "CaseError",
    "CaseProblem",
    "CaseSet",
    "Evidence",
    "Leaf",
    "load_cases",
    "parse_evidence",
]

FIELDS = ("id", "question", "evidence", "reference", "facts", "answerable")
MAX_PROBLEMS_SHOWN = 25


@dataclass(frozen=True)
class Leaf:
    """One required chunk id (the id the retriever returns)."""

    id: str


@dataclass(frozen=True)
class AllOf:
    """Every child is needed: the question fails where the first one is lost."""

    children: tuple[Evidence, ...]


@dataclass(frozen=True)
class AnyOf:
    """One child suffices: the question fails only where the last alternative is lost."""

    children: tuple[Evidence, ...]


Evidence = Leaf | AllOf | AnyOf


def evidence_ids(node: Evidence | None) -> tuple[str, ...]:
    """The distinct leaf ids of an evidence tree, in first-appearance order."""
    seen: dict[str, None] = {}

    def walk(n: Evidence) -> None:
        if isinstance(n, Leaf):
            seen.setdefault(n.id, None)
        else:
            for child in n.children:
                walk(child)

    if node is not None:
        walk(node)
    return tuple(seen)


def evidence_to_data(node: Evidence) -> Any:
    """The YAML/JSON form of an evidence tree (the inverse of :func:`parse_evidence`)."""
    if isinstance(node, Leaf):
        return node.id
    key = "all_of" if isinstance(node, AllOf) else "any_of"
    return {key: [evidence_to_data(c) for c in node.children]}


@dataclass(frozen=True)
class Case:
    """One evaluation case."""

    id: str
    question: str
    evidence: Evidence | None = None
    reference: str | None = None
    facts: tuple[str, ...] = ()
    answerable: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    """Where the case was read, ``file:line``, for messages."""

    @cached_property
    def question_hash(self) -> str:
        """The contract's hash of the normalised question text (how traces without ids match)."""
        return question_hash(self.question)

    @property
    def evidence_ids(self) -> tuple[str, ...]:
        """The distinct required chunk ids, in the order the case lists them."""
        return evidence_ids(self.evidence)


@dataclass(frozen=True)
class CaseProblem:
    """One validation problem, located as precisely as the format allows."""

    file: str
    line: int | None
    case: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        parts = [where]
        if self.case is not None:
            parts.append(f"case {self.case!r}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return ": ".join(parts) + ": " + self.message


class CaseError(ValueError):
    """The cases file is unreadable or invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[CaseProblem]):
        self.problems = tuple(problems)
        shown = [str(p) for p in self.problems[:MAX_PROBLEMS_SHOWN]]
        more = len(self.problems) - len(shown)
        if more > 0:
            shown.append(f"... and {more} more problem(s)")
        noun = "problem" if len(self.problems) == 1 else "problems"
        super().__init__(f"{len(self.problems)} {noun} in cases:\n  " + "\n  ".join(shown))


@dataclass(frozen=True)
class CaseSet:
    """Validated cases, with the lookups the funnel needs."""

    cases: tuple[Case, ...]
    source: str = ""
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Tables the analyzer derives from these cases, kept so repeated analyses reuse them."""

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self) -> Iterator[Case]:
        return iter(self.cases)

    @cached_property
    def _index(self) -> dict[str, Case]:
        return {case.id: case for case in self.cases}

    def by_id(self, case_id: str) -> Case | None:
        """The case with this id, if any."""
        return self._index.get(case_id)

    def ambiguous_hashes(self) -> frozenset[str]:
        """Question hashes shared by several cases: traces without ids cannot match these."""
        seen = Counter(case.question_hash for case in self.cases)
        return frozenset(h for h, n in seen.items() if n > 1)

    @classmethod
    def of(cls, cases: Iterable[Case], source: str = "<memory>") -> CaseSet:
        """Build a case set from ``Case`` values, with the same checks as the file loader."""
        items = tuple(cases)
        problems: list[CaseProblem] = []
        _check_duplicates(items, source, problems)
        for case in items:
            _check_case_logic(case, source, None, problems)
        if problems:
            raise CaseError(problems)
        return cls(items, source)


# ---------------------------------------------------------------------------------------------
# Evidence parsing


class _EvidenceProblem(ValueError):
    pass


def parse_evidence(data: Any) -> Evidence:
    """Parse the ``evidence`` field of a case.

    Accepted: a chunk id, a list (read as ``all_of``), or one-key mappings ``{all_of: [...]}`` /
    ``{any_of: [...]}`` whose items may nest further groups.

    Raises ``ValueError`` with a message naming the offending part.
    """
    return _parse_node(data, "evidence")


def _parse_node(data: Any, path: str) -> Evidence:
    if isinstance(data, bool) or data is None:
        raise _EvidenceProblem(f"{path}: expected a chunk id or a group, got {data!r}")
    if isinstance(data, (str, int)):
        text = str(data).strip()
        if not text:
            raise _EvidenceProblem(f"{path}: empty chunk id")
        return Leaf(text)
    if isinstance(data, list):
        return AllOf(_parse_children(data, path))
    if isinstance(data, Mapping):
        keys = list(data)
        if len(keys) != 1 or keys[0] not in ("all_of", "any_of"):
            hint = ""
            if len(keys) == 1:
                close = difflib.get_close_matches(str(keys[0]), ["all_of", "any_of"], n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _EvidenceProblem(
                f"{path}: a group is a mapping with exactly one key, all_of or any_of; "
                f"got {', '.join(map(str, keys)) or 'no keys'}{hint}"
            )
        key = keys[0]
        children = data[key]
        if not isinstance(children, list):
            raise _EvidenceProblem(f"{path}.{key}: expected a list, got {type(children).__name__}")
        parsed = _parse_children(children, f"{path}.{key}")
        return AllOf(parsed) if key == "all_of" else AnyOf(parsed)
    raise _EvidenceProblem(f"{path}: expected a chunk id or a group, got {type(data).__name__}")


def _parse_children(items: list[Any], path: str) -> tuple[Evidence, ...]:
    if not items:
        raise _EvidenceProblem(f"{path}: empty group")
    return tuple(_parse_node(item, f"{path}[{i}]") for i, item in enumerate(items))


# ---------------------------------------------------------------------------------------------
# Records → cases


@dataclass
class _Record:
    data: Any
    line: int | None
    key_lines: Mapping[str, int] = field(default_factory=dict)


Format = Literal["yaml", "json", "jsonl", "csv"]


def _format_of(path: Path) -> Format:
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
    fmt = _format_of(p)
    problems: list[CaseProblem] = []
    if fmt == "yaml":
        records = _yaml_records(text, name, problems)
    elif fmt == "json":
        records = _json_records(text, name, problems)
    elif fmt == "jsonl":
        records = _jsonl_records(text, name, problems)
    else:
        records = _csv_records(text, name, problems, delimiter="\t" if p.suffix == ".tsv" else ",")
    cases = [c for r in records if (c := _to_case(r, name, problems)) is not None]
    _check_duplicates(cases, name, problems)
    if not cases and not problems:
        problems.append(CaseProblem(name, None, None, None, "no cases found"))
    if problems:
        raise CaseError(problems)
    return CaseSet(tuple(cases), name)


def _yaml_records(text: str, name: str, problems: list[CaseProblem]) -> list[_Record]:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problems.append(CaseProblem(name, line, None, None, f"invalid YAML: {exc}"))
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
        records.append(_Record(data, node.start_mark.line + 1, key_lines))
    return records


def _construct(node: yaml.Node) -> Any:
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    finally:
        loader.dispose()


def _json_records(text: str, name: str, problems: list[CaseProblem]) -> list[_Record]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(CaseProblem(name, exc.lineno, None, None, f"invalid JSON: {exc.msg}"))
        return []
    if isinstance(data, Mapping) and "cases" in data:
        data = data["cases"]
    if not isinstance(data, list):
        problems.append(CaseProblem(name, None, None, None, "expected a JSON array of cases"))
        return []
    return [_Record(item, None) for item in data]


def _jsonl_records(text: str, name: str, problems: list[CaseProblem]) -> list[_Record]:
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            records.append(_Record(json.loads(line), number))
        except json.JSONDecodeError as exc:
            problems.append(CaseProblem(name, number, None, None, f"invalid JSON: {exc.msg}"))
    return records


# CSV cells are strings: structured fields take JSON, or ';'-separated lists for the flat forms.
_CSV_LIST_COLUMNS = ("all_of", "any_of")
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
    return value


def _csv_records(
    text: str, name: str, problems: list[CaseProblem], delimiter: str
) -> list[_Record]:
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
        if groups:
            if "evidence" in data or len(groups) > 1:
                message = "give evidence in one column: evidence (JSON), all_of or any_of"
                problems.append(CaseProblem(name, line, str(data.get("id")), "evidence", message))
            else:
                data["evidence"] = {groups[0]: data.pop(groups[0])}
        records.append(_Record(data, line))
    return records


_TRUE = {"true", "yes", "1", "y"}
_FALSE = {"false", "no", "0", "n"}


def _to_case(record: _Record, name: str, problems: list[CaseProblem]) -> Case | None:
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
        except _EvidenceProblem as exc:
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
    elif isinstance(raw_answerable, str) and raw_answerable.strip().lower() in _TRUE | _FALSE:
        answerable = raw_answerable.strip().lower() in _TRUE
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
    _check_case_logic(case, name, record.line, problems)
    return case if len(problems) == before else None


def _check_case_logic(case: Case, name: str, line: int | None, problems: list[CaseProblem]) -> None:
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


def _check_duplicates(cases: Sequence[Case], name: str, problems: list[CaseProblem]) -> None:
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


def _line_of(case: Case) -> int | None:
    _, _, tail = case.source.rpartition(":")
    return int(tail) if tail.isdigit() else None
