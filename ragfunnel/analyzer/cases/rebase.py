"""Rewriting chunk-id evidence as document leaves: what ``ragfunnel cases rebase`` computes.

Cases written against one index version name chunk ids; after a re-chunk the new index has
other ids. Given the chunks of the version the cases were written against (each id's document,
and its text or character offsets), every chunk id leaf becomes a document leaf that every later
index resolves (``resolution``): ``{document, quote}`` with the chunk's text, or, for a chunk
known by its offsets only, ``{document, start, end}``. Groups and document leaves are kept as
they are. A leaf that cannot be rewritten stays a chunk id, and :class:`RebaseProblem` says
why (an id the version does not hold, a chunk with neither text nor offsets). Pure values:
no files, no store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ragfunnel.analyzer.cases.case import Case
from ragfunnel.analyzer.cases.evidence import AllOf, AnyOf, Evidence, Leaf, Quote, Span

__all__ = ["ChunkSource", "RebaseProblem", "Rebased", "rebase_cases"]


@dataclass(frozen=True)
class ChunkSource:
    """What the old index knew of one chunk: its document, and its text or offsets."""

    document: str
    text: str | None = None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class RebaseProblem:
    """A chunk id of a case left as it was, and why."""

    case: str
    chunk: str
    reason: str

    def __str__(self) -> str:
        return f"case {self.case!r}: {self.chunk}: {self.reason}"


@dataclass(frozen=True)
class Rebased:
    """The rewritten cases, how many chunk-id leaves became document leaves, and the rest."""

    cases: tuple[Case, ...]
    rewritten: int
    problems: tuple[RebaseProblem, ...]


def rebase_cases(cases: Iterable[Case], chunks: Mapping[str, ChunkSource], version: str) -> Rebased:
    """Every case with its chunk-id leaves rewritten from ``chunks`` (see the module doc).

    ``version`` (the index the cases were written against) only words the problems.
    """
    problems: list[RebaseProblem] = []
    rewritten = 0
    where = f"index {version}" if version else "the index"

    def leaf(case: Case, node: Leaf) -> Evidence:
        nonlocal rewritten
        chunk = chunks.get(node.id)
        if chunk is None:
            problems.append(RebaseProblem(case.id, node.id, f"not a chunk of {where}"))
            return node
        if chunk.text is not None and chunk.text.strip():
            rewritten += 1
            return Quote(chunk.document, " ".join(chunk.text.split()))
        if chunk.start is not None and chunk.end is not None and chunk.end > chunk.start:
            rewritten += 1
            return Span(chunk.document, chunk.start, chunk.end)
        problems.append(
            RebaseProblem(
                case.id,
                node.id,
                f"{where} recorded neither its text nor its offsets (trace the ingest with "
                "capture_content=True, or pass --chunks)",
            )
        )
        return node

    def walk(case: Case, node: Evidence) -> Evidence:
        if isinstance(node, Leaf):
            return leaf(case, node)
        if isinstance(node, (Quote, Span)):
            return node
        children = tuple(walk(case, child) for child in node.children)
        return AllOf(children) if isinstance(node, AllOf) else AnyOf(children)

    out = tuple(
        case
        if case.evidence is None
        else dataclasses.replace(case, evidence=walk(case, case.evidence))
        for case in cases
    )
    return Rebased(out, rewritten, tuple(problems))
