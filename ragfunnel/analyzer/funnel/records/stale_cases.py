"""Cases against one index version: document leaves resolved, stale labels told apart.

Two things the index version decides about a case, before and after its funnel is followed
(docs/funnel.md, "Cases" and the decision table):

- :func:`resolved_case_tables`: the case table with each document leaf (a quote, a span)
  replaced by the chunk ids it resolves to in the version (``cases.Resolver``), and the
  sentences saying which leaves of an ingested document resolved to nothing (stale) or could
  not be looked for, the chunks having been recorded without text or offsets (unreadable);
- :func:`stale_labels`: chunk ids a case names that the version lacks while their document
  (known from another version's ingest spans) is in it — labels written for another chunking;
- :func:`with_stale_cases`: such a question's ``first_failure`` is ``stale_case`` (or
  ``incomplete_trace`` for an unreadable leaf: the trace lacks the chunk text), its reason
  names the document, and it is never blamed on ingestion.

Pure polars over what ``read/`` returned.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import polars as pl

from ragfunnel.analyzer.cases import Case, Resolver, evidence_ids, has_document_leaves
from ragfunnel.analyzer.cases.case_columns import CaseColumns
from ragfunnel.analyzer.funnel.read.index_truth import IndexTruth
from ragfunnel.analyzer.funnel.read.ingest_chunks import Documents
from ragfunnel.analyzer.funnel.records.evidence_tree import node_table
from ragfunnel.analyzer.nouns import count, plural

__all__ = [
    "STALE_SCHEMA",
    "names_documents",
    "resolved_case_tables",
    "stale_labels",
    "unreadable_notice",
    "unresolvable_cases",
    "with_stale_cases",
]

STALE_SCHEMA = {
    "index_version": pl.String,
    "case_idx": pl.UInt32,
    "stale_failure": pl.String,
    "stale_reason": pl.String,
}
"""A stale table: the cases (``case_idx``) whose labels an index version cannot resolve, the
``first_failure`` that makes them (``stale_case`` or ``incomplete_trace``), and why."""

REBASE_HINT = "stale labels: `ragfunnel cases rebase` rewrites them as document + quote"
UNREADABLE_FIX = (
    "have the ingest function return its chunks with their text (dicts with id and text, "
    "content captured: capture_content=True or 'chunks') and, for spans, start/end offsets; "
    "or pass the texts with --chunks"
)
"""How to give the analysis what a document leaf is looked for in."""


def names_documents(columns: CaseColumns) -> bool:
    """Whether any case names a leaf by its document (a quote or a span)."""
    return bool(columns.leaf_table.height) or any(map(has_document_leaves, columns.trees.values()))


def resolved_case_tables(
    frame: pl.DataFrame,
    nodes: pl.DataFrame,
    columns: CaseColumns,
    documents: Documents,
    version: str,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The case and node tables with every document leaf resolved in ``version``; stale cases.

    The stale table holds the cases with a leaf of an ingested document that resolved to
    nothing.

    ``frame`` and ``nodes`` are ``analysis.case_tables``' (the frame's row order is kept). A
    quote that exactly one chunk holds is replaced in the item lists, in bulk; a case with any
    other leaf (a quote across chunks or in several, a span, one that resolves to nothing) or
    a nested tree is resolved case by case (``cases.Resolver``).
    """
    resolver = Resolver(documents, version)
    held = documents.frame.get_column("document").implode()
    leaves = columns.leaf_table.filter(pl.col("document").is_in(held))
    single = _single_chunk_quotes(leaves, documents)
    if single.height:
        labels, chunks = single.get_column("label"), single.get_column("chunk")
        frame = frame.with_columns(pl.col("items").list.eval(pl.element().replace(labels, chunks)))
    one_by_one = {row for row, tree in columns.trees.items() if has_document_leaves(tree)}
    # A quote in several chunks or across a border, a span, a leaf that resolves to nothing.
    odd = leaves.join(single, on="label", how="anti").get_column("label")
    if single.height or odd.len():
        items = frame.get_column("items")
        named = items.list.eval(pl.element().is_in(odd.implode())).list.any() if odd.len() else None
        twice = items.list.n_unique() < items.list.len()
        rows = twice if named is None else twice | named
        one_by_one.update(rows.arg_true().to_list())
    cases = {row + 1: columns.case(row) for row in sorted(one_by_one)}
    frame, nodes, stale = _one_by_one(frame, nodes, cases, resolver)
    return frame, nodes, stale


