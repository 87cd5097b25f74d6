"""Live traffic without cases: the shape of each question's funnel.

With no expected evidence nothing can be called a failure, but production traces still show
how each question went through the funnel: how many candidates came back and how good the best
one was, how many the reranker and the cut kept, whether the system abstained, and which
stages are missing or failed. Aggregated per run (or per service run id), with intervals, these
shapes show drift (top scores falling, abstentions rising) before anyone labels a case.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

from ragfunnel.analyzer.funnel.read.runs import check_runs
from ragfunnel.analyzer.funnel.read.session import Session, SideData
from ragfunnel.analyzer.funnel.read.source import stage_source
from ragfunnel.analyzer.funnel.read.sql import FunnelQuery
from ragfunnel.analyzer.funnel.records.decision_table import prompt_and_k
from ragfunnel.analyzer.stats import bootstrap_mean, wilson
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.opening import StoreArg, takes_store

__all__ = ["Shapes", "shapes"]

_SUMMARY_SCHEMA = {
    "run_id": pl.String,
    "measure": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "n": pl.Int64,
    "method": pl.String,
}


@dataclass(frozen=True)
class Shapes:
    """Per-question funnel shapes and their per-run summary.

    ``notices`` says how the analysis ran, as :class:`~.analysis.FunnelResult`'s does.
    """

    records: pl.DataFrame
    summary: pl.DataFrame
    notices: tuple[str, ...] = ()


def _missing() -> pl.Expr:
    return pl.concat_list(
        [
            pl.when(~pl.col("has_root")).then(pl.lit("question")),
            pl.when(~pl.col("has_cand")).then(pl.lit("retrieve")),
            pl.when(~pl.col("has_gen") & ~pl.col("abstained")).then(pl.lit("generate")),
        ]
    ).list.drop_nulls()


def shape_records(raw: pl.DataFrame, side: SideData) -> pl.DataFrame:
    """Per-instance shapes from a case-less funnel query and its side data."""
    instances = prompt_and_k(raw)
    stages = pl.concat_list(
        [
            pl.when(pl.col(flag)).then(pl.lit(name))
            for flag, name in (("has_cand", "retrieve"), ("has_rr", "rerank"),
                               ("has_cut", "cut"), ("has_gen", "generate"))
        ]
    ).list.drop_nulls()  # fmt: skip
    if side.errors is not None:
        failed_stages = side.errors.group_by("inst_key").agg(
            pl.col("stage").unique().sort().alias("failed_stages")
        )
        instances = instances.join(failed_stages, on="inst_key", how="left")
    else:
        instances = instances.with_columns(failed_stages=pl.lit(None, dtype=pl.List(pl.String)))
    failed = pl.col("failed_stages").fill_null(pl.lit([], dtype=pl.List(pl.String)))
    return instances.sort("run_id", "started_ns").select(
        "trace_id",
        "question_key",
        "run_id",
        pl.when(pl.col("foreign"))
        .then(pl.lit("foreign"))
        .otherwise(pl.lit("ragfunnel"))
        .alias("source"),
        pl.from_epoch("started_ns", time_unit="ns").alias("started"),
        stages.alias("stages"),
        _missing().alias("missing"),
        failed.alias("failed_stages"),
        pl.col("cand_n").alias("candidates"),
        pl.when(pl.col("has_cand")).then(pl.col("cand_top_score")).alias("top_score"),
        pl.when(pl.col("has_rr")).then(pl.col("rr_n")).alias("reranked"),
        pl.when(pl.col("has_rr")).then(pl.col("rr_top_score")).alias("reranked_top_score"),
        pl.col("prompt_n").alias("prompt_size"),
        pl.col("k").alias("k_prompt"),
        "abstained",
        (pl.col("gen_n_low_confidence") > 0).alias("low_confidence"),
    )


def shape_summary(records: pl.DataFrame) -> pl.DataFrame:
    """Per run: rates with Wilson intervals, means with bootstrap intervals."""
    rows = []
    for (run_id,), group in records.group_by(["run_id"], maintain_order=True):
        n = group.height
        for measure, count in (
            ("abstention rate", int(group.get_column("abstained").sum())),
            ("low-confidence rate", int(group.get_column("low_confidence").sum())),
            ("incomplete rate", int((group.get_column("missing").list.len() > 0).sum())),
            ("error rate", int((group.get_column("failed_stages").list.len() > 0).sum())),
        ):
            ci = wilson(count, n)
            rows.append((str(run_id), measure, ci.estimate, ci.low, ci.high, n, ci.method))
        for measure, column in (
            ("mean candidates", "candidates"),
            ("mean top score", "top_score"),
            ("mean reranked top score", "reranked_top_score"),
            ("mean prompt size", "prompt_size"),
        ):
            values = group.get_column(column).cast(pl.Float64).drop_nulls()
            ci = bootstrap_mean(values.to_numpy())
            rows.append((str(run_id), measure, ci.estimate, ci.low, ci.high, ci.n, ci.method))
    return pl.DataFrame(rows, schema=_SUMMARY_SCHEMA, orient="row")


@takes_store("analysis")
def shapes(
    store: StoreArg,
    *,
    run: str | Iterable[str] | None = None,
    question: str | None = None,
) -> Shapes:
    """Funnel shapes of every question instance in the store.

    ``store`` is an open store, or a DSN or store path opened for the call (never created).
    ``run`` restricts to runs (an unknown one raises ``UnknownRun``), ``question`` to one trace
    question id.
    """
    assert isinstance(store, Store)  # takes_store opened it
    runs = (run,) if isinstance(run, str) else tuple(run or ())
    keys = (question,) if question is not None else ()
    source = stage_source(store)
    check_runs(store, runs, source)
    with Session(store, source) as session:
        query = FunnelQuery(session.stage_table, runs=runs, question_keys=keys)
        raws = [session.funnel(batch, []) for batch in session.batches(query)]
        side = session.side_data(query, raws)
    records = shape_records(pl.concat(raws, how="vertical_relaxed"), side)
    return Shapes(records, shape_summary(records), source.notices)
