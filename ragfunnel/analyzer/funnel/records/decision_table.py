"""The decision table of docs/funnel.md §3–4, vectorised over every (question instance, evidence item).

Input: one row per question instance from the funnel query (``read/sql/instances.py``) joined to its case.
Item j of a case (its j-th distinct evidence id) lives in *slot* j: columns ``cand_{j}``,
``rr_out_{j}``, ``gen_{j}`` ... hold its 1-based position at each stage, ``code_{j}`` where the
funnel first dropped it. Working slot by slot keeps every rule a column expression over a
million rows; only reasons and the evidence list are built in long form.

Survival codes, upstream to downstream (``all_of`` takes the minimum, ``any_of`` the maximum):

====  ====================  ==================================================================
code  lost at               when
====  ====================  ==================================================================
0     ingestion             not a candidate, and the index truth says it was never indexed
1     ingestion_or_search   not a candidate, and there is no index truth to tell which
2     search                indexed but not retrieved; or a candidate at rank r beyond the
                            reranker's input depth d; or, with no reranker, rank r > k
3     rerank                given to the reranker, then dropped or placed below k
4     cut                   within k after the last ranking stage, yet not in the prompt
5     (prompt)              in the prompt: the answer decides
====  ====================  ==================================================================

Nothing here touches the store; every function is a pure polars transformation.
"""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.funnel.read.wide_layout import (
    META_FIELDS,
    POSITION_CAP,
    meta_field,
    slot,
    stage_column,
    unpack_position,
)
from ragfunnel.analyzer.nouns import count_expr

__all__ = [
    "STAGES",
    "item_reasons",
    "long_items",
    "needs_scores",
    "number_text",
    "prompt_and_k",
    "slot_codes",
    "slot_positions",
    "slot_scores",
]

STAGES = ("ingestion", "ingestion_or_search", "search", "rerank", "cut", "prompt")
INGESTION, INGESTION_OR_SEARCH, SEARCH, RERANK, CUT, PROMPT = range(6)

# The long form: an instance, a slot, and the slot's columns (``{name}_{j}`` in the wide form).
LONG_SCHEMA = {
    "inst": pl.UInt32,
    "j": pl.Int32,
    "item": pl.String,
    "in_index": pl.Boolean,
    "cand": pl.Int64,
    "rr_in": pl.Int64,
    "rr_out": pl.Int64,
    "prompt_pos": pl.Int64,
    "ranked": pl.Int64,
    "score": pl.Float64,
    "code": pl.Int8,
}


def prompt_and_k(frame: pl.DataFrame) -> pl.DataFrame:
    """Unpack each stage's packed fields and add the instance-level funnel facts.

    The facts: which list is the prompt, its size, and k.

    The prompt is what the generator was given: the pipeline generate span's context ids if it
    recorded them, else the cut's kept ids; for a foreign trace with neither (the usual
    OpenInference shape), the output of the last ranking stage. k is the cut's ``k`` when set;
    a cut without ``k`` lets in at most its input (so everything the ranking handed it counts
    as inside k); without a cut span, k is the number of ids that reached the prompt.
    """
    frame = frame.with_columns(
        meta_field(stage, name).alias(stage_column(stage, name))
        for stage in ("cand", "rr", "cut", "gen")
        for name in META_FIELDS
    )
    foreign = pl.col("question_key").str.starts_with("trace:")
    has_rr = pl.col("rr_n_spans") > 0
    has_cut = pl.col("cut_n_spans") > 0
    source = (
        pl.when((pl.col("gen_n_spans") > 0) & (pl.col("gen_has_ids") > 0))
        .then(pl.lit("generate"))
        .when(has_cut)
        .then(pl.lit("cut"))
        .when(foreign & (pl.col("cand_n_spans") > 0))
        .then(pl.lit("ranking"))
    )
    frame = frame.with_columns(
        has_root=pl.col("root_n_spans") > 0,
        has_cand=pl.col("cand_n_spans") > 0,
        has_rr=has_rr,
        has_cut=has_cut,
        has_gen=pl.col("gen_n_spans") > 0,
        foreign=foreign,
        abstained=pl.col("abstained") > 0,
        prompt_source=source,
        ranking_n=pl.when(has_rr).then(pl.col("rr_n")).otherwise(pl.col("cand_n")),
        ranking_top=pl.when(has_rr)
        .then(pl.col("rr_top_score"))
        .otherwise(pl.col("cand_top_score")),
    )
    prompt_n = (
        pl.when(pl.col("prompt_source") == "generate")
        .then(pl.col("gen_n"))
        .when(pl.col("prompt_source") == "cut")
        .then(pl.col("cut_n"))
        .when(pl.col("prompt_source") == "ranking")
        .then(pl.col("ranking_n"))
    )
    frame = frame.with_columns(prompt_n=prompt_n)
    k = (
        pl.when(has_cut & pl.col("cut_k").is_not_null())
        .then(pl.col("cut_k"))
        .when(has_cut & (pl.col("cut_has_input") > 0))
        .then(pl.col("cut_n_in"))
        .when(has_cut)
        .then(pl.col("cut_n"))
        .otherwise(pl.col("prompt_n"))
    )
    depth = pl.when(pl.col("rr_has_input") > 0).then(pl.col("rr_n_in")).otherwise(pl.col("cand_n"))
    return frame.with_columns(k=k.cast(pl.Int64), rerank_depth=depth.cast(pl.Int64))