def _single_chunk_quotes(leaves: pl.DataFrame, documents: Documents) -> pl.DataFrame:
    """``label`` → ``chunk``: the quotes of ``leaves`` that exactly one chunk holds."""
    quotes = leaves.filter(pl.col("quote").is_not_null()).select("label", "document", "quote")
    if quotes.is_empty():
        return pl.DataFrame(schema={"label": pl.String, "chunk": pl.String})
    chunks = (
        documents.frame.filter(pl.col("document").is_in(quotes.get_column("document").implode()))
        .select("document", pl.col("ids").alias("chunk"), pl.col("texts").alias("text"))
        .explode("chunk", "text")
        .drop_nulls("text")
    )
    quotes = quotes.with_columns(quote=fold_series(quotes.get_column("quote")))
    chunks = chunks.with_columns(text=fold_series(chunks.get_column("text")))
    hits = quotes.join(chunks, on="document").filter(
        pl.col("text").str.contains(pl.col("quote"), literal=True)
    )
    return (
        hits.group_by("label")
        .agg(pl.col("chunk").unique())
        .filter(pl.col("chunk").list.len() == 1)
        .select("label", pl.col("chunk").list.first())
    )


_ASCII_SPACE = r"[\t\n\r\x0b\x0c\x1c-\x1f]"
_SPACE = r"[\s\x1c-\x1f]+"


def fold_series(texts: pl.Series) -> pl.Series:
    """``cases.fold_text`` over a column: NFKC, lower case, no white space.

    NFKC and the full white-space rule run only on the texts that need them (non-ASCII text,
    or ASCII white space besides the space): on all of them they cost seconds per 100,000.
    """
    wide = (texts.str.len_bytes() != texts.str.len_chars()).fill_null(False)
    if wide.any():
        rows = wide.arg_true()
        texts = texts.scatter(rows, texts.gather(rows).str.normalize("NFKC"))
    texts = texts.str.to_lowercase().str.replace_all(" ", "", literal=True)
    odd = (wide | texts.str.contains(_ASCII_SPACE)).fill_null(False)
    if odd.any():
        rows = odd.arg_true()
        texts = texts.scatter(rows, texts.gather(rows).str.replace_all(_SPACE, ""))
    return texts


