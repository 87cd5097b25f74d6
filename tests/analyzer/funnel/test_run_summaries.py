"""Per-run summaries (``run_summaries.py``): failure counts per run, metrics with intervals and
the undefined ones counted."""

from __future__ import annotations

import polars as pl
import pytest

from ragfunnel.analyzer.cases import Case, CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.funnel.run_summaries import METRICS, failure_table, metric_table
from ragfunnel.analyzer.stats import EXACT_SIZE_LIMIT, wilson
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


# --- the two tables on hand-built records ----------------------------------------------------


def records(*rows: tuple[str, str, str, bool, float, float]) -> pl.DataFrame:
    """Records of (run, mode, first failure, latest, hit at the cut, recall at the cut)."""
    frame = pl.DataFrame(
        rows, schema=["run_id", "mode", "first_failure", "latest", "hit_at_cut", "recall_at_cut"],
        orient="row",
    )  # fmt: skip
    others = [f"{m}_at_{s}" for s in ("cut", "1") for m in METRICS]
    return frame.with_columns(
        pl.col(c) if c in frame.columns else pl.col("recall_at_cut").alias(c) for c in others
    )


def test_the_failure_table_counts_the_latest_record_per_run_and_mode() -> None:
    table = failure_table(
        records(
            ("b", "pipeline", "search", True, 0.0, 0.0),
            ("a", "pipeline", "generation", False, 1.0, 1.0),  # asked again later: not counted
            ("a", "pipeline", "ok", True, 1.0, 1.0),
            ("a", "oracle", "generation", True, 1.0, 1.0),
            ("a", "pipeline", "search", True, 0.0, 0.0),
            ("a", "pipeline", "ok", True, 1.0, 1.0),
            ("a", "pipeline", "ingestion", True, 0.0, 0.0),
        )
    )
    # Runs in order, pipeline before oracle, first failures in FIRST_FAILURES' order.
    assert table.select("run_id", "mode", "first_failure", "count", "total").rows() == [
        ("a", "pipeline", "ok", 2, 4),
        ("a", "pipeline", "ingestion", 1, 4),
        ("a", "pipeline", "search", 1, 4),
        ("a", "oracle", "generation", 1, 1),
        ("b", "pipeline", "search", 1, 1),
    ]
    ok = table.row(0, named=True)
    expected = wilson(2, 4)
    assert (ok["share"], ok["ci_low"], ok["ci_high"]) == (expected.estimate, expected.low,
                                                          expected.high)  # fmt: skip


def test_the_metric_table_leaves_undefined_values_out_and_counts_them() -> None:
    nan = float("nan")
    table = metric_table(
        records(
            ("a", "pipeline", "ok", True, 1.0, 1.0),
            ("a", "pipeline", "search", True, 0.0, 0.5),
            ("a", "pipeline", "ok", True, 1.0, nan),
            ("a", "pipeline", "ok", False, 0.0, 0.0),  # not the latest
            ("a", "oracle", "ok", True, 0.0, 0.0),  # an oracle run has no retrieval to sum up
        ),
        (1,),
    )
    assert set(table.get_column("at")) == {"cut", "1"}
    assert table.height == 2 * len(METRICS)
    rows = {(r["metric"], r["at"]): r for r in table.iter_rows(named=True)}
    recall = rows[("recall", "cut")]
    assert (recall["mean"], recall["n"], recall["n_undefined"]) == (0.75, 2, 1)
    assert recall["method"] == "bootstrap"
    hit = rows[("hit", "cut")]
    assert (hit["mean"], hit["n"], hit["method"]) == (pytest.approx(2 / 3), 3, "wilson")
    assert hit["ci_low"] == wilson(2, 3).low


def test_a_large_run_takes_the_normal_interval() -> None:
    many = [("a", "pipeline", "ok", True, 1.0, i % 2 * 1.0) for i in range(EXACT_SIZE_LIMIT)]
    recall = (
        metric_table(records(*many), ()).filter(pl.col("metric") == "recall").row(0, named=True)
    )
    assert (recall["mean"], recall["n"], recall["method"]) == (0.5, EXACT_SIZE_LIMIT, "normal")


def test_records_joined_from_batches_give_each_run_its_own_metrics() -> None:
    # Three runs (one of them without a run id) whose records come in several batches, as
    # analyze joins them; each run's values differ, so a metric given to the wrong run shows.
    size = EXACT_SIZE_LIMIT + 7
    runs = {"b": 0.25, None: 0.5, "a": 0.75}
    batches = [
        records(
            *(
                (run_id, "oracle" if i % 5 == 0 else "pipeline", "ok", True, 1.0,
                 nan_every(i, 9) if run_id is None else value * (i % 2) * 2)
                for i in range(part, size, 3)
                for run_id, value in runs.items()
            )
        ).cast({"run_id": pl.String})
        for part in range(3)
    ]  # fmt: skip
    joined = pl.concat(batches, how="vertical", rechunk=False)
    assert joined.n_chunks("all") == [3] * joined.width
    table = metric_table(joined, (1,))
    assert table.equals(metric_table(joined.rechunk(), (1,)))
    recall = table.filter((pl.col("metric") == "recall") & (pl.col("at") == "1"))
    assert recall.get_column("run_id").to_list() == ["b", "None", "a"]
    for run_id, expected in runs.items():
        values = joined.filter(
            pl.col("run_id").eq_missing(run_id) & (pl.col("mode") == "pipeline")
        ).get_column("recall_at_1")
        row = recall.row(by_predicate=pl.col("run_id") == str(run_id), named=True)
        defined = values.drop_nans()
        assert (row["mean"], row["n"], row["n_undefined"]) == (
            pytest.approx(defined.mean()),
            defined.len(),
            values.len() - defined.len(),
        )
        assert run_id is None or row["mean"] == pytest.approx(expected, rel=0.01)


def nan_every(i: int, step: int) -> float:
    """NaN (an undefined metric) for every ``step``-th record, else 1.0 or 0.0 in turn."""
    return float("nan") if i % step == 0 else float(i % 2)
