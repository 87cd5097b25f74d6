"""The stage table: its layout and view, its reads (``table.py``) and its repair (``repair.py``).

One home for every statement on the stage table. ``repair.py`` (checking and repairing the
table against ``otel_traces``, and the ingest's ``StageMender``) is imported by its full name:
it needs ``store.schema``, which needs this package's layout.
"""

from ragfunnel.analyzer.store.tables.stage_spans import table
from ragfunnel.analyzer.store.tables.stage_spans.table import *  # noqa: F403 - the layout's face

__all__ = list(table.__all__)
