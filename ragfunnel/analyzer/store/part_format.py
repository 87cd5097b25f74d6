"""How the embedded store lays out and merges the parts of its tables: compact, merged in bulk.

A MergeTree part is *wide* (a file or more per column: about 125 files for ``otel_traces`` or
the stage table) or *compact* (all columns in one file: about ten). Every insert writes a part
per table (or one per insert stream) and every merge writes one more, so an ingest of five million spans into a wide
store creates and deletes well over a hundred thousand files. On a file system that makes
creating an inode costly (ext4 without a journal searches past recently deleted inodes; this
project's own CI machine is one), that was nearly half an ingest's CPU time: the kernel's, not
the engine's. Compact parts cut an ingest's kernel time about fourfold there
(bench/RESULTS.md, "Ingest").

Merges wait until a partition holds :data:`MERGE_WIDTH` parts (``min_parts_to_merge_at_once``),
then merge that many at once. The engine's default merges a few small parts as soon as they
appear, over and over, as an ingest writes them: at a million spans that rewrote every span
several times and took a quarter of the ingest's CPU, and the first analysis read the merged
store no faster than the 46 parts the ingest wrote (bench/RESULTS.md, "Issue 35"). So an ingest
of a million spans ends unmerged, and a longer one, or many small ones, merge 64 parts at a time.

Only tables ragfunnel creates in an embedded store get these settings: a server's tables are
the DBA's (``otel_traces``) or follow the server's defaults (see docs/store.md).
"""

from __future__ import annotations

__all__ = ["COMPACT_PARTS", "EMBEDDED_PARTS", "MERGE_WIDTH"]

COMPACT_PARTS = "min_bytes_for_wide_part = 1000000000000, min_rows_for_wide_part = 1000000000000"
"""MergeTree settings that keep every part compact, however large it grows by merging."""
MERGE_WIDTH = 64
"""The fewest parts of a partition the engine merges at once in ragfunnel's embedded tables."""
EMBEDDED_PARTS = f"{COMPACT_PARTS}, min_parts_to_merge_at_once = {MERGE_WIDTH}"
"""The MergeTree settings of the tables ragfunnel creates in an embedded store."""
