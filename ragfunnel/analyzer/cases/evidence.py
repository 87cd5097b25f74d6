"""Evidence trees: the chunks a correct answer needs, as ``all_of`` / ``any_of`` groups.

A leaf names a chunk by its id (:class:`Leaf`), or by its document and what it holds: a quote
(:class:`Quote`) or a character span (:class:`Span`) — evidence that survives re-chunking,
resolved to chunk ids against each run's index (``resolution``). The tree values, their parser
(the ``evidence`` field of a case) and the views the funnel needs (distinct leaf ids, and the
YAML/JSON form back). Pure values: no files, no store.
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
    "DocumentLeaf",
    "Evidence",
    "Leaf",
    "Quote",
    "Span",
    "evidence_ids",
    "evidence_to_data",
    "has_document_leaves",
    "parse_evidence",
]


@dataclass(frozen=True)
class Leaf:
    """One required chunk id (the id the retriever returns)."""

    id: str


@dataclass(frozen=True)
class Quote:
    """The chunks of ``document`` whose text holds ``quote`` (whitespace and case folded)."""

    document: str
    quote: str

    @property
    def id(self) -> str:
        """The leaf's label: how records and reasons name it before (or without) resolution."""
        return f'{self.document} "{self.quote}"'


@dataclass(frozen=True)
class Span:
    """The chunks of ``document`` whose character range overlaps ``[start, end)``."""

    document: str
    start: int
    end: int

    @property
    def id(self) -> str:
        """The leaf's label: how records and reasons name it before (or without) resolution."""
        return f"{self.document}[{self.start}:{self.end}]"


DocumentLeaf = Quote | Span
"""A leaf named by its document: resolved to chunk ids per index version."""


@dataclass(frozen=True)
class AllOf:
    """Every child is needed: the question fails where the first one is lost."""

    children: tuple[Evidence, ...]


@dataclass(frozen=True)
class AnyOf:
    """One child suffices: the question fails only where the last alternative is lost."""

    children: tuple[Evidence, ...]


Evidence = Leaf | Quote | Span | AllOf | AnyOf


def evidence_ids(node: Evidence | None) -> tuple[str, ...]:
    """The distinct leaf ids (a document leaf's label) of a tree, in first-appearance order."""
    seen: dict[str, None] = {}

    def walk(n: Evidence) -> None:
        if isinstance(n, (Leaf, Quote, Span)):
            seen.setdefault(n.id, None)
        else:
            for child in n.children:
                walk(child)

    if node is not None:
        walk(node)
    return tuple(seen)


def has_document_leaves(node: Evidence | None) -> bool:
    """Whether a tree names any leaf by its document (a quote or a span)."""
    if node is None or isinstance(node, Leaf):
        return False
    if isinstance(node, (Quote, Span)):
        return True
    return any(has_document_leaves(child) for child in node.children)


def evidence_to_data(node: Evidence) -> Any:
    """The YAML/JSON form of an evidence tree (the inverse of :func:`parse_evidence`)."""
    if isinstance(node, Leaf):
        return node.id
    if isinstance(node, Quote):
        return {"document": node.document, "quote": node.quote}
    if isinstance(node, Span):
        return {"document": node.document, "start": node.start, "end": node.end}
    key = "all_of" if isinstance(node, AllOf) else "any_of"
    return {key: [evidence_to_data(c) for c in node.children]}


def parse_evidence(data: Any) -> Evidence:
    """Parse the ``evidence`` field of a case.

    Accepted: a chunk id, a document leaf (``{document: ..., quote: ...}`` or ``{document: ...,
    start: ..., end: ...}``), a list (read as ``all_of``), or one-key mappings ``{all_of: [...]}``
    / ``{any_of: [...]}`` whose items may nest further groups and leaves of either kind.

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
    if isinstance(data, Mapping) and "document" in data:
        return document_leaf(data, path)
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


_QUOTE_KEYS = frozenset({"document", "quote"})
_SPAN_KEYS = frozenset({"document", "start", "end"})


def document_leaf(data: Mapping[Any, Any], path: str) -> Quote | Span:
    """A document leaf: ``{document, quote}`` or ``{document, start, end}``.

    Anything else raises :class:`EvidenceError` naming the part under ``path``.
    """
    keys = set(map(str, data))
    document = data["document"]
    if (
        not isinstance(document, (str, int))
        or isinstance(document, bool)
        or not str(document).strip()
    ):
        raise EvidenceError(f"{path}.document: expected a non-empty document id, got {document!r}")
    doc = str(document).strip()
    if keys == _QUOTE_KEYS:
        quote = data["quote"]
        if not isinstance(quote, str) or not quote.strip():
            raise EvidenceError(f"{path}.quote: expected a non-empty string, got {quote!r}")
        return Quote(doc, quote.strip())
    if keys == _SPAN_KEYS:
        start, end = data["start"], data["end"]
        for name, value in (("start", start), ("end", end)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise EvidenceError(
                    f"{path}.{name}: expected a character offset (an integer >= 0), got {value!r}"
                )
        if end <= start:
            raise EvidenceError(f"{path}: end ({end}) must be greater than start ({start})")
        return Span(doc, start, end)
    extra = sorted(keys - _QUOTE_KEYS - _SPAN_KEYS)
    hint = f"; unknown key(s) {', '.join(extra)}" if extra else ""
    raise EvidenceError(
        f"{path}: a document leaf is {{document, quote}} or {{document, start, end}}, "
        f"got keys {', '.join(sorted(keys))}{hint}"
    )


def _parse_children(items: list[Any], path: str) -> tuple[Evidence, ...]:
    if not items:
        raise EvidenceError(f"{path}: empty group")
    return tuple(_parse_node(item, f"{path}[{i}]") for i, item in enumerate(items))
