"""One module per table the analyzer touches: its layout, its typed row, its reads and writes.

- :mod:`.traces`: ``otel_traces``, the collector exporter's span table;
- :mod:`.stage_spans`: the typed stage-span table and the view that fills it;
- :mod:`.markers`: the schema marker, one row per revision applied;
- :mod:`.verdicts`: the judges' verdicts (with the per-claim columns);
- :mod:`.judge_cache`: the judge cache;
- :mod:`.ingest_log`: what earlier ingests read of each file.

Each module's statements name its own table (and, for the stage spans, ``otel_traces`` they
are parsed from); ``tests/analyzer/store/test_tables.py`` records them to check. Schema
constants sit beside the functions that fill and read them, as in datasette's
``utils/internal_db.py``.
"""
