"""``analyze``: rebuild every question's funnel from the store and attribute its first failure.

The heavy part runs in ClickHouse (one aggregation over the typed stage table, see ``read/sql/``);
polars shapes the per-question records (``records/pipeline.py``, step by step) and the
summaries (``summary.py``). The store side is ``read/``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import cast

import polars as pl

from ragfunnel.analyzer.cases import CaseSet, load_cases
from ragfunnel.analyzer.errors import InvalidArgument
from ragfunnel.analyzer.funnel.read.index_truth import IndexTruth, load_manifest
from ragfunnel.analyzer.funnel.read.ingest_chunks import Documents, ingested_chunks, run_versions
from ragfunnel.analyzer.funnel.read.runs import check_runs
from ragfunnel.analyzer.funnel.read.session import Discovery, Session, SideData
from ragfunnel.analyzer.funnel.read.source import StageSource, stage_source
from ragfunnel.analyzer.funnel.read.sql import FunnelQuery
from ragfunnel.analyzer.funnel.read.verdicts import DEFAULT_FAITHFULNESS_THRESHOLD, read_verdicts
from ragfunnel.analyzer.funnel.records.answer_checks import prepare_cases
from ragfunnel.analyzer.funnel.records.evidence_tree import node_table
from ragfunnel.analyzer.funnel.records.pipeline import build_batch, finish, with_normalized_answers
from ragfunnel.analyzer.funnel.records.stale_cases import (
    STALE_SCHEMA,
    names_documents,
    resolved_case_tables,
    stale_labels,
    unreadable_notice,
    unresolvable_cases,
)
from ragfunnel.analyzer.funnel.run_summaries import failure_table, metric_table
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.opening import StoreArg, takes_store

__all__ = ["DEFAULT_K", "FunnelResult", "analyze", "case_tables"]

DEFAULT_K = (1, 5, 10)
_NO_DOCUMENTS = pl.DataFrame(
    schema={"document": pl.String, "ids": pl.List(pl.String), "texts": pl.List(pl.String),
            "starts": pl.List(pl.Int64), "ends": pl.List(pl.Int64)}
)  # fmt: skip


@dataclass(frozen=True)
class FunnelResult:
    """The outcome of :func:`analyze`.

    Attributes:
        records: one row per question instance (a case asked in one trace): the record of
            docs/funnel.md §6 with an ``evidence`` list-of-struct column and per-question metrics.
        failures: per run and mode, the count of each ``first_failure`` with a Wilson CI.
        metrics: per run, each metric at the real cut and at each k, with its CI.
        index_truth: where "was it indexed?" came from.
        k: the chosen k values.
        unmatched_questions: question instances in the store that match no case.
        unmatched_examples: a few of their question keys.
        cases_without_trace: ids of cases no analyzed trace asked.
        notices: what the user should know about how the analysis ran, e.g. that it parsed
            ``otel_traces`` at read time because the store has no current stage table.
    """

    records: pl.DataFrame
    failures: pl.DataFrame
    metrics: pl.DataFrame
    index_truth: str
    k: tuple[int, ...]
    unmatched_questions: int = 0
    unmatched_examples: tuple[str, ...] = ()
    cases_without_trace: tuple[str, ...] = field(default_factory=tuple)
    notices: tuple[str, ...] = ()

    def record(self, question_id: str) -> pl.DataFrame:
        """The records of one case (every run and occurrence)."""
        return self.records.filter(pl.col("question_id") == question_id)


def case_tables(cases: CaseSet) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The cases as one table, and the node table of the nested evidence trees.

    The case table has ``case_idx`` (1-based), ``question_id``, ``answerable``, ``items`` (the
    distinct evidence ids), ``n_items``, ``root_kind`` (``leaf`` / ``all`` / ``any`` for flat
    evidence, ``nested`` otherwise), ``facts`` and ``reference``. Both are cached on the
    case set, so analyzing the same cases again (another run, one question) costs nothing.
    """
    cached = cases.derived.get("tables")
    if cached is not None:
        return cast("tuple[pl.DataFrame, pl.DataFrame]", cached)
    # The case set's columns, not its Case objects: a loaded set never builds one per case.
    columns = cases.columns
    frame = columns.frame.select(
        pl.int_range(1, columns.frame.height + 1, dtype=pl.UInt32).alias("case_idx"),
        pl.col("id").alias("question_id"),
        "answerable",
        "items",
        "root_kind",
        "facts",
        "reference",
    )
    frame = prepare_cases(frame.with_columns(n_items=pl.col("items").list.len().cast(pl.Int64)))
    nested = [(row + 1, columns.case(row)) for row in sorted(columns.trees)]
    tables = (frame, node_table(nested))
    cases.derived["tables"] = tables
    return tables


def _runs(run: str | Iterable[str] | None) -> tuple[str, ...]:
    if run is None:
        return ()
    if isinstance(run, str):
        return (run,)
    return tuple(run)


