"""Report speed and size at 1,000,000 questions: build the report model and its HTML file.

    python bench/report.py                       # 1,000,000 questions, one run, median of 3
    python bench/report.py --questions 100000    # quicker
    python bench/report.py --runs 10             # the same questions spread over 10 runs

The FunnelResult is synthetic but complete: every record column of docs/funnel.md §6 in its
real type (enums, categoricals, the ``evidence`` list of structs with per-retriever ranks),
faithfulness, claims and answer correctness as the judges add them, first failures drawn
with realistic shares and reasons in the exact texts the analyzer writes. The failure and
metric tables come from the funnel's own ``failure_table`` and ``metric_table``. Timed: the
report model (the report workflow's last step, ``workflows.report_from_result``: what
``ragfunnel report`` runs once the store is read), the HTML (``render_html`` and the write), each repeated;
question texts come from a stand-in for the store (a question, an answer and five 1 kB chunks
per question shown, as content capture records them); the baseline, timed in the same run, is writing the same records as Parquet — the cheapest
way to hand every question on — so the ratio says what the report costs beyond an export.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from ragfunnel.analyzer.funnel.analysis import DEFAULT_K, FunnelResult
from ragfunnel.analyzer.funnel.records.first_failure import FIRST_FAILURES
from ragfunnel.analyzer.funnel.run_summaries import METRICS, failure_table, metric_table
from ragfunnel.analyzer.report import write_parquet
from ragfunnel.analyzer.report.html import render_html
from ragfunnel.analyzer.report.sources import QuestionTexts
from ragfunnel.analyzer.workflows import ReportSources, report_from_result

SEED = 20240601
STAGES = ["ok", "ok_without_evidence", "ingestion", "search", "rerank", "cut", "generation",
          "unjudged", "incomplete_trace"]  # fmt: skip
SHARES = [0.55, 0.03, 0.06, 0.14, 0.05, 0.04, 0.10, 0.02, 0.01]
LOST = pl.Enum(["ingestion", "ingestion_or_search", "search", "rerank", "cut"])


EVIDENCE = pl.List(
    pl.Struct(
        {
            "id": pl.String, "in_index": pl.Boolean, "candidate_rank": pl.Int64,
            "rerank_rank": pl.Int64, "in_prompt": pl.Boolean, "prompt_position": pl.Int64,
            "lost_at": LOST, "reason": pl.String,
            "retriever_ranks": pl.List(pl.Struct({"retriever": pl.String, "rank": pl.Int64})),
        }
    )
)  # fmt: skip


def _evidence(
    base: pl.DataFrame, item: dict[str, pl.Expr], second: dict[str, pl.Expr]
) -> pl.Series:
    """The ``evidence`` lists, assembled from flat item rows through Arrow offsets (polars
    builds lists of structs from expressions an order of magnitude slower)."""
    fields = list(item)
    first = base.filter(pl.col("answerable")).select("i", pl.lit(0).alias("k"), **item)
    extra = base.filter(pl.col("answerable") & pl.col("two")).select(
        "i", pl.lit(1).alias("k"), **second
    )
    items = pl.concat([first, extra]).sort("i", "k")
    m = items.height
    # Per item: bm25 at its candidate rank (first items) or 2, dense unranked or 3.
    is_second = items.get_column("k").to_numpy() == 1
    bm25 = np.where(is_second, 2, items.get_column("candidate_rank").fill_null(-1).to_numpy())
    ranks = np.column_stack([bm25, np.where(is_second, 3, -1)]).ravel()
    rank_array = pa.array(ranks, pa.int64(), mask=ranks < 0)
    names = pa.array(np.tile(np.array(["bm25", "dense"], dtype=object), m), pa.string())
    per_item = pa.ListArray.from_arrays(
        pa.array(np.arange(0, 2 * m + 1, 2, dtype=np.int32)),
        pa.StructArray.from_arrays([names, rank_array], names=["retriever", "rank"]),
    )
    table = items.select(fields).to_arrow()
    values = pa.StructArray.from_arrays(
        [*(table.column(f).combine_chunks() for f in fields), per_item],
        names=[*fields, "retriever_ranks"],
    )
    answerable = base.get_column("answerable").to_numpy()
    counts = np.where(answerable, 1 + base.get_column("two").to_numpy(), 0)
    offsets = np.zeros(base.height + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    lists = pa.ListArray.from_arrays(pa.array(offsets), values, mask=pa.array(~answerable))
    return pl.Series("evidence", lists).cast(EVIDENCE)


def records(n: int, runs: int) -> pl.DataFrame:
    """n synthetic records; question i is case i % (n / runs) in run i // (n / runs)."""
    rng = np.random.default_rng(SEED)
    stage = rng.choice(len(STAGES), size=n, p=SHARES)
    per_run = max(1, n // runs)
    rank = np.where(stage == 3, rng.integers(31, 51, n), rng.integers(1, 6, n))
    rank = np.where(stage == 4, rng.integers(2, 8, n), rank)
    rr_out = np.where(stage == 4, rng.integers(6, 11, n), np.minimum(rank, 5))
    score = rng.random(n).round(3)
    answerable = rng.random(n) >= 0.05
    two = rng.random(n) < 0.6
    base = pl.DataFrame(
        {
            "i": np.arange(n), "stage": stage, "rank": rank, "rr": rr_out, "score": score,
            "answerable": answerable, "two": two,
        }
    )  # fmt: skip
    s = pl.col("stage")
    name = pl.Series(STAGES).to_frame("n").with_row_index("k")
    base = base.join(name.with_columns(pl.col("k").cast(pl.Int64)), left_on="stage", right_on="k")
    lost_at = (
        pl.when(s == 2).then(pl.lit("ingestion")).when(s == 3).then(pl.lit("search"))
        .when(s == 4).then(pl.lit("rerank")).when(s == 5).then(pl.lit("cut"))
    )  # fmt: skip
    reason = (
        pl.when(s == 2).then(pl.lit("never indexed (parser, connector, scope)"))
        .when(s == 3).then(pl.format("rank {} beyond rerank depth 30", "rank"))
        .when(s == 4).then(pl.format("moved from rank {} to {} > 5", "rank", "rr"))
        .when(s == 5).then(pl.format("score {} below threshold 0.4", pl.col("score").round(2)))
    )  # fmt: skip
    chunk = pl.format("doc{}#section-{}", pl.col("i") // 3 % 200_000, pl.col("i") % 8)
    in_prompt = s.is_in([0, 6, 7])
    item = {
        "id": chunk, "in_index": s != 2,
        "candidate_rank": pl.when(s != 2).then("rank"),
        "rerank_rank": pl.when(s.is_in([0, 1, 4, 5, 6, 7])).then("rr"),
        "in_prompt": in_prompt, "prompt_position": pl.when(in_prompt).then(pl.lit(1, pl.Int64)),
        "lost_at": lost_at, "reason": reason,
    }  # fmt: skip
    second = {
        "id": pl.format("extra{}#c1", pl.col("i") % 50_000), "in_index": pl.lit(True),
        "candidate_rank": pl.lit(2, pl.Int64), "rerank_rank": pl.lit(2, pl.Int64),
        "in_prompt": pl.lit(True), "prompt_position": pl.lit(2, pl.Int64),
        "lost_at": pl.lit(None, pl.String), "reason": pl.lit(None, pl.String),
    }  # fmt: skip
    base = base.with_columns(evidence=_evidence(base, item, second))
    first_failure = (
        pl.when(~pl.col("answerable"))
        .then(pl.when(pl.col("score") > 0.3).then(pl.lit("ok")).otherwise(pl.lit("cut")))
        .otherwise(pl.col("n"))
    )
    failure_reason = (
        pl.when(~pl.col("answerable") & (pl.col("score") > 0.3)).then(pl.lit("abstained on an unanswerable question"))
        .when(~pl.col("answerable")).then(pl.format("the confidence gate let an unanswerable question through (top score {}, threshold 0.5)", "score"))
        .when(s == 0).then(pl.lit("answer states every fact"))
        .when(s == 1).then(pl.lit("answer correct although a chunk was lost at search: rank 41 > prompt cut at 10"))
        .when(s == 6).then(pl.format("answer misses fact(s): fact{}", "i"))
        .when(s == 7).then(pl.lit("answer text not recorded (content capture off?)"))
        .when(s == 8).then(pl.lit("missing: generate span"))
        .otherwise(reason)
    )  # fmt: skip
    hit = pl.when(in_prompt).then(1.0).otherwise(0.0)
    metric_values = {
        "hit": hit, "recall": hit * pl.when(pl.col("two")).then(0.5).otherwise(1.0) + 0.0,
        "mrr": hit, "context_precision": pl.when(in_prompt).then(1.0).otherwise(float("nan")),
        "average_precision": hit,
    }  # fmt: skip
    undefined = ~pl.col("answerable")
    metric_columns = []
    for suffix in ["cut", *(str(k) for k in DEFAULT_K)]:
        for metric, expr in metric_values.items():
            metric_columns.append(
                pl.when(undefined).then(float("nan")).otherwise(expr).alias(f"{metric}_at_{suffix}")
            )
        metric_columns.append(
            pl.when(undefined).then(pl.lit("unanswerable case: no expected evidence"))
            .otherwise(pl.lit(None, pl.String)).cast(pl.Categorical).alias(f"metrics_note_at_{suffix}")
        )  # fmt: skip
    claim = pl.struct(
        text=pl.format("Claim {} of the answer.", "i"),
        verdict=pl.when(s == 6).then(0.0).otherwise(1.0),
        label=pl.when(s == 6).then(pl.lit("unsupported")).otherwise(pl.lit("supported")),
        supporting_ids=pl.concat_list(chunk), missing=pl.lit(None, pl.String),
        judge=pl.lit("offline"),
    )  # fmt: skip
    judged = s.is_in([0, 6])
    strings = pl.lit([], dtype=pl.List(pl.String))
    return base.select(
        pl.format("q-{}", pl.col("i") % per_run).alias("question_id"),
        pl.format("run-{}", pl.col("i") // per_run).cast(pl.Categorical).alias("run_id"),
        pl.col("i").cast(pl.String).str.zfill(32).alias("trace_id"),
        pl.format("q-{}", pl.col("i") % per_run).alias("question_key"),
        (pl.lit(1_717_200_000_000_000_000, pl.Int64) + pl.col("i") * 1_000_000).cast(pl.Datetime("ns")).alias("started"),
        pl.lit(1, pl.Int64).alias("occurrence"), pl.lit(True).alias("latest"),
        pl.lit("pipeline").cast(pl.Enum(["pipeline", "oracle"])).alias("mode"),
        first_failure.cast(pl.Enum(list(FIRST_FAILURES))).alias("first_failure"),
        failure_reason.cast(pl.Categorical).alias("failure_reason"),
        pl.when(s.is_in([2, 3, 4, 5])).then(chunk).alias("failure_item"),
        pl.when(s == 0).then(pl.lit("correct")).otherwise(pl.lit("incorrect"))
        .cast(pl.Enum(["correct", "incorrect", "unknown", "abstained", "missing", "failed"])).alias("answer_verdict"),
        pl.lit("answer checked").alias("answer_reason"),
        pl.lit(None, pl.String).cast(pl.Enum(["correct", "incorrect", "unknown", "abstained", "missing", "failed"])).alias("oracle_verdict"),
        pl.lit(None, pl.String).alias("oracle_note"),
        (~pl.col("answerable") & (pl.col("score") > 0.3)).alias("abstained"), "answerable",
        pl.lit(5, pl.Int64).alias("k_prompt"),
        pl.lit("generate").cast(pl.Enum(["generate", "cut", "ranking"])).alias("prompt_source"),
        pl.lit(5, pl.Int64).alias("prompt_size"), pl.lit(50, pl.Int64).alias("candidates"),
        pl.col("score").alias("top_score"), pl.lit(0.4).alias("cut_threshold"), pl.lit("v1").cast(pl.Categorical).alias("index_version"),
        "evidence",
        strings.alias("missing"), strings.alias("flags"), strings.alias("errors"),
        strings.alias("low_confidence_tokens"), pl.lit(None, pl.Float64).alias("logprobs_min"),
        pl.lit(False).alias("sample_disagreement"), strings.alias("conflicting_documents"),
        *metric_columns,
        pl.when(judged).then(pl.when(s == 6).then(0.5).otherwise(1.0)).alias("faithfulness"),
        pl.when(judged).then(pl.concat_list(claim)).alias("claims"),
        pl.when(judged).then(pl.when(s == 6).then(pl.lit("wrong")).otherwise(pl.lit("correct"))).alias("answer_correctness"),
        pl.lit(None, pl.String).alias("correctness_reason"),
    )  # fmt: skip


def result(n: int, runs: int) -> FunnelResult:
    frame = records(n, runs)
    return FunnelResult(
        records=frame, failures=failure_table(frame), metrics=metric_table(frame, DEFAULT_K),
        index_truth="ingest spans, index version(s) v1", k=DEFAULT_K,
    )  # fmt: skip


def texts(keys: list[tuple[str, str]]) -> dict[tuple[str, str], QuestionTexts]:
    """Texts as a store with content capture would give them: a question, an answer, 5 chunks."""
    chunk = "A passage of a policy document, long enough to be realistic. " * 16  # ~1 kB
    return {
        (trace, key): QuestionTexts(
            question=f"Question {key}: which firmware versions need a manual reset?",
            answer="Firmware 4.2.0 and 4.2.1 need a manual reset. " * 10,
            context_ids=tuple(f"doc{j}#section-{j}" for j in range(5)),
            context_texts=(chunk,) * 5,
        )
        for trace, key in keys
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    t0 = time.perf_counter()
    synthetic = result(args.questions, args.runs)
    print(f"synthetic FunnelResult: {synthetic.records.height:,} records, "
          f"{len(METRICS)} metrics × {1 + len(DEFAULT_K)} cut-offs, "
          f"{synthetic.records.estimated_size('mb'):.0f} MB, {time.perf_counter() - t0:.1f} s")  # fmt: skip
    out = Path(tempfile.mkdtemp(prefix="ragfunnel-bench-report-"))
    model, html, total, baseline = [], [], [], []
    size = 0
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        report = report_from_result(
            synthetic, ReportSources(texts=texts), jaeger_url="http://127.0.0.1:16686", top=20,
            sample=50,
        )  # fmt: skip
        t1 = time.perf_counter()
        path = out / "report.html"
        path.write_text(render_html(report), encoding="utf-8")
        t2 = time.perf_counter()
        size = path.stat().st_size
        model.append(t1 - t0)
        html.append(t2 - t1)
        total.append(t2 - t0)
        t3 = time.perf_counter()
        write_parquet(synthetic.records, synthetic.k, out / "records.parquet")
        baseline.append(time.perf_counter() - t3)
    med = statistics.median
    cpu = platform.processor() or platform.machine()
    print(f"machine: {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
          f"polars {pl.__version__}")  # fmt: skip
    print(f"questions {args.questions:,} in {args.runs} run(s), repeats {args.repeats}")
    print(
        f"report model:   median {med(model):.2f} s   (runs: {', '.join(f'{t:.2f}' for t in model)})"
    )
    print(f"HTML render+write: median {med(html):.2f} s")
    print(f"total:          median {med(total):.2f} s   (target < 30 s)")
    print(f"HTML size:      {size / 1e6:.2f} MB   (target < 5 MB)")
    print(f"baseline, records to Parquet: median {med(baseline):.2f} s   "
          f"ratio report / baseline {med(total) / med(baseline):.2f}")  # fmt: skip
    for file in out.iterdir():
        file.unlink()
    out.rmdir()


if __name__ == "__main__":
    main()
