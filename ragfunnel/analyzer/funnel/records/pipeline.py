"""Turn one batch of funnel rows into the per-question records of docs/funnel.md §6, step by step.

:data:`STEPS` is the whole recipe, read top to bottom: each :class:`Step` is named, takes the
:class:`Batch` so far (the *instance frame*, one row per question instance, and from the item
reasons on the *item rows*, one row per instance and expected item) with the batch's fixed
:class:`BatchInputs`, and returns the next :class:`Batch`. :func:`build_batch` runs them in
order; ``finish.finish`` joins the batches.

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
from dataclasses import dataclass, replace

import polars as pl

from ragfunnel.analyzer.funnel.read.index_truth import IndexTruth
from ragfunnel.analyzer.funnel.read.session import SideData
from ragfunnel.analyzer.funnel.read.verdicts import DEFAULT_FAITHFULNESS_THRESHOLD, no_verdicts
from ragfunnel.analyzer.funnel.read.wide_layout import slot
from ragfunnel.analyzer.funnel.records.answer_checks import normalize_texts
from ragfunnel.analyzer.funnel.records.answers import (
    answer_verdicts,
    instance_mode,
    oracle_run_verdicts,
    with_verdicts,
)
from ragfunnel.analyzer.funnel.records.decision_table import (
    item_reasons,
    long_items,
    prompt_and_k,
    slot_codes,
    slot_scores,
)
from ragfunnel.analyzer.funnel.records.evidence import (
    ScoreFetcher,
    evidence_lists,
    root_codes,
    with_index_truth,
    with_item_scores,
)
from ragfunnel.analyzer.funnel.records.finish import finish
from ragfunnel.analyzer.funnel.records.first_failure import question_verdicts
from ragfunnel.analyzer.funnel.records.rare_details import (
    conflicts,
    error_messages,
    oracle_and_low_confidence,
    retriever_names,
    retriever_ranks,
    samples,
)
from ragfunnel.analyzer.funnel.records.record_columns import record_columns, with_metrics
from ragfunnel.analyzer.funnel.records.stale_cases import STALE_SCHEMA, with_stale_cases

__all__ = [
    "STEPS",
    "Batch",
    "BatchInputs",
    "ScoreFetcher",
    "Step",
    "build_batch",
    "finish",
    "with_normalized_answers",
]


def with_normalized_answers(raw: pl.DataFrame) -> pl.DataFrame:
    """``raw`` with ``gen_answer_norm``, the pipeline answers as the facts check compares them.

    A regex over every answer, and independent of the rest of the records: the analysis runs
    it on the worker thread that fetched the batch, while the main thread builds the records of
    the batch before. (With self-consistency samples the answer is sample 0's: the funnel query
    picks its span, and the step "self-consistency samples" sets both columns from its rows.)
    """
    return raw.with_columns(normalize_texts(raw.get_column("gen_answer")).alias("gen_answer_norm"))


@dataclass(frozen=True)
class BatchInputs:
    """What every step of one batch may read; none of it changes while the batch is built.

    Attributes:
        cases: this batch's rows of the case table (``analysis.case_tables``).
        nodes: the node table of the nested evidence trees.
        truth: which items each index version holds.
        conflict_chunks: chunks of documents ingested more than once (``Session.conflict_chunks``).
        side: the side queries' rare details (``Session.side_data``).
        items: the largest number of evidence items of any case.
        k_values: the ranking metrics' cut-offs besides the real cut.
        fetch_scores: the item scores of the instances whose reasons need them.
        repeats: whether cases were asked many times each (ids and answer reasons are then
            stored as categoricals).
        verdicts: the judges' deciding verdicts (``read.verdicts.read_verdicts``).
        faithfulness_threshold: below it, a judged answer fails at generation.
        stale: the cases whose labels do not fit an index version (``stale_cases``).
    """

    cases: pl.DataFrame
    nodes: pl.DataFrame
    truth: IndexTruth
    conflict_chunks: pl.DataFrame
    side: SideData
    items: int
    k_values: Sequence[int]
    fetch_scores: ScoreFetcher
    repeats: bool
    verdicts: pl.DataFrame
    faithfulness_threshold: float
    stale: pl.DataFrame


@dataclass(frozen=True)
class Batch:
    """A batch between two steps.

    Attributes:
        instances: one row per question instance (``inst``, 0-based within the batch), a
            column per fact the steps so far established.
        item_rows: one row per instance and expected item (``inst``, ``j``), from the step
            "item reasons" on; None before it.
    """

    instances: pl.DataFrame
    item_rows: pl.DataFrame | None = None

    @property
    def items(self) -> pl.DataFrame:
        """The item rows (a step before "item reasons" has none to ask for)."""
        if self.item_rows is None:
            raise RuntimeError("a step read the item rows before the step that builds them")
        return self.item_rows


@dataclass(frozen=True)
class Step:
    """One named step of :data:`STEPS`."""

    name: str
    run: Callable[[Batch, BatchInputs], Batch]


def _on_instances(
    run: Callable[[pl.DataFrame, BatchInputs], pl.DataFrame],
) -> Callable[[Batch, BatchInputs], Batch]:
    """A step that only changes the instance frame."""

    def step(batch: Batch, given: BatchInputs) -> Batch:
        return replace(batch, instances=run(batch.instances, given))

    return step


def _item_reasons(batch: Batch, given: BatchInputs) -> Batch:
    rows = long_items(batch.instances, given.items)
    reasons = item_reasons(rows, batch.instances, given.truth.unknown_reason())
    return replace(batch, item_rows=reasons)


def _first_failure(batch: Batch, given: BatchInputs) -> Batch:
    decided = root_codes(batch.instances, batch.items, given.nodes, given.items)
    return replace(batch, instances=question_verdicts(decided, given.faithfulness_threshold))


def _retriever_ranks(batch: Batch, given: BatchInputs) -> Batch:
    ranks = retriever_ranks(batch.items, batch.instances, given.side, given.items)
    return replace(batch, item_rows=ranks)


def _evidence(batch: Batch, given: BatchInputs) -> Batch:
    listed = batch.instances.join(evidence_lists(batch.items), on="inst", how="left")
    return replace(batch, instances=listed)


STEPS: tuple[Step, ...] = (
    Step("prompt and k", _on_instances(lambda rows, _: prompt_and_k(rows))),
    Step("error messages", _on_instances(lambda rows, g: error_messages(rows, g.side.errors))),
    Step("oracle answers and low-confidence tokens",
         _on_instances(lambda rows, g: oracle_and_low_confidence(rows, g.side))),
    Step("self-consistency samples",
         _on_instances(lambda rows, g: samples(rows, g.side.samples, g.cases))),
    Step("conflicting sources", _on_instances(lambda rows, g: conflicts(rows, g.conflict_chunks))),
    Step("answer verdicts (facts check)", _on_instances(lambda rows, g: answer_verdicts(rows, g.cases))),
    Step("judges' verdicts", _on_instances(lambda rows, g: with_verdicts(rows, g.verdicts))),
    Step("mode (pipeline or oracle run)", _on_instances(lambda rows, _: instance_mode(rows))),
    Step("index truth", _on_instances(lambda rows, g: with_index_truth(rows, g.truth, g.items))),
    Step("survival codes", _on_instances(lambda rows, g: slot_codes(rows, g.items))),
    Step("item scores", _on_instances(
        lambda rows, g: slot_scores(with_item_scores(rows, g.items, g.fetch_scores), g.items))),
    Step("item reasons", _item_reasons),
    Step("first failure", _first_failure),
    Step("stale cases", _on_instances(lambda rows, g: with_stale_cases(rows, g.stale, g.truth))),
    Step("oracle runs' verdicts", _on_instances(lambda rows, _: oracle_run_verdicts(rows))),
    Step("retriever ranks", _retriever_ranks),
    Step("evidence lists", _evidence),
    Step("retriever names", _on_instances(lambda rows, g: retriever_names(rows, g.side))),
    Step("metrics", _on_instances(lambda rows, g: with_metrics(rows, g.nodes, g.items, g.k_values))),
    Step("record columns",
         _on_instances(lambda rows, g: record_columns(rows, g.k_values, repeats=g.repeats))),
)  # fmt: skip
"""The steps of one batch, in order: the whole of how a funnel row becomes a record."""


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
    verdicts: pl.DataFrame | None = None,
    faithfulness_threshold: float = DEFAULT_FAITHFULNESS_THRESHOLD,
    stale: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """The records of one batch of instances (:data:`STEPS` in order), before ``finish``.

    ``cases`` is the analysis's case table (``analysis.case_tables``), whose row ``i`` is case
    ``i + 1``: a batch's cases are taken from it by position.

    Everything here depends on one instance alone, so batches can be built one after the
    other and only their slim results kept.
    """
    # Only this batch's cases, taken by position (``case_idx`` is the 1-based row): every join
    # then hashes a batch's cases, not all of them (a million, for each batch).
    cases = cases[raw.get_column("case_idx").drop_nulls().unique().cast(pl.Int64) - 1]
    light = cases.select("case_idx", "question_id", "answerable", "root_kind", "n_items",
                         *(pl.col("items").list.get(j, null_on_oob=True).alias(slot("item", j))
                           for j in range(items)))  # fmt: skip
    given = BatchInputs(
        cases=cases, nodes=nodes, truth=truth, conflict_chunks=conflict_chunks, side=side,
        items=items, k_values=k_values, fetch_scores=fetch_scores, repeats=repeats,
        verdicts=no_verdicts() if verdicts is None else verdicts,
        faithfulness_threshold=faithfulness_threshold,
        stale=pl.DataFrame(schema=STALE_SCHEMA) if stale is None else stale,
    )  # fmt: skip
    batch = Batch(raw.with_row_index("inst").join(light, on="case_idx", how="left"))
    for step in STEPS:
        batch = step.run(batch, given)
    return batch.instances
