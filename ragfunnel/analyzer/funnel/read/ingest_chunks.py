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

from collections.abc import Collection, Mapping
from typing import Any

import polars as pl

from ragfunnel.analyzer.cases import DocumentChunks
from ragfunnel.analyzer.store import Store
from ragfunnel.instrumentation import contract as c

__all__ = ["VersionChunks", "ingested_chunks", "run_versions"]

VersionChunks = dict[str, dict[str, DocumentChunks]]
"""Index version → document → its chunks."""


def run_versions(store: Store, question_rows: str, runs: Collection[str]) -> pl.DataFrame:
    """Per run, each index version its questions name and how many questions name it.

    Columns ``run_id``, ``index_version`` ("" where a root names none) and ``questions``.
    """
    where = " AND RunId IN {runs:Array(String)}" if runs else ""
    return store.query_df(
        f"SELECT RunId AS run_id, IndexVersion AS index_version, "
        f"uniqExact(InstanceKey) AS questions FROM {question_rows} "
        f"WHERE Stage = 'question'{where} GROUP BY run_id, index_version "
        f"ORDER BY run_id, questions DESC, index_version",
        {"runs": list(runs)},
    )


def ingested_chunks(
    store: Store,
    versions: Collection[str] | None = None,
    texts: Mapping[str, str] | None = None,
) -> VersionChunks:
    """The chunks of every document ingested into ``versions`` (every version when None).

    ``texts`` (chunk id → text, a chunk file) fills in the texts the spans did not record.
    """
    version_filter = "AND version IN {versions:Array(String)}" if versions is not None else ""
    frame = store.query_df(
        f"""
        SELECT version, document,
               argMax(ids, ts) AS ids, argMax(texts, ts) AS texts,
               argMax(starts, ts) AS starts, argMax(ends, ts) AS ends
        FROM (
            SELECT SpanAttributes[{{version:String}}] AS version,
                   SpanAttributes[{{document:String}}] AS document,
                   Timestamp AS ts,
                   JSONExtract(SpanAttributes[{{ids:String}}], 'Array(String)') AS ids,
                   JSONExtract(SpanAttributes[{{texts:String}}], 'Array(String)') AS texts,
                   JSONExtract(SpanAttributes[{{starts:String}}], 'Array(Int64)') AS starts,
                   JSONExtract(SpanAttributes[{{ends:String}}], 'Array(Int64)') AS ends
            FROM {store.traces_table}
            WHERE SpanAttributes[{{stage:String}}] = 'ingest' AND StatusCode != 'Error'
        )
        WHERE document != '' {version_filter}
        GROUP BY version, document
        """,
        {
            "version": c.INDEX_VERSION, "document": c.DOCUMENT_ID, "ids": c.CHUNKS_IDS,
            "texts": c.CHUNKS_TEXTS, "starts": c.CHUNKS_STARTS, "ends": c.CHUNKS_ENDS,
            "stage": c.STAGE, "versions": list(versions or ()),
        },
    )  # fmt: skip
    found: VersionChunks = {}
    given = texts or {}
    for version, document, ids, recorded, starts, ends in frame.iter_rows():
        found.setdefault(version, {})[document] = DocumentChunks(
            tuple(ids),
            _texts(ids, recorded, given),
            _aligned(starts, len(ids)),
            _aligned(ends, len(ids)),
        )
    return found


def _texts(ids: list[str], recorded: list[str], given: Mapping[str, str]) -> tuple[str | None, ...]:
    own: list[Any] = list(recorded) if len(recorded) == len(ids) else [None] * len(ids)
    return tuple(text if text else given.get(chunk) for chunk, text in zip(ids, own, strict=True))


def _aligned(values: list[int], n: int) -> tuple[int | None, ...]:
    return tuple(values) if len(values) == n else (None,) * n
