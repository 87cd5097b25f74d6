"""Live traffic without cases (``shapes.py``)."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.funnel import shapes
from ragfunnel.analyzer.store import Store
from tests.support.decisions import filler
from tests.support.traces import TraceBuilder


def test_shapes_summarise_live_traffic(store: Store, b: TraceBuilder) -> None:
    for i in range(3):
        with b.question(f"live-{i}", f"Question {i}?", run="prod") as q:
            q.retrieve(filler(20), scores=[0.9 - 0.01 * j for j in range(20)])
            if i < 2:
                q.cut(filler(5), k=5, threshold=0.5)
                q.generate(filler(5), "An answer.")
            else:
                q.cut([], k=5, threshold=0.95, abstained=True)
    with b.question("live-9", "Dropped root?", root=False) as q:
        q.retrieve(["f1"], error="boom")
    b.into(store)
    found = shapes(store)
    rows = {r["question_key"]: r for r in found.records.iter_rows(named=True)}
    assert rows["live-0"]["stages"] == ["retrieve", "cut", "generate"]
    assert rows["live-0"]["candidates"] == 20 and rows["live-0"]["top_score"] == 0.9
    assert rows["live-0"]["prompt_size"] == 5 and rows["live-2"]["abstained"]
    assert rows["live-2"]["missing"] == []
    assert rows["live-9"]["missing"] == ["question", "generate"]
    assert rows["live-9"]["failed_stages"] == ["retrieve"]
    summary = {(r["run_id"], r["measure"]): r for r in found.summary.iter_rows(named=True)}
    assert summary[("prod", "abstention rate")]["value"] == pytest.approx(1 / 3)
    assert summary[("prod", "mean candidates")]["value"] == 20.0
    assert shapes(store, run="prod").records.height == 3