def _one_by_one(
    frame: pl.DataFrame,
    nodes: pl.DataFrame,
    cases: Mapping[int, Case],
    resolver: Resolver,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The case tables with ``cases`` (by ``case_idx``) resolved as trees, and a stale table."""
    resolved: list[tuple[int, Case]] = []
    stale_rows: list[tuple[str, int, str, str]] = []
    for idx, case in cases.items():
        assert case.evidence is not None
        found = resolver.resolve(case.evidence)
        resolved.append((idx, dataclasses.replace(case, evidence=found.evidence)))
        # What the trace lacks comes first: a label may be fine, once the text is there.
        if found.unreadable:
            reason = "; ".join(found.unreadable)
            stale_rows.append((resolver.version, idx, "incomplete_trace", reason))
        elif found.stale:
            stale_rows.append((resolver.version, idx, "stale_case", "; ".join(found.stale)))
    if not resolved:
        return frame, nodes, pl.DataFrame(schema=STALE_SCHEMA)
    items = [list(evidence_ids(case.evidence)) for _, case in resolved]
    update = pl.DataFrame(
        {
            "case_idx": [idx for idx, _ in resolved],
            "_items": items,
            "_n": [len(i) for i in items],
        },
        schema={"case_idx": pl.UInt32, "_items": pl.List(pl.String), "_n": pl.Int64},
    )
    frame = (
        frame.join(update, on="case_idx", how="left", maintain_order="left")
        .with_columns(
            items=pl.coalesce("_items", "items"),
            n_items=pl.coalesce("_n", "n_items"),
            root_kind=pl.when(pl.col("_n").is_not_null())
            .then(pl.lit("nested"))
            .otherwise(pl.col("root_kind")),
        )
        .drop("_items", "_n")
    )
    kept = nodes.filter(~pl.col("case_idx").is_in(update.get_column("case_idx").implode()))
    nodes = pl.concat([kept, node_table(resolved)], how="vertical")
    stale = pl.DataFrame(stale_rows, schema=STALE_SCHEMA, orient="row")
    return frame, nodes, stale


def unresolvable_cases(
    frame: pl.DataFrame, columns: CaseColumns, version: str, ingested: Sequence[str]
) -> tuple[pl.DataFrame, str | None]:
    """Every case naming a document leaf, for a version nothing says about; and a notice.

    The notice is None when no case names a document leaf.

    When the runs name an index version no ingest span describes (or name none, and several
    were ingested), no leaf can be resolved: followed as their labels, ids no index holds,
    the questions would be lost "at ingestion or search" though nothing says the evidence was
    lost. They are ``incomplete_trace``, naming what the trace lacks.
    """
    labels = columns.leaf_table.get_column("label").implode()
    named = frame.get_column("items").list.eval(pl.element().is_in(labels)).list.any()
    rows = set(named.fill_null(False).arg_true().to_list())
    rows.update(row for row, tree in columns.trees.items() if has_document_leaves(tree))
    known = ", ".join(v or '""' for v in ingested) or "none in the store"
    if version:
        lacks = f"ingest spans of index {version} (ingested: {known})"
    elif ingested:
        lacks = (
            f"the index version the run searched (ingested: {known}; name it with "
            "configure(pipeline={'index_version': ...}))"
        )
    else:
        lacks = "ingest spans (none in the store)"
    reason = f"{lacks}, to resolve evidence named by document in"
    table = pl.DataFrame(
        [(version, row + 1, "incomplete_trace", reason) for row in sorted(rows)],
        schema=STALE_SCHEMA,
        orient="row",
    )
    if not rows:
        return table, None
    n = len(rows)
    return table, (
        f"{count(n, 'case')} {plural(n, 'names', 'name')} evidence by document, and the "
        f"trace lacks {lacks} to resolve it in: {plural(n, 'its question is', 'their questions are')} "
        "incomplete_trace"
    )


def unreadable_notice(stale: pl.DataFrame) -> str | None:
    """One sentence for the cases of a stale table that could not be looked for, if any."""
    unread = stale.filter(pl.col("stale_failure") == "incomplete_trace")
    if unread.is_empty():
        return None
    n = unread.get_column("case_idx").n_unique()
    versions = ", ".join(v or '""' for v in unread.get_column("index_version").unique().sort())
    return (
        f"{count(n, 'case')} {plural(n, 'names', 'name')} evidence by document that index "
        f"{versions} recorded without chunk text (or offsets) to look in, so "
        f"{plural(n, 'its question is', 'their questions are')} incomplete_trace, not "
        f"stale_case: {UNREADABLE_FIX}"
    )


def stale_labels(frame: pl.DataFrame, truth: IndexTruth) -> pl.DataFrame:
    """Cases naming chunk ids an index version lacks because their document was re-chunked.

    An id is stale in version v when its document (known from the versions that hold the id)
    was ingested into v with chunks, none of which it had in those versions: a new chunking. A
    document that kept some of its old ids but lost this one lost a chunk — an ingestion
    failure, not a stale label.
    """
    if truth.owners is None or truth.documents is None or truth.owners.is_empty():
        return pl.DataFrame(schema=STALE_SCHEMA)
    named = frame.select("case_idx", pl.col("items").alias("id")).explode("id").drop_nulls()
    owners = truth.owners.filter(pl.col("id") != pl.col("document"))
    chunks = truth.documents.select("version", "document", "ids")
    missing = (
        named.join(owners.select("id", "document").unique(), on="id")
        .join(chunks, on="document")  # every version holding the document, with its chunks
        .join(truth.found, on=["version", "id"], how="anti")  # ... but not the id
    )
    if missing.is_empty():
        return pl.DataFrame(schema=STALE_SCHEMA)
    before = owners.join(chunks, on=["version", "document"]).select(
        "id", "document", pl.col("ids").alias("old_ids")
    )
    stale = (
        missing.join(before, on=["id", "document"])
        .group_by("version", "case_idx", "document", "id", maintain_order=True)
        .agg((pl.col("ids").list.set_intersection("old_ids").list.len() == 0).all().alias("new"))
        .filter("new")
    )
    if stale.is_empty():
        return pl.DataFrame(schema=STALE_SCHEMA)
    by_document = stale.group_by("version", "case_idx", "document", maintain_order=True).agg(
        pl.col("id").unique(maintain_order=True).str.join(", ")
    )
    return (
        by_document.group_by("version", "case_idx", maintain_order=True)
        .agg(
            pl.format(
                "chunk id(s) {} of document {} not in index {} ({})",
                "id",
                "document",
                "version",
                pl.lit(REBASE_HINT),
            )
            .str.join("; ")
            .alias("stale_reason")
        )
        .select(
            pl.col("version").alias("index_version"),
            pl.col("case_idx").cast(pl.UInt32),
            pl.lit("stale_case").alias("stale_failure"),
            "stale_reason",
        )
    )


def with_stale_cases(
    instances: pl.DataFrame, stale: pl.DataFrame, truth: IndexTruth
) -> pl.DataFrame:
    """``first_failure`` ``stale_case`` (with the reason) for the instances of stale cases.

    An instance is matched by its case and the index version its question searched (a root
    naming none searched the only version ingested). A case whose leaves could not be looked
    for (no chunk text) is ``incomplete_trace`` instead. A trace missing spans stays
    ``incomplete_trace`` with its own reason: what is missing comes first. ``instances``
    have their verdict (``first_failure``, ``failure_reason``, ``failure_item``, ``missing``).
    """
    if stale.is_empty():
        return instances
    given = instances.get_column("index_version").unique().to_list()
    # A version no ingest span tells of is matched as named (``unresolvable_cases``).
    searched = {v: truth.version_of(v) or v for v in given}
    versions = instances.select(
        "inst",
        "case_idx",
        pl.col("index_version")
        .replace_strict(searched, default=None, return_dtype=pl.String)
        .alias("_version"),
    )
    found = versions.join(
        stale.rename({"index_version": "_version"}), on=["case_idx", "_version"], how="inner"
    ).select("inst", "stale_failure", "stale_reason")
    if found.is_empty():
        return instances
    marked = pl.col("stale_reason").is_not_null() & (pl.col("first_failure") != "incomplete_trace")
    unread = marked & (pl.col("stale_failure") == "incomplete_trace")
    return (
        instances.join(found, on="inst", how="left", maintain_order="left")
        .with_columns(
            first_failure=pl.when(marked).then("stale_failure").otherwise("first_failure"),
            failure_reason=pl.when(unread)
            .then(pl.lit("missing: ") + pl.col("stale_reason"))
            .when(marked)
            .then("stale_reason")
            .otherwise("failure_reason"),
            failure_item=pl.when(marked).then(None).otherwise("failure_item"),
            # The list of what the trace lacks, as its reason says.
            missing=pl.when(unread)
            .then(pl.col("missing").list.concat(pl.concat_list("stale_reason")))
            .otherwise("missing"),
        )
        .drop("stale_failure", "stale_reason")
    )
