"""The stage table: its layout and view, its reads (``table.py``) and its repair (``repair.py``).

One home for every statement on the stage table. ``repair.py`` (checking and repairing the
table against ``otel_traces``, and the ingest's ``StageMender``) is imported by its full name:
it needs ``store.schema``, which needs this package's layout.
"""

from ragfunnel.analyzer.store.tables.stage_spans.table import (
    BUCKETS,
    STAGE_COLUMNS,
    STAGE_TABLE,
    VIEW_NAME,
    create_stage_spans,
    generate_answers,
    question_texts,
    ranked_ids,
    run_ids,
    run_versions,
    stage_select,
    stage_table,
    time_range,
    view_ddl,
)

__all__ = [
    "BUCKETS",
    "STAGE_COLUMNS",
    "STAGE_TABLE",
    "VIEW_NAME",
    "create_stage_spans",
    "generate_answers",
    "question_texts",
    "ranked_ids",
    "run_ids",
    "run_versions",
    "stage_select",
    "stage_table",
    "time_range",
    "view_ddl",
]