# Each packed positions column of the funnel rows, and the slot column it unpacks into.
_POSITIONS = {
    "cand_pk": "cand",
    "rr_in_pk": "rr_in",
    "rr_pk": "rr_out",
    "cut_in_pk": "cut_in",
    "cut_pk": "cut_kept",
    "gen_pk": "gen",
}


def slot_positions(frame: pl.DataFrame, items: int) -> pl.DataFrame:
    """Unpack every stage's positions of each item slot (``item_{j}`` holds its id)."""
    exprs: list[pl.Expr] = []
    for j in range(items):
        exprs += [
            unpack_position(packed, j).alias(slot(name, j)) for packed, name in _POSITIONS.items()
        ]
    return frame.with_columns(exprs)


def slot_codes(frame: pl.DataFrame, items: int) -> pl.DataFrame:
    """Apply the decision table to each item slot.

    Adds ``prompt_pos_{j}``, ``ranked_{j}`` and ``code_{j}`` (null for slots the case does
    not use).

    ``in_index_{j}`` (true / false / null = unknown) must already be set.
    """
    source = pl.col("prompt_source")
    has_rr = pl.col("has_rr")
    first: list[pl.Expr] = []
    for j in range(items):
        cand, rr_out = pl.col(slot("cand", j)), pl.col(slot("rr_out", j))
        first += [
            pl.when(source == "generate")
            .then(pl.col(slot("gen", j)))
            .when(source == "cut")
            .then(pl.col(slot("cut_kept", j)))
            .when(has_rr)
            .then(rr_out)
            .otherwise(cand)
            .alias(slot("prompt_pos", j)),
            pl.when(has_rr).then(rr_out).otherwise(cand).alias(slot("ranked", j)),
            (
                has_rr
                & pl.when(pl.col("rr_has_input") > 0)
                .then(pl.col(slot("rr_in", j)).is_not_null())
                .otherwise(cand.is_not_null())
            ).alias(slot("given_rr", j)),
        ]
    frame = frame.with_columns(first)
    codes = []
    for j in range(items):
        ranked = pl.col(slot("ranked", j))
        in_index = pl.col(slot("in_index", j))
        code = (
            pl.when(pl.col(slot("item", j)).is_null())
            .then(None)
            .when(pl.col(slot("prompt_pos", j)).is_not_null())
            .then(PROMPT)
            .when(ranked.is_not_null() & (ranked <= pl.col("k")))
            .then(CUT)
            .when(pl.col(slot("given_rr", j)))
            .then(RERANK)
            .when(pl.col(slot("cand", j)).is_not_null())
            .then(SEARCH)
            .when(in_index.is_null())
            .then(INGESTION_OR_SEARCH)
            .when(in_index)
            .then(SEARCH)
            .otherwise(INGESTION)
        )
        codes.append(code.cast(pl.Int8).alias(slot("code", j)))
    return frame.with_columns(codes)


def slot_scores(frame: pl.DataFrame, items: int) -> pl.DataFrame:
    """Add ``score_{j}``: the item's score at the last ranking stage.

    Scores are fetched only where a reason cites them (cut losses against a threshold); null
    elsewhere.
    """
    return frame.with_columns(
        pl.when(pl.col("has_rr"))
        .then(pl.col(slot("rr_score", j)))
        .otherwise(pl.col(slot("cand_score", j)))
        .alias(slot("score", j))
        for j in range(items)
    )


def needs_scores(items: int) -> pl.Expr:
    """Instances with an item lost at a cut that has a threshold (their reason cites scores)."""
    lost = [pl.col(slot("code", j)) == CUT for j in range(items)]
    return pl.col("cut_threshold").is_not_null() & pl.any_horizontal(lost)


def long_items(frame: pl.DataFrame, items: int) -> pl.DataFrame:
    """One row per (instance, used slot), in instance then slot order."""
    if not items:
        return pl.DataFrame(schema=LONG_SCHEMA)
    parts = [
        frame.select(
            "inst",
            pl.lit(j, dtype=pl.Int32).alias("j"),
            *(pl.col(slot(name, j)).alias(name) for name in list(LONG_SCHEMA)[2:]),
        )
        for j in range(items)
    ]
    return pl.concat(parts).filter(pl.col("item").is_not_null()).sort("inst", "j")


def number_text(expr: pl.Expr) -> pl.Expr:
    """A score or limit as text: whole numbers without ".0", others to 4 decimals."""
    rounded = expr.round(4)
    whole = rounded.is_finite() & (rounded == rounded.round(0)) & (rounded.abs() < 1e15)
    return (
        pl.when(whole)
        .then(rounded.cast(pl.Int64, strict=False).cast(pl.String))
        .otherwise(rounded.cast(pl.String))
    )


