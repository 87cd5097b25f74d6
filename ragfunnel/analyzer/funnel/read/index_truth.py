"""Index truth: whether an expected chunk was ever in the index the question searched.

Two sources, in order of precedence:

1. An index manifest (``--index-manifest FILE``): the ids exported from the vector store.
   ``.txt`` holds one id per line (a line starting with ``#`` is a comment); ``.json`` an array of ids or an
   object with an ``ids`` array; ``.csv`` a column named ``id`` (else the first column).
2. Ingest spans, per index version: an item is indexed in version v when a successful ingest
   span of v lists it among its chunk ids (or is a document ingested without chunks whose id
   it is). A question uses its root's ``ragfunnel.pipeline.index_version``; without one, the
   only version ingested if there is exactly one. A version with no ingest spans at all, or a
   question whose version cannot be told, has no truth.

Without truth an item that was not retrieved is ``ingestion_or_search``, never a guess. A
retrieved item is indexed whatever the truth says; a manifest or ingest record that says
otherwise is flagged ``index_truth_stale``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.funnel.read.wide_layout import slot
from ragfunnel.analyzer.nouns import count

__all__ = ["NO_TRUTH", "IndexTruth", "ManifestError", "load_manifest"]

NO_TRUTH = "no index truth (ingest spans or --index-manifest) to tell ingestion from search"
"""Why an item not retrieved is lost at "ingestion or search" when nothing says what was indexed."""


class ManifestError(AnalyzerError, ValueError):
    """The index manifest cannot be read; the message names the file and line.

    Also a ``ValueError``, as it was before :class:`AnalyzerError` existed.
    """

    def __init__(self, message: str, *, argument: str = "index_manifest") -> None:
        super().__init__(message, argument=argument)


def load_manifest(path: str | Path) -> frozenset[str]:
    """Read an index manifest (see the module docstring for the formats)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: cannot read the index manifest: {exc}") from None
    suffix = p.suffix.lower()
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ManifestError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
        if isinstance(data, dict):
            data = data.get("ids")
        if not isinstance(data, list) or not all(isinstance(x, (str, int)) for x in data):
            raise ManifestError(f'{path}: expected a JSON array of ids (or {{"ids": [...]}})')
        return frozenset(str(x) for x in data)
    if suffix in (".csv", ".tsv"):
        rows = list(csv.reader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ","))
        if not rows:
            raise ManifestError(f"{path}: the manifest is empty")
        header = [h.strip() for h in rows[0]]
        column = header.index("id") if "id" in header else 0
        body = rows[1:] if "id" in header else rows
        return frozenset(r[column].strip() for r in body if len(r) > column and r[column].strip())
    # Chunk ids often contain '#' (doc#section): only a line that starts with it is a comment.
    stripped = (line.strip() for line in text.splitlines())
    return frozenset(line for line in stripped if line and not line.startswith("#"))


@dataclass(frozen=True)
class IndexTruth:
    """What is known about the index; build with :meth:`from_manifest` or :meth:`from_ingest`.

    Attributes:
        kind: ``manifest``, ``ingest`` or ``none``.
        found: (``version``, ``id``) pairs known to be indexed (version "" for a manifest).
        versions: the index versions that have any ingest span.
        owners: (``version``, ``id``, ``document``) of the expected ids found in ingest spans,
            whatever the version: which document an id that one version lacks belongs to.
        documents: (``version``, ``document``, ``ids``): the chunk ids of each document that
            holds an expected id in some version, per version it was ingested into.
    """

    kind: str
    found: pl.DataFrame
    versions: tuple[str, ...] = ()
    owners: pl.DataFrame | None = None
    documents: pl.DataFrame | None = None

    @classmethod
    def from_manifest(cls, ids: Collection[str]) -> IndexTruth:
        """Truth from the ids a vector store holds now."""
        frame = pl.DataFrame({"version": [""] * len(ids), "id": sorted(ids)})
        return cls("manifest", frame, ("",))

    @classmethod
    def from_ingest(
        cls,
        found: pl.DataFrame,
        versions: Collection[str],
        documents: pl.DataFrame | None = None,
    ) -> IndexTruth:
        """Truth from successful ingest spans.

        ``found`` has ``version`` and ``id`` (and ``document``, to tell stale case labels);
        ``documents`` the chunk ids of those documents per version (see the attribute).
        """
        chosen = tuple(sorted(versions))  # an iterator is read once, and is never empty-false
        if not chosen:
            return cls.none()
        owners = found if "document" in found.columns else None
        return cls(
            "ingest", found.select("version", "id").unique(), chosen,
            owners, documents,
        )  # fmt: skip

    def version_of(self, given: str) -> str | None:
        """The index version a question naming ``given`` searched; None when it cannot be told.

        A question naming none (``""``) searched the only version ingested, if there is one.
        """
        if given in self.versions:
            return given
        return self.versions[0] if given == "" and len(self.versions) == 1 else None

    def unknown_reason(self) -> str:
        """Why an item not retrieved cannot be told lost at ingestion or at search."""
        if self.kind == "ingest":
            ingested = ", ".join(v or '""' for v in self.versions)
            return (
                f"the index version the question searched is not known (ingested: {ingested}; "
                "name it with configure(pipeline={'index_version': ...})) to tell ingestion "
                "from search"
            )
        return NO_TRUTH

    @classmethod
    def none(cls) -> IndexTruth:
        """No index truth at all."""
        return cls("none", pl.DataFrame(schema={"version": pl.String, "id": pl.String}))

    def describe(self) -> str:
        """One line for reports."""
        if self.kind == "manifest":
            return f"index manifest ({count(self.found.height, 'expected id')} present)"
        if self.kind == "ingest":
            return "ingest spans, index version(s) " + ", ".join(v or '""' for v in self.versions)
        return "none: items not retrieved are reported as ingestion_or_search"

    def in_index_slots(self, frame: pl.DataFrame, items: int) -> pl.DataFrame:
        """Add ``in_index_{j}`` (true / false / null = unknown) for each item slot j.

        ``frame`` has ``item_{j}`` and the root's ``index_version`` ("" if none).
        """
        if self.kind == "none":
            return frame.with_columns(
                pl.lit(None, dtype=pl.Boolean).alias(slot("in_index", j)) for j in range(items)
            )
        if self.kind == "manifest":
            known = self.found.get_column("id")
            return frame.with_columns(
                pl.when(pl.col(slot("item", j)).is_not_null())
                .then(pl.col(slot("item", j)).is_in(known.implode()))
                .alias(slot("in_index", j))
                for j in range(items)
            )
        single = self.versions[0] if len(self.versions) == 1 else None
        given = pl.col("index_version")
        # A question naming no version uses the only one ingested, when there is just one.
        fallback = pl.lit(single) if single is not None else pl.lit(None, dtype=pl.String)
        version = (
            pl.when(given.is_in(list(self.versions))).then(given).when(given == "").then(fallback)
        )
        keys = self.found.select(pl.col("version") + "\x00" + pl.col("id")).to_series()
        frame = frame.with_columns(_version=version)
        return frame.with_columns(
            pl.when(pl.col("_version").is_not_null() & pl.col(slot("item", j)).is_not_null())
            .then((pl.col("_version") + "\x00" + pl.col(slot("item", j))).is_in(keys.implode()))
            .alias(slot("in_index", j))
            for j in range(items)
        ).drop("_version")