def _k_values(k: int | Sequence[int] | None) -> tuple[int, ...]:
    if k is None:
        return DEFAULT_K
    given: tuple[object, ...] = (
        tuple(k) if isinstance(k, Iterable) and not isinstance(k, (str, bytes)) else (k,)
    )
    values = [v for v in given if isinstance(v, int) and not isinstance(v, bool) and v >= 1]
    if not given or len(values) < len(given):
        raise InvalidArgument(f"k must be positive integers, got {k!r}", argument="k")
    return tuple(sorted(set(values)))


@takes_store("analysis")
def analyze(
    store: StoreArg,
    cases: CaseSet | str | Path,
    *,
    run: str | Iterable[str] | None = None,
    index_manifest: str | Path | Collection[str] | None = None,
    k: int | Sequence[int] | None = None,
    question: str | None = None,
    faithfulness_threshold: float = DEFAULT_FAITHFULNESS_THRESHOLD,
    chunks: Mapping[str, str] | None = None,
) -> FunnelResult:
    """Rebuild each question's funnel and attribute its first failure (docs/funnel.md §2–7).

    Args:
        store: an open :class:`~ragfunnel.analyzer.store.Store`, or a DSN or store path
            (``".ragfunnel/store"``, ``"http://host:8123/otel"``), opened for the call with
            :meth:`Store.open_for_analysis` (never created) and closed after it.
        cases: a :class:`~ragfunnel.analyzer.cases.CaseSet` or the path of a cases file.
        run: only questions of this run id (or these run ids); default every run.
        index_manifest: ids exported from the vector store (a path or a collection); when
            absent, ingest spans in the store are the index truth if there are any.
        k: the cut-off(s) for ranking metrics besides the real cut; default 1, 5, 10.
        question: only this case id (or, if no case has it, this trace question id).
        faithfulness_threshold: a judged answer below this faithfulness fails at generation
            (docs/judges.md); verdicts are read from the store's verdicts table when it exists.
        chunks: chunk id → text, for ingest spans that recorded no text (a chunk file):
            document + quote evidence is resolved against these texts too.

    Raises:
        CaseError: the cases file is invalid. ManifestError: the manifest is unreadable.
        StoreError: the store failed. InvalidArgument (a ValueError): a bad ``k``.
        UnknownRun (an InvalidArgument): a run id the store does not hold.
    """
    assert isinstance(store, Store)  # takes_store opened it
    case_set = cases if isinstance(cases, CaseSet) else load_cases(cases)
    k_values = _k_values(k)
    runs = _runs(run)
    if isinstance(index_manifest, (str, Path)):
        manifest: Collection[str] | None = load_manifest(index_manifest)
    else:
        manifest = index_manifest
    frame, _ = case_tables(case_set)
    if not 0 <= faithfulness_threshold <= 1:
        raise InvalidArgument(
            f"faithfulness_threshold must be between 0 and 1, got {faithfulness_threshold!r}",
            argument="faithfulness_threshold",
        )
    source = stage_source(store)
    check_runs(store, runs, source)
    verdicts = read_verdicts(store, runs)
    parts: list[pl.DataFrame] = []
    unmatched, examples = 0, cast("tuple[str, ...]", ())
    truth = IndexTruth.none()
    notices = list(source.notices)
    for one in _passes(store, source, case_set, runs, chunks):
        notices += [one.notice] if one.notice else []
        truth, found, built = _funnel_pass(
            store, source, case_set, one.frame, one.nodes, one.runs, one.stale,
            manifest=manifest, question=question, k_values=k_values, verdicts=verdicts,
            faithfulness_threshold=faithfulness_threshold,
        )  # fmt: skip
        parts += built
        unmatched += found.unmatched_instances
        examples = examples or found.unmatched_examples
    missing = _cases_not_asked(frame, parts, question)
    records = finish(parts)
    return FunnelResult(
        records=records,
        failures=failure_table(records),
        metrics=metric_table(records, k_values),
        index_truth=truth.describe(),
        k=k_values,
        unmatched_questions=unmatched if question is None else 0,
        unmatched_examples=examples if question is None else (),
        cases_without_trace=tuple(missing.to_list()),
        notices=tuple(notices),
    )


def _cases_not_asked(
    frame: pl.DataFrame, parts: Sequence[pl.DataFrame], question: str | None
) -> pl.Series:
    """The ids of the cases (or of ``question``) that no record of ``parts`` answers.

    Told by the case's row (``case_idx``, the same in every pass's frame): a million case
    ids compared as strings cost a quarter of a second, as Python strings seconds.
    """
    if question is not None:
        ids = [part.get_column("question_id").cast(pl.String) for part in parts]
        wanted = pl.Series([question])
        return wanted.filter(~wanted.is_in(pl.concat(ids).implode())) if ids else wanted
    rows = [part.get_column("case_idx").cast(pl.UInt32) for part in parts]
    asked = pl.concat(rows) if rows else pl.Series(dtype=pl.UInt32)
    return frame.filter(~pl.col("case_idx").is_in(asked.implode())).get_column("question_id")


