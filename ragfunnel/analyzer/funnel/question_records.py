"""Turn the funnel query's rows into the per-question records of docs/funnel.md §6.

Conventions decided here (docs/funnel.md explains each):

- *Retries inside one trace*: the last attempt (latest start) of each stage counts; for
  retrieval, the last attempt of each named retriever, and the fusion span when there is one.
- *Samples* (``ragfunnel.sample.index``): the answer is the lowest-numbered sample's (its last
  attempt); the others only feed the ``sample_disagreement`` flag.
- *Oracle*: an oracle generate in the same trace judges the same question with the gold
  evidence; an instance with only oracle spans is an *oracle run* (``mode = oracle``) and lends
  its verdict to pipeline records of the same case that have none of their own.
- *The same question asked twice* (same case and run, several traces): every instance is a
  record, numbered by ``occurrence``; summaries use the ``latest`` one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from ragfunnel.analyzer.funnel.answer_checks import judge_answers, normalize_texts
from ragfunnel.analyzer.funnel.columns import slot, stage_column
from ragfunnel.analyzer.funnel.decision_table import (
    STAGES,
    item_reasons,
    long_items,
    needs_scores,
    prompt_and_k,
    slot_codes,
    slot_positions,
    slot_scores,
)
from ragfunnel.analyzer.funnel.evidence_tree import evaluate
from ragfunnel.analyzer.funnel.first_failure import FIRST_FAILURES, oracle_note, question_verdicts
from ragfunnel.analyzer.funnel.index_truth import IndexTruth
from ragfunnel.analyzer.funnel.judged import CLAIM, DEFAULT_FAITHFULNESS_THRESHOLD, no_verdicts
from ragfunnel.analyzer.funnel.metrics import question_metrics
from ragfunnel.analyzer.funnel.session import SideData
from ragfunnel.analyzer.funnel.side_details import (
    conflicts,
    details,
    errors,
    retriever_names,
    retriever_ranks,
    samples,
)

__all__ = ["ScoreFetcher", "build_batch", "finish", "with_normalized_answers"]

# Repeated labels as enums: a million records of short, fixed vocabularies.
_FAILURE_ENUM = pl.Enum(list(FIRST_FAILURES))
_STAGE_ENUM = pl.Enum(list(STAGES[:-1]))
_MODE_ENUM = pl.Enum(["pipeline", "oracle"])
_VERDICT_ENUM = pl.Enum(["correct", "incorrect", "unknown", "abstained", "missing", "failed"])
_SOURCE_ENUM = pl.Enum(["generate", "cut", "ranking"])
_STRINGS = pl.List(pl.String)


def with_normalized_answers(raw: pl.DataFrame) -> pl.DataFrame:
    """``raw`` with ``gen_answer_norm``, the pipeline answers as the facts check compares them.

    A regex over every answer, and independent of the rest of the records: the analysis runs
    it on the worker thread that fetched the batch, while the main thread builds the records of
    the batch before.
    """
    return raw.with_columns(normalize_texts(raw.get_column("gen_answer")).alias("gen_answer_norm"))


def _answers(f: pl.DataFrame, cases: pl.DataFrame) -> pl.DataFrame:
    def judged(has: str, answer: str, rows: pl.DataFrame) -> pl.DataFrame:
        norm = [pl.col(f"{answer}_norm").alias("norm")] if f"{answer}_norm" in rows.columns else []
        return judge_answers(
            rows.select(
                pl.col("inst").alias("row"),
                "case_idx",
                (pl.col(has) > 0).alias("has_answer"),
                pl.col(answer).alias("answer"),
                *norm,
            ),
            cases,
        ).rename({"row": "inst"})

    primary = judged("gen_has_answer", "gen_answer", f.filter(pl.col("has_gen")))
    oracle = judged("oracle_has_answer", "oracle_answer", f.filter(pl.col("oracle_n_spans") > 0))
    f = f.join(primary, on="inst", how="left").join(
        oracle.select(
            "inst",
            pl.col("verdict").alias("oracle_verdict"),
            pl.col("verdict_reason").alias("oracle_reason"),
        ),
        on="inst",
        how="left",
    )
    return f.with_columns(
        answer_verdict=pl.when(pl.col("abstained"))
        .then(pl.lit("abstained"))
        .when(~pl.col("has_gen"))
        .then(pl.lit("missing"))
        .when(pl.col("gen_error") > 0)
        .then(pl.lit("failed"))
        .otherwise(pl.col("verdict")),
        answer_reason=pl.when(pl.col("abstained"))
        .then(pl.lit("the system abstained"))
        .when(~pl.col("has_gen"))
        .then(pl.lit("no pipeline generate span"))
        .when(pl.col("gen_error") > 0)
        .then(pl.lit("generate failed: ") + pl.col("gen_error_msg").fill_null("(no message)"))
        .otherwise(pl.col("verdict_reason")),
        oracle_verdict=pl.when(pl.col("oracle_error") > 0)
        .then(pl.lit("failed"))
        .otherwise(pl.col("oracle_verdict")),
    ).drop("verdict")


def _with_judged(f: pl.DataFrame, judged: pl.DataFrame) -> pl.DataFrame:
    """Join the judges' verdicts, and settle each answer's correctness.

    Correctness comes from the judged verdict when a judge gave one (facts or reference),
    else from the facts check; none for an abstention, a failed or a missing generate step.
    """
    f = f.join(judged, on=["trace_id", "question_key"], how="left")
    no_answer = pl.col("abstained") | ~pl.col("has_gen") | (pl.col("gen_error") > 0)
    facts_reason = pl.when(pl.col("facts_correctness").is_not_null()).then(pl.col("verdict_reason"))
    return f.with_columns(
        answer_correctness=pl.when(no_answer)
        .then(None)
        .otherwise(pl.coalesce("judged_correctness", "facts_correctness")),
        correctness_reason=pl.when(no_answer)
        .then(None)
        .otherwise(pl.coalesce("judged_correctness_reason", facts_reason)),
        claims=pl.col("claims").fill_null(pl.lit([], dtype=pl.List(CLAIM))),
        correctness_by_judge=~no_answer & pl.col("judged_correctness").is_not_null(),
    ).drop("verdict_reason", "facts_correctness", "judged_correctness", "judged_correctness_reason")


def _mode(f: pl.DataFrame) -> pl.DataFrame:
    """An instance with only oracle generate spans is an oracle run."""
    is_run = (pl.col("oracle_n_spans") > 0) & ~pl.col("has_cand") & ~pl.col("has_gen")
    return f.with_columns(mode=pl.when(is_run).then(pl.lit("oracle")).otherwise(pl.lit("pipeline")))


def _root_codes(
    f: pl.DataFrame, long: pl.DataFrame, nodes: pl.DataFrame, items: int
) -> pl.DataFrame:
    """The survival code of each answerable instance's evidence tree and the deciding slot."""
    codes = [pl.col(slot("code", j)) for j in range(items)]
    if not codes:  # only unanswerable cases: there is no evidence tree
        return f.with_columns(
            root_code=pl.lit(None, pl.Int64),
            failure_item=pl.lit(None, pl.String),
            item_reason=pl.lit(None, pl.String),
        )
    flat = (
        pl.when(pl.col("root_kind") == "any")
        .then(pl.max_horizontal(codes))
        .otherwise(pl.min_horizontal(codes))
    )
    f = f.with_columns(root_code=pl.when(pl.col("answerable")).then(flat.cast(pl.Int64)))
    decider: pl.Expr = pl.lit(None, dtype=pl.Int32)
    for j in range(items - 1, -1, -1):
        decider = (
            pl.when(codes[j] == pl.col("root_code")).then(pl.lit(j, pl.Int32)).otherwise(decider)
        )
    f = f.with_columns(decider=decider)
    nested = f.filter(pl.col("answerable") & (pl.col("root_kind") == "nested")).select(
        "inst", "case_idx"
    )
    if nested.height:
        leaves = long.join(nested, on="inst").select(
            "inst", "case_idx", "j", pl.col("code").alias("value")
        )
        folded = evaluate(leaves, nodes, how="survival").select(
            "inst", pl.col("value").cast(pl.Int64).alias("n_code"), pl.col("j").alias("n_j")
        )
        f = (
            f.join(folded, on="inst", how="left")
            .with_columns(
                root_code=pl.coalesce("n_code", "root_code"), decider=pl.coalesce("n_j", "decider")
            )
            .drop("n_code", "n_j")
        )
    deciding = long.select(
        "inst",
        pl.col("j").alias("decider"),
        pl.col("item").alias("failure_item"),
        pl.col("reason").alias("item_reason"),
    )
    return f.join(deciding, on=["inst", "decider"], how="left")


