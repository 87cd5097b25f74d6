"""How the embedded store lays out the parts of its tables: compact, one data file per part.

A MergeTree part is *wide* (a file or more per column: about 125 files for ``otel_traces`` or
the stage table) or *compact* (all columns in one file: about ten). Every insert writes a part
per table (or one per insert stream) and every merge writes one more, so an ingest of five million spans into a wide
store creates and deletes well over a hundred thousand files. On a file system that makes
creating an inode costly (ext4 without a journal searches past recently deleted inodes; this
project's own CI machine is one), that was nearly half an ingest's CPU time: the kernel's, not
the engine's. Compact parts cut an ingest's kernel time about fourfold there
(bench/RESULTS.md, "Ingest").

Only tables ragfunnel creates in an embedded store get these settings: a server's tables are
the DBA's (``otel_traces``) or follow the server's defaults (see docs/store.md).
"""

from __future__ import annotations

__all__ = ["COMPACT_PARTS"]

COMPACT_PARTS = "min_bytes_for_wide_part = 1000000000000, min_rows_for_wide_part = 1000000000000"
"""MergeTree settings that keep every part compact, however large it grows by merging."""
