"""Per-run summaries (``run_summaries.py``): failure counts per run, metrics with intervals and
the undefined ones counted."""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.cases import Case, CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, run
from tests.support.traces import TraceBuilder


def test_several_runs_are_separate_records_and_summaries(store: Store, b: TraceBuilder) -> None:
    for run_id, answer in (("baseline", WRONG), ("new-prompt", RIGHT)):
        with b.question("q-017", Q, run=run_id) as q:
            q.retrieve([A_ID, B_ID])
            q.generate([A_ID, B_ID], answer)
    result = run(store, b)
    by_run = {r["run_id"]: r["first_failure"] for r in result.records.iter_rows(named=True)}
    assert by_run == {"baseline": "generation", "new-prompt": "ok"}
    failures = result.failures.select("run_id", "first_failure", "count").rows()
    assert sorted(failures) == [("baseline", "generation", 1), ("new-prompt", "ok", 1)]
    only = analyze(store, CaseSet.of([case()]), run="new-prompt")
    assert only.records.get_column("run_id").to_list() == ["new-prompt"]


def test_metric_summary_has_intervals_and_counts_undefined(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    with b.question("q-031", "What is the refund for a cancelled flight?") as q:
        q.retrieve(["f1"])
        q.abstain()
    unanswerable = Case("q-031", "What is the refund for a cancelled flight?", answerable=False)
    result = run(store, b, case(), unanswerable)
    recall = result.metrics.filter((pl.col("metric") == "recall") & (pl.col("at") == "cut")).row(
        0, named=True
    )
    assert (recall["mean"], recall["n"], recall["n_undefined"]) == (1.0, 1, 1)
    hit = result.metrics.filter(pl.col("metric") == "hit").row(0, named=True)
    assert hit["method"] == "wilson" and hit["ci_low"] < 1.0
