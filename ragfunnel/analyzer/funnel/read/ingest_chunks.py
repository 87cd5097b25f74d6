"""What each index version's ingest spans say about documents: chunk ids, texts and offsets.

Document leaves of cases (a quote, a character span) are resolved per run against the chunks
of the run's index version (``cases.resolution``). The chunks come from the successful
``@ragfunnel.ingest`` spans: ``ragfunnel.chunks.ids`` in document order, the chunk texts when
content was captured (``ragfunnel.chunks.texts``) or given by a chunk file, and the character
offsets when the chunks carried them (``ragfunnel.chunks.starts`` / ``.ends``). A document
ingested more than once into one version counts by its latest ingest span. Queries only: the
resolution itself is pure.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping

import polars as pl

from ragfunnel.analyzer.cases import DocumentChunks
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables import stage_spans, traces

__all__ = ["Documents", "VersionChunks", "ingested_chunks", "run_versions"]


class Documents(Mapping[str, DocumentChunks]):
    """One index version's documents, as :class:`DocumentChunks` built on first access.

    ``frame`` holds one row per document: ``document``, ``ids``, ``texts``, ``starts`` and
    ``ends`` (lists; ``texts`` may hold nulls, the offsets may be empty).
    """

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame = frame
        documents = frame.get_column("document").to_list()
        self._rows = dict(zip(documents, range(len(documents)), strict=True))
        self._built: dict[str, DocumentChunks] = {}

    def __getitem__(self, document: str) -> DocumentChunks:
        found = self._built.get(document)
        if found is None:
            _, ids, texts, starts, ends = self.frame.row(self._rows[document])
            n = len(ids)
            found = DocumentChunks(
                tuple(ids),
                tuple(texts),
                tuple(starts) if len(starts) == n else (),
                tuple(ends) if len(ends) == n else (),
            )
            self._built[document] = found
        return found

    def __contains__(self, document: object) -> bool:
        return document in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


VersionChunks = dict[str, Documents]
"""Index version → its documents."""


def run_versions(store: Store, question_rows: str, runs: Collection[str]) -> pl.DataFrame:
    """Per run, each index version its questions name and how many questions name it.

    Columns ``run_id``, ``index_version`` ("" where a root names none) and ``questions``
    (``store/tables/stage_spans/`` queries them).
    """
    return stage_spans.run_versions(store, question_rows, runs)


def ingested_chunks(
    store: Store,
    versions: Collection[str] | None = None,
    texts: Mapping[str, str] | None = None,
) -> VersionChunks:
    """The chunks of every document ingested into ``versions`` (every version when None).

    ``texts`` (chunk id → text, a chunk file) fills in the texts the spans did not record.
    """
    frame = traces.ingested_chunk_lists(store, versions)
    # Every version ingested has its entry, an empty one if no document of it made a chunk.
    found: VersionChunks = {
        str(v): Documents(frame.clear().select("document", "ids", "texts", "starts", "ends"))
        for v in frame.get_column("version").unique(maintain_order=True)
    }
    # A document whose latest ingest made no chunk is not there to look in (ingestion lost it).
    frame = frame.filter(pl.col("ids").list.len() > 0).with_columns(
        texts=pl.when(pl.col("texts").list.len() == pl.col("ids").list.len())
        .then(pl.col("texts").list.eval(pl.element().replace("", None)))
        .otherwise(pl.col("ids").list.eval(pl.lit(None, dtype=pl.String)))
    )
    if frame.is_empty():
        return found
    if texts:  # a chunk file: the texts the spans did not record
        given = pl.DataFrame(
            {"ids": list(texts), "_given": list(texts.values())},
            schema={"ids": pl.String, "_given": pl.String},
        )
        frame = (
            frame.with_row_index("_row")
            .explode("ids", "texts")
            .join(given, on="ids", how="left", maintain_order="left")
            .with_columns(texts=pl.coalesce("texts", "_given"))
            .group_by("_row", maintain_order=True)
            .agg(pl.col("version", "document", "starts", "ends").first(), "ids", "texts")
            .drop("_row")
        )
    for (version,), part in frame.partition_by("version", as_dict=True).items():
        found[str(version)] = Documents(part.select("document", "ids", "texts", "starts", "ends"))
    return found
