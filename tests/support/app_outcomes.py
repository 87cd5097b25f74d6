"""An app's traced runs judged and analysed as its user would: the record of every question.

For the apps written from the README (tests/analyzer/judges/test_*_app.py): the chunk file a
service that keeps its corpus out of spans gives ``ragfunnel judge --chunks``, then
``judge_store`` (every answer must be judged) and ``analyze``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.store import Store


def chunks_file(path: Path, chunks: Mapping[str, str]) -> Path:
    """``chunks`` as the JSON Lines file ``--chunks`` reads (``{"id", "text"}`` per line)."""
    lines = (json.dumps({"id": k, "text": v}, ensure_ascii=False) + "\n" for k, v in chunks.items())
    path.write_text("".join(lines), encoding="utf-8")
    return path


def judged_records(
    store: Store, cases: CaseSet, chunks: Path | None
) -> dict[tuple[str, str], dict[str, Any]]:
    """Judge every stored answer (with ``chunks`` when given), analyse, and key the records by
    ``(run_id, question_id)``."""
    run = judge_store(store, cases=cases, chunk_texts=chunks)
    assert run.without_content == 0, run.not_judged
    records = analyze(store, cases).records
    return {(r["run_id"], r["question_id"]): r for r in records.iter_rows(named=True)}