def _reason(code: int, unknown: str) -> pl.Expr:
    """The reason text for items with one survival code (evaluated on those rows only).

    ``unknown`` says why ingestion cannot be told from search (``IndexTruth.unknown_reason``).
    """
    k = pl.col("k").cast(pl.String)
    top_k = (
        pl.when(pl.col("cand_top_k").is_not_null())
        .then(pl.format("top_k = {}", pl.col("cand_top_k")))
        .otherwise(count_expr(pl.col("cand_n"), "candidate"))
    )
    not_retrieved = (
        pl.when(pl.col("cand_error_msg").is_not_null())
        .then(pl.lit("retrieve failed: ") + pl.col("cand_error_msg"))
        .otherwise(pl.format("not retrieved ({})", top_k))
    )
    cap = pl.when(pl.col("cand") >= POSITION_CAP).then(pl.lit("≥")).otherwise(pl.lit(""))
    if code == CUT:
        below = pl.col("score").is_not_null() & pl.col("score").is_not_nan()
        below = below & (pl.col("score") < pl.col("cut_threshold"))
        return (
            pl.when(pl.col("cut_error_msg").is_not_null())
            .then(pl.lit("cut failed: ") + pl.col("cut_error_msg"))
            .when((pl.col("cut_abstained") > 0) & (pl.col("cut_n") == 0))
            .then(
                pl.format(
                    "the confidence gate abstained (top score {}, threshold {})",
                    number_text(pl.col("ranking_top")).fill_null("unknown"),
                    number_text(pl.col("cut_threshold")).fill_null("none"),
                )
            )
            .when(pl.col("cut_threshold").is_not_null() & below)
            .then(
                pl.format(
                    "score {} below threshold {}",
                    number_text(pl.col("score")),
                    number_text(pl.col("cut_threshold")),
                )
            )
            .when(pl.col("cut_token_budget").is_not_null())
            .then(pl.format("over token budget {}", number_text(pl.col("cut_token_budget"))))
            .when(~pl.col("has_cut"))
            .then(
                pl.format(
                    "ranked {} ≤ k = {} but not in the prompt (no cut span)", pl.col("ranked"), k
                )
            )
            .otherwise(pl.format("dropped by the cut (ranked {} ≤ k = {})", pl.col("ranked"), k))
        )
    if code == RERANK:
        was = pl.coalesce("cand", "rr_in")
        return (
            pl.when(pl.col("rr_error_msg").is_not_null())
            .then(pl.lit("rerank failed: ") + pl.col("rr_error_msg"))
            .when(pl.col("rr_out").is_not_null() & (pl.col("rr_out") == was))
            .then(pl.format("kept at rank {} > {} by the reranker", was, k))
            .when(pl.col("rr_out").is_not_null())
            .then(pl.format("moved from rank {} to {} > {}", was, pl.col("rr_out"), k))
            .otherwise(
                pl.format(
                    "dropped by the reranker (was rank {} of {} given)",
                    was,
                    pl.col("rerank_depth"),
                )
            )
        )
    if code == SEARCH:
        rank = pl.col("cand").cast(pl.String)
        return (
            pl.when(pl.col("cand").is_not_null() & pl.col("has_rr"))
            .then(pl.format("rank {}{} beyond rerank depth {}", cap, rank, pl.col("rerank_depth")))
            .when(pl.col("cand").is_not_null())
            .then(pl.format("rank {}{} > prompt cut at {}", cap, rank, k))
            .otherwise(not_retrieved)
        )
    if code == INGESTION_OR_SEARCH:
        return pl.format("{}; {}", not_retrieved, pl.lit(unknown))
    if code == INGESTION:
        return pl.lit("never indexed (parser, connector, scope)")
    return pl.lit(None, dtype=pl.String)


_REASON_INPUTS = (
    "k", "cand_top_k", "cand_n", "cand_error_msg", "rr_error_msg", "cut_error_msg",
    "cut_abstained", "cut_n", "cut_threshold", "cut_token_budget", "ranking_top", "has_cut",
    "has_rr", "rerank_depth",
)  # fmt: skip


def item_reasons(long: pl.DataFrame, frame: pl.DataFrame, unknown: str) -> pl.DataFrame:
    """Add ``reason``, ``lost_at`` and ``in_prompt`` to the long items.

    ``unknown`` says why an item not retrieved is not told lost at ingestion or at search
    (``IndexTruth.unknown_reason``). Each reason is formatted only on the rows whose code needs it: a when/then chain over
    every row would format every branch for every item.
    """
    joined = long.join(frame.select("inst", *_REASON_INPUTS), on="inst", how="left")
    parts = [
        part.with_columns(reason=_reason(int(code), unknown))
        for (code,), part in joined.group_by(["code"], maintain_order=True)
    ]
    out = pl.concat(parts) if parts else joined.with_columns(reason=pl.lit(None, pl.String))
    return (
        out.drop(_REASON_INPUTS)
        .with_columns(
            lost_at=pl.when(pl.col("code") < PROMPT).then(
                pl.col("code").replace_strict(list(range(6)), list(STAGES))
            ),
            in_prompt=pl.col("prompt_pos").is_not_null(),
        )
        .sort("inst", "j")
    )
