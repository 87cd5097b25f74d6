"""How the embedded store lays out and merges the parts of the tables ragfunnel makes in it.

A MergeTree part is *wide* (a file or more per column: about 125 files for ``otel_traces`` or
the stage table) or *compact* (all columns in one file: about ten). Every insert writes a part
per table (or one per insert stream) and every merge writes one more, so an ingest of five million spans into a wide
store creates and deletes well over a hundred thousand files. On a file system that makes
creating an inode costly (ext4 without a journal searches past recently deleted inodes; this
project's own CI machine is one), that was nearly half an ingest's CPU time: the kernel's, not
the engine's. Compact parts cut an ingest's kernel time about fourfold there
(bench/RESULTS.md, "Ingest").

Only tables ragfunnel creates in an embedded store get these settings: a server's tables are
the DBA's (``otel_traces``) or follow the server's defaults (see docs/store.md). The engine runs
an embedded store's merges inside the process that has it open (``ragfunnel judge`` writing its
verdicts, for one), so what a merge holds is that process's memory.
"""

from __future__ import annotations

__all__ = ["BOUNDED_MERGES", "COMPACT_PARTS", "MERGES_BY_COLUMN", "PART_SETTINGS"]

COMPACT_PARTS = "min_bytes_for_wide_part = 1000000000000, min_rows_for_wide_part = 1000000000000"
"""MergeTree settings that keep every part compact, however large it grows by merging."""

BOUNDED_MERGES = "max_parts_to_merge_at_once = 8, index_granularity_bytes = 4194304"
"""MergeTree settings that bound a merge's memory, whatever the size of the spans.

A merge of compact parts reads every part it merges side by side, a granule of each at a time
(up to ``index_granularity_bytes`` of column data, 10 MiB by default), and the engine runs up to
four merges at once. With the defaults (up to 100 parts in one merge), merges of spans that
record their prompts' texts (~6 KB each) held 3.2 GB at once, 99 parts in each; with these
limits, an ingest of a million such spans with merges running peaked at 1,281 MiB instead of
1,807 MiB, and ran faster (bench/RESULTS.md, "Issue 35, eleventh session"). Spans of ~1.7 KB ingest
as fast either way.
"""

PART_SETTINGS = f"{COMPACT_PARTS}, {BOUNDED_MERGES}"
"""The settings of the tables of spans ragfunnel makes in an embedded store (``otel_traces``, the
stage table)."""

MERGES_BY_COLUMN = (
    "vertical_merge_algorithm_min_rows_to_activate = 1, "
    "vertical_merge_algorithm_min_columns_to_activate = 1"
)
"""MergeTree settings that merge every part column by column (the engine's *vertical* merge).

The engine's default merges parts of fewer than 131,072 rows with every column of every part
read side by side. A judge writes its verdicts a page at a time (a part of 1,000 rows of ~1.9 KB
each), and those parts keep merging inside its process while it runs. Merged by column, a
300,000-answer ``ragfunnel judge`` peaked at 858–873 MiB instead of 1,027–1,040 MiB, and a
10,000-answer one at 695–742 MiB instead of 748–800, in the same time (bench/RESULTS.md, "Issue
35, fifteenth session"). The settings of the verdicts table ragfunnel makes in an embedded store
(``store/tables/verdicts.py``).
"""