def _funnel_pass(  # noqa: PLR0917 (one pass of analyze, which checked every argument)
    store: Store,
    source: StageSource,
    case_set: CaseSet,
    frame: pl.DataFrame,
    nodes: pl.DataFrame,
    runs: tuple[str, ...],
    stale: pl.DataFrame,
    *,
    manifest: Collection[str] | None,
    question: str | None,
    k_values: tuple[int, ...],
    verdicts: pl.DataFrame,
    faithfulness_threshold: float,
) -> tuple[IndexTruth, Discovery, list[pl.DataFrame]]:
    """The records of the questions of ``runs``, with the case tables of their index version."""
    items = int(frame.select(pl.col("n_items").max()).item() or 0)
    with Session(store, source) as session:
        session.load_cases(frame)
        found = session.discover(case_set, runs)
        keys: tuple[str, ...] = ()
        if question is not None:
            by_id = frame.filter(pl.col("question_id") == question)
            keys = (
                tuple(session.keys_for(int(by_id["case_idx"][0]))) if by_id.height else (question,)
            )
        truth = (
            IndexTruth.from_manifest(manifest) if manifest is not None else session.index_truth()
        )
        stale = pl.concat([stale, stale_labels(frame, truth)], how="vertical")
        chunks = session.conflict_chunks()
        query = FunnelQuery(
            session.stage_table,
            items=items,
            match_table=session.prepare_match(items),
            runs=runs,
            conflicts=not chunks.is_empty(),
            question_keys=keys,
            with_scores=source.read_time,
        )
        conflict = chunks.get_column("hash").to_list()
        batches = session.batches(query)
        # Cases asked ten times or more on average: their ids repeat enough to encode.
        repeats = 10 * frame.height <= session.instances
        parts = []

        def fetch(batch: FunnelQuery) -> tuple[pl.DataFrame, SideData]:
            raw = session.funnel(batch, conflict)
            return with_normalized_answers(raw), session.side_data(batch, [raw])

        # One batch at a time, and the next one's queries run on a worker thread while this
        # one's records are built (the engine and polars both release the GIL); a batch's rows
        # go once its records exist, so memory holds about two batches besides the records
        # (docs/funnel.md §10).
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragfunnel-funnel") as worker:
            pending = worker.submit(fetch, batches[0])
            for i, batch in enumerate(batches):
                raw, side = pending.result()
                if i + 1 < len(batches):
                    pending = worker.submit(fetch, batches[i + 1])
                parts.append(
                    build_batch(
                        raw, frame, nodes, truth=truth, conflict_chunks=chunks, side=side,
                        items=items, k_values=k_values,
                        fetch_scores=partial(session.item_scores, batch),
                        repeats=repeats, verdicts=verdicts,
                        faithfulness_threshold=faithfulness_threshold, stale=stale,
                    )
                )  # fmt: skip
                del raw, side
    return truth, found, parts


@dataclass(frozen=True)
class _Pass:
    """Runs analyzed together: their index version's case tables, stale cases and notice.

    The notice says what the user should know of the stale cases (``unreadable_notice``,
    ``unresolvable_cases``).
    """

    runs: tuple[str, ...]
    frame: pl.DataFrame
    nodes: pl.DataFrame
    stale: pl.DataFrame
    notice: str | None = None


def _passes(
    store: Store,
    source: StageSource,
    case_set: CaseSet,
    runs: tuple[str, ...],
    chunk_texts: Mapping[str, str] | None,
) -> list[_Pass]:
    """The runs to analyze together, each group with the case tables of its index version.

    Cases naming no document need one pass. Document leaves are resolved against each run's
    index version (the one most of its questions name): one pass per version.
    """
    frame, nodes = case_tables(case_set)  # cached on the case set
    columns = case_set.columns
    if not names_documents(columns):
        return [_Pass(runs, frame, nodes, pl.DataFrame(schema=STALE_SCHEMA))]
    chunks = ingested_chunks(store, texts=chunk_texts)
    only = next(iter(chunks)) if len(chunks) == 1 else None
    with Session(store, source) as session:
        named = run_versions(store, session.question_rows, runs)
    groups: dict[str, list[str]] = {}
    for run_id, version in (
        named.unique("run_id", keep="first", maintain_order=True)
        .select("run_id", "index_version")
        .iter_rows()
    ):
        groups.setdefault(version or only or "", []).append(run_id)
    if not groups:
        groups[only or ""] = list(runs)
    passes = []
    for version, group in groups.items():
        held = chunks.get(version) or Documents(_NO_DOCUMENTS)
        resolved_frame, resolved_nodes, stale = resolved_case_tables(
            frame, nodes, columns, held, version
        )
        if version in chunks:
            notice = unreadable_notice(stale)
        else:  # no ingest span says what this version holds
            stale, notice = unresolvable_cases(frame, columns, version, sorted(chunks))
        group_runs = tuple(group) if len(groups) > 1 else runs
        passes.append(_Pass(group_runs, resolved_frame, resolved_nodes, stale, notice))
    return passes
