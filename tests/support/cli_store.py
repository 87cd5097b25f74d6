"""A store on disk for command-line tests: the spans some questions record, and their cases."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans


def stored(
    tmp_path: Path, cases: Sequence[dict[str, Any]], asking: Callable[[], object], run: str = "r1"
) -> tuple[str, Path]:
    """The DSN of a store under ``tmp_path`` holding what ``asking()`` recorded (content
    captured, run ``run``), and the path of ``cases`` written as YAML beside it."""
    dsn = f"chdb://{tmp_path / 'store'}"
    written = tmp_path / "cases.yaml"
    written.write_text(yaml.safe_dump(list(cases), allow_unicode=True), encoding="utf-8")
    with capture_spans(capture_content=True, run_id=run) as spans:
        asking()
    with Store.open(dsn, create=True) as store:
        ingest_spans(store, spans.spans)
    return dsn, written
