"""Evidence trees: the chunk ids a correct answer needs, as ``all_of`` / ``any_of`` groups.

The tree values, their parser (the ``evidence`` field of a case) and the two views the funnel
needs (distinct leaf ids, and the YAML/JSON form back). Pure values: no files, no store.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragfunnel.analyzer.cases.problems import EvidenceError

__all__ = [
    "AllOf",
    "AnyOf",
    "Evidence",
    "Leaf",
    "evidence_ids",
    "evidence_to_data",
    "parse_evidence",
]


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


def parse_evidence(data: Any) -> Evidence:
    """Parse the ``evidence`` field of a case.

    Accepted: a chunk id, a list (read as ``all_of``), or one-key mappings ``{all_of: [...]}`` /
    ``{any_of: [...]}`` whose items may nest further groups.

    Raises :class:`EvidenceError` (a ``ValueError``) with a message naming the offending part.
    """
    return _parse_node(data, "evidence")


def _parse_node(data: Any, path: str) -> Evidence:
    if isinstance(data, bool) or data is None:
        raise EvidenceError(f"{path}: expected a chunk id or a group, got {data!r}")
    if isinstance(data, (str, int)):
        text = str(data).strip()
        if not text:
            raise EvidenceError(f"{path}: empty chunk id")
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
            raise EvidenceError(
                f"{path}: a group is a mapping with exactly one key, all_of or any_of; "
                f"got {', '.join(map(str, keys)) or 'no keys'}{hint}"
            )
        key = keys[0]
        children = data[key]
        if not isinstance(children, list):
            raise EvidenceError(f"{path}.{key}: expected a list, got {type(children).__name__}")
        parsed = _parse_children(children, f"{path}.{key}")
        return AllOf(parsed) if key == "all_of" else AnyOf(parsed)
    raise EvidenceError(f"{path}: expected a chunk id or a group, got {type(data).__name__}")


def _parse_children(items: list[Any], path: str) -> tuple[Evidence, ...]:
    if not items:
        raise EvidenceError(f"{path}: empty group")
    return tuple(_parse_node(item, f"{path}[{i}]") for i, item in enumerate(items))