ScoreFetcher = Callable[[pl.DataFrame], pl.DataFrame]
"""Given instances (``inst_key``, and ``has_rr``: whether a reranker ranked them last), returns
``inst_key`` and ``cand_score_{j}`` / ``rr_score_{j}``."""


def build_batch(
    raw: pl.DataFrame,
    cases: pl.DataFrame,
    nodes: pl.DataFrame,
    *,
    truth: IndexTruth,
    conflict_chunks: pl.DataFrame,
    side: SideData,
    items: int,
    k_values: Sequence[int],
    fetch_scores: ScoreFetcher,
    repeats: bool = True,
    judged: pl.DataFrame | None = None,
    faithfulness_threshold: float = DEFAULT_FAITHFULNESS_THRESHOLD,
) -> pl.DataFrame:
    """The records of one batch of instances, before :func:`finish` joins the batches.

    ``cases`` is the analysis's case table (``analysis.case_tables``), whose row ``i`` is case
    ``i + 1``: a batch's cases are taken from it by position.

    Everything here depends on one instance alone, so batches can be built one after the
    other and only their slim results kept. ``repeats`` says whether cases were asked many
    times each (then their ids and answer reasons are stored as categoricals). ``judged`` is
    the judges' deciding verdicts (``judged.read_judged``); below ``faithfulness_threshold``
    a judged answer fails at generation.
    """
    judged = no_verdicts() if judged is None else judged
    # Only this batch's cases, taken by position (``case_idx`` is the 1-based row): every join
    # below then hashes a batch's cases, not all of them (a million, for each batch).
    cases = cases[raw.get_column("case_idx").drop_nulls().unique().cast(pl.Int64) - 1]
    light = cases.select("case_idx", "question_id", "answerable", "root_kind", "n_items",
                         *(pl.col("items").list.get(j, null_on_oob=True).alias(slot("item", j))
                           for j in range(items)))  # fmt: skip
    f = prompt_and_k(raw.with_row_index("inst").join(light, on="case_idx", how="left"))
    f = errors(f, side.errors)
    f = samples(details(f, side), side.samples, cases)
    f = conflicts(f, conflict_chunks)
    f = _mode(_with_judged(_answers(f, cases), judged))

    f = truth.in_index_slots(slot_positions(f, items), items)
    stale = [
        pl.col(slot("cand", j)).is_not_null() & (pl.col(slot("in_index", j)) == False)  # noqa: E712
        for j in range(items)
    ]
    f = f.with_columns(stale=pl.any_horizontal(stale) if stale else pl.lit(False)).with_columns(
        pl.when(pl.col(slot("cand", j)).is_not_null()).then(True).otherwise(pl.col(slot("in_index", j)))
        .alias(slot("in_index", j))
        for j in range(items)
    )  # fmt: skip
    f = slot_codes(f, items)
    f = slot_scores(_with_scores(f, items, fetch_scores), items)
    long = item_reasons(long_items(f, items), f)
    f = question_verdicts(_root_codes(f, long, nodes, items), faithfulness_threshold)
    f = _oracle_run_verdicts(f)

    long = retriever_ranks(long, f, side, items)
    evidence = long.group_by("inst", maintain_order=True).agg(
        pl.struct(
            pl.col("item").alias("id"),
            "in_index",
            pl.col("cand").alias("candidate_rank"),
            pl.col("rr_out").alias("rerank_rank"),
            "in_prompt",
            pl.col("prompt_pos").alias("prompt_position"),
            pl.col("lost_at").cast(_STAGE_ENUM),
            "reason",
            "retriever_ranks",
        ).alias("evidence")
    )
    f = retriever_names(f.join(evidence, on="inst", how="left"), side)
    return _slim(_with_metrics(f, nodes, items, k_values), k_values, repeats=repeats)


