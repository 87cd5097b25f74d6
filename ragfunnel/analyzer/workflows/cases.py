"""``ragfunnel cases rebase``: rewrite a cases file's chunk ids as document + quote (or span).

The chunks of the index version the cases were written against come from that version's
ingest spans in the store (each chunk's document, text and offsets), their texts completed by a
chunk file (``--chunks``, id → text) where the spans recorded none. The rewritten cases go to
a new file (``cases.rebased.yaml`` beside ``cases.yaml`` unless another is named); the input
is overwritten only when asked. Every chunk id that could not be rewritten is returned with
the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragfunnel.analyzer.cases import (
    ChunkSource,
    RebaseProblem,
    load_cases,
    rebase_cases,
    write_cases,
)
from ragfunnel.analyzer.errors import InvalidArgument
from ragfunnel.analyzer.funnel.read.ingest_chunks import ingested_chunks
from ragfunnel.analyzer.judges.chunk_file import load_chunks

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["CasesRebased", "rebase_from_store", "rebased_path"]


@dataclass(frozen=True)
class CasesRebased:
    """Where the rewritten cases went, how many leaves were rewritten, and what was not."""

    output: Path
    cases: int
    rewritten: int
    problems: tuple[RebaseProblem, ...]


def rebased_path(cases: Path) -> Path:
    """The default output: ``cases.rebased.yaml`` beside ``cases.yaml``."""
    return cases.with_name(f"{cases.stem}.rebased{cases.suffix}")


def rebase_from_store(
    store: Store,
    cases: str | Path,
    *,
    from_index: str,
    output: str | Path | None = None,
    in_place: bool = False,
    chunks: str | Path | None = None,
) -> CasesRebased:
    """Rewrite ``cases`` against index version ``from_index`` (see the module docstring).

    Raises:
        CaseError: the cases file is invalid. JudgeError: the chunk file is.
        InvalidArgument: the store holds no ingest span of ``from_index``, or ``output`` is
            the input without ``in_place``.
    """
    source = Path(cases)
    case_set = load_cases(source)
    if in_place and output is not None and Path(output).resolve() != source.resolve():
        raise InvalidArgument("give --output or --in-place, not both", argument="output")
    target = source if in_place else Path(output) if output is not None else rebased_path(source)
    if not in_place and target.resolve() == source.resolve():
        raise InvalidArgument(
            f"{target}: the output is the cases file itself; pass --in-place to overwrite it",
            argument="output",
        )
    texts = load_chunks(chunks) if chunks is not None else None
    found = ingested_chunks(store, texts=texts)
    if from_index not in found:
        held = ", ".join(repr(v) for v in sorted(found)) or "none"
        raise InvalidArgument(
            f"no ingest span of index version {from_index!r} with a document id in the store "
            f"(versions with ingest spans: {held})",
            argument="from_index",
        )
    known: dict[str, ChunkSource] = {}
    for document, doc in found[from_index].items():
        for chunk, text, start, end in zip(doc.ids, doc.texts, doc.starts, doc.ends, strict=True):
            known[chunk] = ChunkSource(document, text, start, end)
    rebased = rebase_cases(case_set, known, from_index)
    write_cases(rebased.cases, target)
    return CasesRebased(target, len(rebased.cases), rebased.rewritten, rebased.problems)
