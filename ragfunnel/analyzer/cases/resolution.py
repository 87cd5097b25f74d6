"""Resolving document leaves (a quote, a character span) to the chunk ids of one index version.

An evidence leaf named by its document survives re-chunking: each run's index version has its
own chunks, and this module finds, among the chunks of that document, the ones the leaf means
(docs/funnel.md, "Cases"):

- a **quote**: the chunks whose text holds it, whitespace and case folded (NFKC, lower case,
  white space removed). One chunk holding it is the leaf; several (overlapping chunks) are
  alternatives (``any_of``); a quote no single chunk holds but consecutive chunks do — across a
  chunk border — needs them all (``all_of``; chunk overlap is recognised and not counted twice);
- a **span**: the chunks whose ``[start, end)`` range overlaps it: a chunk covering all of it
  (``any_of`` if several do), else every chunk that overlaps a part (``all_of``).

A leaf that cannot be resolved keeps its label as its id (never an id of the index) and says
why: its document was never ingested into the version (the funnel then reports the loss at
ingestion, as for any chunk never indexed); it was, but no chunk holds the quote or overlaps
the span (a label that fits no chunking of this version: ``stale_case``); or its chunks carry
no text (for a quote) or offsets (for a span) to look in — nothing is wrong with the label,
the trace lacks what resolving it needs (``incomplete_trace``). Pure values: the chunks come
from the caller; no files, no store.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ragfunnel.analyzer.cases.evidence import AllOf, AnyOf, Evidence, Leaf, Quote, Span

__all__ = ["DocumentChunks", "Resolution", "Resolver", "fold_text"]

_WS = re.compile(r"[\s\x1c-\x1f]+")
_MIN_OVERLAP = 12
"""Folded characters a chunk's start must repeat of its predecessor's end to count as overlap."""
_MAX_WINDOW = 8
"""The most consecutive chunks one quote may span."""


def fold_text(text: str) -> str:
    """The form quotes and chunk texts are compared in: NFKC, lower case, no white space.

    (Lower case, not ``casefold``: the analysis folds most quotes in bulk, as polars'
    ``to_lowercase`` does.)
    """
    return _WS.sub("", unicodedata.normalize("NFKC", text).lower())


@dataclass(frozen=True)
class DocumentChunks:
    """One document's chunks in one index version, in document order.

    ``texts``, ``starts`` and ``ends`` are as long as ``ids``, None where unknown.
    """

    ids: tuple[str, ...]
    texts: tuple[str | None, ...] = ()
    starts: tuple[int | None, ...] = ()
    ends: tuple[int | None, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.ids)
        for name in ("texts", "starts", "ends"):
            if not getattr(self, name):
                object.__setattr__(self, name, (None,) * n)
            elif len(getattr(self, name)) != n:
                raise ValueError(f"DocumentChunks.{name}: {len(getattr(self, name))} for {n} ids")


@dataclass(frozen=True)
class Resolution:
    """A tree with chunk ids for leaves, and why some leaves could not be resolved.

    ``stale`` holds one sentence per leaf of an ingested document that matched no chunk;
    ``unreadable`` one per leaf whose document's chunks were recorded without the text (or
    offsets) to look in; ``missing`` the documents the version never ingested.
    """

    evidence: Evidence
    stale: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()


class _Outcome(NamedTuple):
    """What one document leaf resolved to; else why not, as a stale label or an unreadable one."""

    evidence: Evidence
    stale: str | None = None
    unreadable: str | None = None


@dataclass
class _Folded:
    ids: tuple[str, ...]
    texts: tuple[str, ...] | None
    merged: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)


class Resolver:
    """Resolves document leaves against the chunks of one index version (results are cached).

    ``documents`` maps a document id to its :class:`DocumentChunks`; ``version`` only words
    the reasons.
    """

    def __init__(self, documents: Mapping[str, DocumentChunks], version: str = "") -> None:
        self.documents = documents
        self.version = version
        self._folded: dict[str, _Folded] = {}
        self._leaves: dict[Quote | Span, _Outcome] = {}

    def resolve(self, node: Evidence) -> Resolution:
        """The tree with every document leaf replaced by what it resolves to."""
        stale: dict[str, None] = {}
        missing: dict[str, None] = {}
        unreadable: dict[str, None] = {}

        def walk(n: Evidence) -> Evidence:
            if isinstance(n, Leaf):
                return n
            if isinstance(n, (Quote, Span)):
                if n.document not in self.documents:
                    missing.setdefault(n.document, None)
                    return Leaf(n.id)
                found = self.leaf(n)
                if found.stale is not None:
                    stale.setdefault(found.stale, None)
                if found.unreadable is not None:
                    unreadable.setdefault(found.unreadable, None)
                return found.evidence
            children = tuple(walk(child) for child in n.children)
            return AllOf(children) if isinstance(n, AllOf) else AnyOf(children)

        return Resolution(walk(node), tuple(stale), tuple(missing), tuple(unreadable))

    def leaf(self, leaf: Quote | Span) -> _Outcome:
        """What one leaf of an ingested document resolves to, and why not if it did not."""
        cached = self._leaves.get(leaf)
        if cached is None:
            cached = self._quote(leaf) if isinstance(leaf, Quote) else self._span(leaf)
            self._leaves[leaf] = cached
        return cached

    def _where(self) -> str:
        return f" in index {self.version}" if self.version else ""

    def _quote(self, leaf: Quote) -> _Outcome:
        doc = self._folded_document(leaf.document)
        if doc.texts is None:
            return _Outcome(Leaf(leaf.id), unreadable=(
                f"chunk text of document {leaf.document}{self._where()} (to find a quote in)"
            ))  # fmt: skip
        quote = fold_text(leaf.quote)
        singles = [doc.ids[i] for i, text in enumerate(doc.texts) if quote in text]
        if singles:
            return _Outcome(_choice([Leaf(i) for i in dict.fromkeys(singles)]))
        n = len(doc.ids)
        for width in range(2, min(n, _MAX_WINDOW) + 1):
            windows = [
                AllOf(tuple(Leaf(doc.ids[i]) for i in range(first, first + width)))
                for first in range(n - width + 1)
                if any(quote in text for text in self._merged(doc, first, width))
            ]
            if windows:
                return _Outcome(_choice(windows))
        return _Outcome(Leaf(leaf.id), stale=(
            f'quote "{leaf.quote}" found in no chunk of document {leaf.document}{self._where()}'
        ))  # fmt: skip

    def _span(self, leaf: Span) -> _Outcome:
        chunks = self.documents[leaf.document]
        ranges = [
            (chunk, start, end if end is not None else start + len(text or ""))
            for chunk, text, start, end in zip(
                chunks.ids, chunks.texts, chunks.starts, chunks.ends, strict=True
            )
            if start is not None and (end is not None or text is not None)
        ]
        if not ranges:
            return _Outcome(Leaf(leaf.id), unreadable=(
                f"chunk offsets of document {leaf.document}{self._where()} (to place a span in)"
            ))  # fmt: skip
        covering = [c for c, s, e in ranges if s <= leaf.start and e >= leaf.end]
        if covering:
            return _Outcome(_choice([Leaf(c) for c in dict.fromkeys(covering)]))
        overlapping = [c for c, s, e in ranges if s < leaf.end and e > leaf.start]
        if overlapping:
            ids = tuple(dict.fromkeys(overlapping))
            return _Outcome(Leaf(ids[0]) if len(ids) == 1 else AllOf(tuple(map(Leaf, ids))))
        return _Outcome(Leaf(leaf.id), stale=(
            f"span {leaf.start}-{leaf.end} overlaps no chunk of document "
            f"{leaf.document}{self._where()}"
        ))  # fmt: skip

    def _folded_document(self, document: str) -> _Folded:
        doc = self._folded.get(document)
        if doc is None:
            chunks = self.documents[document]
            texts = chunks.texts
            if any(t is not None for t in chunks.starts) and all(
                s is not None for s in chunks.starts
            ):
                order = sorted(range(len(chunks.ids)), key=lambda i: chunks.starts[i] or 0)
            else:
                order = list(range(len(chunks.ids)))
            ids = tuple(chunks.ids[i] for i in order)
            folded = (
                tuple(fold_text(texts[i] or "") for i in order)
                if any(t is not None for t in texts)
                else None
            )
            doc = self._folded[document] = _Folded(ids, folded)
        return doc

    def _merged(self, doc: _Folded, first: int, width: int) -> tuple[str, ...]:
        """Chunks ``first`` .. ``first + width - 1`` joined: as they are, and without overlap.

        The second form drops each chunk's repeat of its predecessor's end (``chunk_overlap``).
        """
        key = (first, width)
        found = doc.merged.get(key)
        if found is None:
            assert doc.texts is not None
            if width == 1:
                text = doc.texts[first]
                found = (text, text)
            else:
                plain, trimmed = self._merged(doc, first, width - 1)
                nxt = doc.texts[first + width - 1]
                found = (plain + nxt, trimmed + nxt[_overlap(trimmed, nxt) :])
            doc.merged[key] = found
        return found


def _overlap(before: str, after: str) -> int:
    """How many leading characters of ``after`` repeat the end of ``before`` (0 if too few)."""
    head = after[:_MIN_OVERLAP]
    if len(head) < _MIN_OVERLAP:
        return 0
    # The earliest place the repeat can start is the longest overlap (shorter than ``after``).
    at = before.find(head, max(0, len(before) - len(after) + 1))
    while at >= 0:
        if after.startswith(before[at:]):
            return len(before) - at
        at = before.find(head, at + 1)
    return 0


def _choice(options: Sequence[Evidence]) -> Evidence:
    return options[0] if len(options) == 1 else AnyOf(tuple(options))