def _with_scores(f: pl.DataFrame, items: int, fetch: ScoreFetcher) -> pl.DataFrame:
    """Join the item scores of the instances whose reasons need them (see ``needs_scores``)."""
    names = [slot(stage_column(p, "score"), j) for j in range(items) for p in ("cand", "rr")]
    needed = f.filter(needs_scores(items)).select("inst_key", "has_rr") if items else None
    if needed is None or needed.is_empty():
        return f.with_columns(pl.lit(None, dtype=pl.Float64).alias(n) for n in names)
    return f.join(fetch(needed), on="inst_key", how="left")


def _oracle_run_verdicts(f: pl.DataFrame) -> pl.DataFrame:
    """An oracle run is judged by its oracle answer alone (there is no funnel to walk)."""
    oracle_run = pl.col("mode") == "oracle"
    verdict = (
        pl.when(pl.col("oracle_verdict") == "correct")
        .then(pl.lit("ok"))
        .when(pl.col("oracle_verdict").is_in(["incorrect", "failed"]))
        .then(pl.lit("generation"))
        .otherwise(pl.lit("unjudged"))
    )
    return f.with_columns(
        first_failure=pl.when(oracle_run).then(verdict).otherwise(pl.col("first_failure")),
        failure_reason=pl.when(oracle_run)
        .then(
            pl.lit("oracle run (gold evidence in the prompt): ")
            + pl.col("oracle_reason").fill_null("the oracle generate failed")
        )
        .otherwise(pl.col("failure_reason")),
        missing=pl.when(oracle_run).then(pl.lit([], dtype=_STRINGS)).otherwise(pl.col("missing")),
    )


def _with_metrics(
    f: pl.DataFrame, nodes: pl.DataFrame, items: int, k_values: Sequence[int]
) -> pl.DataFrame:
    why = (
        pl.when(pl.col("mode") == "oracle")
        .then(pl.lit("oracle run: no retrieval"))
        .when(~pl.col("answerable"))
        .then(pl.lit("unanswerable case: no expected evidence"))
        .when(pl.col("first_failure") == "incomplete_trace")
        .then(pl.lit("incomplete trace, ") + pl.col("failure_reason"))
    )
    f = f.with_columns(why_undefined=why)
    f = question_metrics(f, items, "prompt_pos", nodes, suffix="at_cut")
    for k in k_values:
        f = f.with_columns(
            pl.when(pl.col(slot("ranked", j)) <= k)
            .then(pl.col(slot("ranked", j)))
            .alias(slot("top", j))
            for j in range(items)
        )
        f = question_metrics(f, items, "top", nodes, suffix=f"at_{k}")
    return f


def _slim(f: pl.DataFrame, k_values: Sequence[int], *, repeats: bool) -> pl.DataFrame:
    """Keep the record's columns (and what :func:`finish` needs), in their final types."""
    flags = pl.concat_list(
        [
            pl.when(pl.col("low_confidence_tokens").list.len() > 0).then(pl.lit("low_confidence")),
            pl.when(pl.col("sample_disagreement")).then(pl.lit("sample_disagreement")),
            pl.when(pl.col("conflicting_documents").list.len() > 0).then(
                pl.lit("conflicting_sources")
            ),
            pl.when(
                (pl.col("retriever_spans") > pl.col("retriever_names"))
                | (pl.col("rr_n_spans") > 1)
                | (pl.col("cut_n_spans") > 1)
                | ((pl.col("gen_n_spans") > 1) & (pl.col("samples_n_spans") == 0))
            ).then(pl.lit("retried")),
            pl.when(pl.col("stale")).then(pl.lit("index_truth_stale")),
            pl.when(pl.col("errors_text").list.len() > 0).then(pl.lit("errors")),
        ]
    ).list.drop_nulls()
    metric_columns = [
        c for c in f.columns
        if c.endswith("_at_cut") or any(c.endswith(f"_at_{k}") for k in k_values)
    ]  # fmt: skip
    # Low-cardinality text as categoricals (runs, reasons, notes repeat across a million
    # records). Ids and answer reasons repeat only when each case was asked many times; with
    # as many cases as questions, encoding them costs more time than it saves memory.
    repeated = pl.Categorical
    per_case = repeated if repeats else pl.String
    return f.select(
        pl.col("question_id").cast(per_case), pl.col("run_id").cast(repeated), "trace_id",
        pl.col("question_key").cast(per_case),
        pl.from_epoch("started_ns", time_unit="ns").alias("started"),
        pl.col("mode").cast(_MODE_ENUM),
        pl.col("first_failure").cast(_FAILURE_ENUM), pl.col("failure_reason").cast(repeated),
        pl.col("failure_item").cast(per_case), pl.col("answer_verdict").cast(_VERDICT_ENUM),
        pl.col("answer_reason").cast(per_case),
        pl.col("oracle_verdict").cast(_VERDICT_ENUM), "abstained",
        pl.col("k").alias("k_prompt"), pl.col("prompt_source").cast(_SOURCE_ENUM),
        pl.col("prompt_n").alias("prompt_size"), pl.col("cand_n").alias("candidates"),
        pl.col("ranking_top").alias("top_score"), "cut_threshold",
        pl.col("index_version").cast(repeated),
        "faithfulness", "claims", "answer_correctness", "correctness_reason",
        "evidence", "missing",
        flags.alias("flags"), pl.col("errors_text").alias("errors"), "low_confidence_tokens",
        pl.col("gen_logprobs_min").alias("logprobs_min"), "sample_disagreement",
        "conflicting_documents",
        *(pl.col(c).cast(repeated) if c.startswith("metrics_note") else c for c in metric_columns),
        # For finish(): not part of the record.
        "case_idx", "started_ns", "answerable",
    )  # fmt: skip


def finish(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Join the batches into the records.

    Oracle runs lend their verdict to pipeline records of the same case, and repeated
    questions are numbered (``occurrence``, ``latest``). The columns computed over all batches
    are sliced back onto each batch: a column added to the joined frame would make polars copy
    every other column to match its chunks (half a gigabyte for a million records).
    """
    whole = pl.concat(parts, how="vertical", rechunk=False)
    lent = (
        whole.filter(pl.col("mode") == "oracle")
        .sort("started_ns")
        .group_by("case_idx")
        .agg(pl.col("oracle_verdict").last().alias("_lent"))
    )
    # One integer per (run, case, mode): ordering by it is much cheaper than by strings.
    group = (
        pl.col("run_id").cast(pl.Categorical).to_physical().cast(pl.Int64) * (1 << 34)
        + pl.col("case_idx").cast(pl.Int64) * 2
        + (pl.col("mode") == "oracle").cast(pl.Int64)
    )
    occurrence, size = _occurrence(whole.select(_group=group, started_ns="started_ns"))
    del whole
    ordered = [
        "question_id", "run_id", "trace_id", "question_key", "started", "occurrence", "latest",
        "mode", "first_failure", "failure_reason", "failure_item", "answer_verdict",
        "answer_reason", "oracle_verdict", "oracle_note",
    ]  # fmt: skip
    done, offset = [], 0
    for part in parts:
        f = part.with_columns(
            occurrence.slice(offset, part.height), size.slice(offset, part.height)
        )
        offset += part.height
        if lent.height:
            f = f.join(lent, on="case_idx", how="left").with_columns(
                oracle_verdict=pl.coalesce("oracle_verdict", "_lent")
            )
        f = f.with_columns(
            oracle_note=oracle_note(), latest=pl.col("occurrence") == pl.col("_size")
        )
        rest = [c for c in f.columns if c not in ordered and not c.startswith("_")
                and c not in ("case_idx", "started_ns")]  # fmt: skip
        done.append(f.select(*ordered, *rest))
    return pl.concat(done, how="vertical", rechunk=False)


def _occurrence(keys: pl.DataFrame) -> list[pl.Series]:
    """Each row's place among its group's rows by start (1-based), and its group's size.

    ``keys`` has ``_group`` and ``started_ns``. Sorted by both, a group's rows are one run, so
    positions come from where each run starts and ends: no per-group state, where a window
    over a million groups (every case asked once) held a few hundred megabytes.
    """
    index = pl.int_range(pl.len(), dtype=pl.Int64)
    ordered = (
        keys.with_row_index("_row")
        .sort("_group", "started_ns", maintain_order=True)
        .with_columns(
            _first=pl.when(pl.col("_group").ne_missing(pl.col("_group").shift(1)))
            .then(index)
            .forward_fill(),
            _last=pl.when(pl.col("_group").ne_missing(pl.col("_group").shift(-1)))
            .then(index)
            .backward_fill(),
        )
        .select(
            "_row",
            occurrence=index - pl.col("_first") + 1,
            _size=(pl.col("_last") - pl.col("_first") + 1).cast(pl.UInt32),
        )
        .sort("_row")
    )
    return [ordered.get_column("occurrence"), ordered.get_column("_size")]
