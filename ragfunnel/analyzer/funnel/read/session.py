"""One analysis's conversation with the store: temporary case tables, discovery, queries.

Cases travel to ClickHouse as two temporary tables (question key → case, case → item ids),
inserted as Arrow: values never become SQL text, and the tables vanish with the session (they
are dropped explicitly too: these two once the match table the funnel joins on is built, the
others at the end). Matching a trace to a case happens in two steps:

1. by question key: the case id itself (the app passed it to ``@ragfunnel.question``);
2. discovery: question spans whose key matched no case id are listed with their question hash
   (ragfunnel; this covers the ``q-<hash>`` ids the decorators derive from the text) or their
   root's input text (foreign traces, hashed here with the contract's own normalisation);
   those whose text matches exactly one case get their key added to the table.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import uuid
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, cast

import polars as pl
import pyarrow as pa

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel.read import sql
from ragfunnel.analyzer.funnel.read.index_truth import IndexTruth
from ragfunnel.analyzer.funnel.read.source import StageSource
from ragfunnel.analyzer.funnel.read.wide_layout import meta_field
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.stage_spans import BUCKETS, STAGE_COLUMNS
from ragfunnel.analyzer.store.temporary import TemporaryTables
from ragfunnel.instrumentation.contract import question_hash

__all__ = ["Discovery", "Session", "SideData"]

BATCH_INSTANCES = 125_000
"""Question instances aggregated per funnel query (one batch of buckets) from the stage table."""

READ_TIME_BATCH_INSTANCES = 250_000
"""The same when ``otel_traces`` is parsed at read time: every batch reads and parses all of
it again (a span's bucket is known only once its attributes are read), so fewer, larger
batches are faster there, for twice the aggregation memory."""

# The stage columns without codecs, for a temporary Memory copy of some stage rows.
_MEMORY_COLUMNS = ", ".join(f"{name} {kind.split(' CODEC')[0]}" for name, kind in STAGE_COLUMNS)

# Keys a foreign root's JSON input may hold the question under (OpenInference input.value).
_JSON_QUESTION_KEYS = ("query", "question", "input", "query_str", "text")


@dataclass(frozen=True)
class SideData:
    """Per-instance details from the side queries (``inst_key`` joins them); None = none."""

    errors: pl.DataFrame | None = None
    samples: pl.DataFrame | None = None
    oracle: pl.DataFrame | None = None
    low_confidence: pl.DataFrame | None = None
    retrievers: pl.DataFrame | None = None


@dataclass(frozen=True)
class Discovery:
    """What discovery found: the questions matching no case."""

    unmatched_instances: int
    unmatched_examples: tuple[str, ...]


def _foreign_question(text: str, mime: str) -> str:
    if "json" in mime.lower():
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return text
        if isinstance(data, dict):
            for key in _JSON_QUESTION_KEYS:
                if isinstance(data.get(key), str):
                    return str(data[key])
        if isinstance(data, str):
            return data
    return text


def _case_hashes(cases: CaseSet) -> pl.DataFrame:
    """Map ``question_hash`` to ``case_idx``, computed once per case set.

    Only cases whose normalised text is their own: a text shared by several cases cannot
    pick one.
    """
    cached = cases.derived.get("hashes")
    if cached is None:
        hashes = cases.question_hashes()
        cached = (
            pl.DataFrame(
                {"question_hash": hashes, "case_idx": pl.int_range(1, hashes.len() + 1, eager=True)}
            )
            .filter(~pl.col("question_hash").is_duplicated())
            .cast({"case_idx": pl.UInt32})
        )
        cases.derived["hashes"] = cached
    return cast("pl.DataFrame", cached)


class Session:
    """Temporary tables and the queries of one analysis; use as a context manager."""

    def __init__(self, store: Store, source: StageSource) -> None:
        self.store = store
        self.stage_table = source.sql
        self.read_time = source.read_time
        self._question_rows = "" if source.read_time else source.sql
        self._question_source = source.question_sql
        tag = uuid.uuid4().hex[:12]
        self._tag = tag
        self.keys_table = f"_ragfunnel_{tag}_keys"
        self.items_table = f"_ragfunnel_{tag}_items"
        self.match_table = f"_ragfunnel_{tag}_match"
        self._tables = TemporaryTables(store)
        self.instances = 0
        """Question instances in the store, as :meth:`batches` counted them (0 before)."""
        # Item scores of the funnel passes (``with_scores``), by batch: the next batch's pass
        # runs on a worker while this one's records are built.
        self._scores: dict[tuple[int, int] | None, pl.DataFrame] = {}
        self._lock = threading.Lock()
        self._paused = contextlib.ExitStack()

    def __enter__(self) -> Session:
        self._paused.enter_context(self.store.merges_paused())
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Cleanup must not mask the analysis's own error; the tables die with the session.
        with self._paused:
            self._tables.drop_all()

    def _temporary(self, name: str, columns: str, data: pa.Table) -> None:
        self._tables.create(name, columns)
        self._tables.fill(name, data)

    @property
    def question_rows(self) -> str:
        """Where the question and ingest stage rows are read from.

        The stage table; or, when ``otel_traces`` is parsed at read time, a temporary copy of
        just those rows (one per question, and the ingest spans), made on first use, so that
        the small queries (discovery, index truth, batch sizes, roots) do not each parse every
        span again.
        """
        if not self._question_rows:
            name = f"_ragfunnel_{self._tag}_rows"
            quoted = self._tables.create(name, _MEMORY_COLUMNS)
            self._tables.fill_from(name, sql.question_rows_sql(self._question_source))
            self._question_rows = quoted
        return self._question_rows

    def load_cases(self, cases: pl.DataFrame) -> None:
        """Create the key and item tables for ``cases``.

        ``cases`` has ``case_idx``, ``question_id`` and ``items``; traces keyed by anything
        but a case id are matched by :meth:`discover`.
        """
        keys = cases.select(pl.col("question_id").alias("key"), "case_idx")
        self._temporary(self.keys_table, "key String, case_idx UInt32", keys.to_arrow())
        items = cases.select("case_idx", "items")
        self._temporary(self.items_table, "case_idx UInt32, items Array(String)", items.to_arrow())
        self.store.release_memory()  # what parsing the Arrow blocks took

    def discover(self, cases: CaseSet, runs: tuple[str, ...]) -> Discovery:
        """Match question keys that are no case id by question text (see the module doc)."""
        found = self.store.query_df(
            sql.discovery_sql(self.question_rows, self.keys_table, runs=bool(runs)),
            {"runs": list(runs)},
        )
        if found.is_empty():
            return Discovery(0, ())
        hashes = [
            qh if source == "ragfunnel" else (question_hash(_foreign_question(t, m)) if t else "")
            for source, qh, t, m in found.select(
                "source", "question_hash", "text", "mime"
            ).iter_rows()
        ]
        matched = found.with_columns(question_hash=pl.Series(hashes, dtype=pl.String)).join(
            _case_hashes(cases), on="question_hash", how="left"
        )
        hit = matched.filter(pl.col("case_idx").is_not_null())
        if hit.height:
            self.store.insert_arrow(
                self.keys_table,
                hit.select("key", pl.col("case_idx").cast(pl.UInt32)).to_arrow(),
                temporary=True,
            )
        miss = matched.filter(pl.col("case_idx").is_null())
        return Discovery(
            int(miss.get_column("instances").sum() or 0),
            tuple(miss.get_column("key").head(5).to_list()),
        )

    def prepare_match(self, items: int) -> str:
        """Build the table the funnel query joins on; returns its name.

        Call it after discovery and index truth: it drops the cases' key and item tables.
        """
        columns, select = sql.match_sql(self.keys_table, self.items_table, items)
        # A Join table keeps its hash table: every batch's query joins it as it is, instead of
        # building a hash table of every case again (time and, with a million cases, memory).
        self._tables.create(self.match_table, columns, engine="Join(ALL, INNER, key_hash)")
        self._tables.fill_from(self.match_table, select)
        # The funnel reads the match table only; the cases' own tables can go (a million
        # cases' keys and item lists are about a hundred megabytes).
        for name in (self.keys_table, self.items_table):
            self._tables.drop(name)
        self.store.release_memory()
        return self.match_table

    def keys_for(self, case_idx: int) -> list[str]:
        """Every question key that maps to one case (for a single question's records)."""
        rows = self.store.query_df(sql.case_keys_sql(self.keys_table), {"c": case_idx})
        return rows.get_column("key").to_list()

    def index_truth(self) -> IndexTruth:
        """Index truth from the ingest spans in the store (none if there are none)."""
        versions = self.store.query_df(sql.ingest_versions_sql(self.question_rows))
        if versions.is_empty():
            return IndexTruth.none()
        found = self.store.query_df(sql.index_truth_sql(self.question_rows, self.items_table))
        documents = self.store.query_df(
            sql.ingested_documents_sql(self.question_rows, self.items_table)
        )
        return IndexTruth.from_ingest(found, versions.get_column("version").to_list(), documents)

    def conflict_chunks(self) -> pl.DataFrame:
        """Chunks that belong to exactly one of several ingestions of the same document.

        An ingestion is told apart by what it produced, its list of chunk ids: the same chunks
        ingested again (into a second index, say) are the same ingestion, while two versions
        ingested within the same second, or under one index version, are two. Columns:
        ``hash`` (UInt64, as the view hashes ids), ``chunk``, ``document`` and ``ingestion``
        (a label: its number, and the version and time of the first ingest span that
        produced those chunks).
        """
        docs = self.store.query_df(sql.multi_ingested_sql(self.question_rows))
        empty = pl.DataFrame(
            schema={"hash": pl.UInt64, "chunk": pl.String, "document": pl.String,
                    "ingestion": pl.String}
        )  # fmt: skip
        if docs.is_empty():
            return empty
        rows = []
        for document, ingestions in docs.iter_rows():
            owners: dict[str, set[str]] = {}
            labels: dict[tuple[str, ...], str] = {}
            for ingestion in sorted(ingestions, key=lambda i: i["2"]):
                version, when, ids, hashes = (ingestion[k] for k in ("1", "2", "3", "4"))
                label = labels.setdefault(
                    tuple(ids),
                    f"ingestion {len(labels) + 1}: {version or 'unversioned'}, "
                    f"{when:%Y-%m-%d %H:%M:%S}",
                )
                for chunk, h in zip(ids, hashes, strict=True):
                    owners.setdefault(f"{h}\x00{chunk}", set()).add(label)
            for key, owned in owners.items():
                if len(owned) == 1:
                    h, chunk = key.split("\x00", 1)
                    rows.append((int(h), chunk, document, next(iter(owned))))
        if not rows:
            return empty
        return pl.DataFrame(rows, schema=empty.schema, orient="row")

    def _params(self, query: sql.FunnelQuery, conflict: list[int] | None = None) -> dict[str, Any]:
        return {
            "runs": list(query.runs),
            "keys": list(query.question_keys),
            "conflict": conflict or [],
        }

    def batches(self, query: sql.FunnelQuery) -> list[sql.FunnelQuery]:
        """The query split into batches of buckets.

        Each batch holds about ``BATCH_INSTANCES`` questions, so ClickHouse's aggregation
        state (a few kilobytes per question) and the records being built stay within a few
        hundred megabytes. One question's records (``question_keys``) are one batch.
        """
        if query.question_keys:
            return [replace(query, buckets=None)]
        found = self.store.query_arrow(sql.question_count_sql(self.question_rows))
        instances = self.instances = int(found.column("n")[0].as_py())
        size = READ_TIME_BATCH_INSTANCES if self.read_time else BATCH_INSTANCES
        count = max(1, min(BUCKETS, -(-instances // size)))
        edges = [round(i * BUCKETS / count) for i in range(count + 1)]
        return [replace(query, buckets=(lo, hi - 1)) for lo, hi in itertools.pairwise(edges)]

    def funnel(self, query: sql.FunnelQuery, conflict: list[int]) -> pl.DataFrame:
        """One batch's funnel rows, one per question instance.

        The root's trace id, question key, run and index version are joined in.
        """
        params = self._params(query, conflict)
        raw = self.store.query_df(sql.funnel_sql(query), params)
        self.store.release_memory()  # the aggregation's memory, before polars needs its own
        if query.with_scores:
            names = sql.score_columns(query.items)
            with self._lock:
                # The worker is one batch ahead at most: only the batch before may still need
                # its scores; older ones are built (or cited none).
                for built in list(self._scores)[:-1]:
                    del self._scores[built]
                self._scores[query.buckets] = raw.select("inst_key", *names)
            raw = raw.drop(names)
        roots_query = replace(query, stage_table=self.question_rows)
        roots = self.store.query_df(sql.roots_sql(roots_query), params).unique("inst_key")
        raw = raw.join(roots, on="inst_key", how="left")
        rootless = raw.filter(pl.col("trace_id").is_null()).get_column("inst_key").to_list()
        if rootless:
            found = self.store.query_df(
                sql.instance_ids_sql(query), {**params, "instances": rootless}
            )
            raw = (
                raw.join(found, on="inst_key", how="left", suffix="_found")
                .with_columns(
                    trace_id=pl.coalesce("trace_id", "trace_id_found"),
                    question_key=pl.coalesce("question_key", "question_key_found"),
                    run_id=pl.col("run_id").fill_null(""),
                    index_version=pl.col("index_version").fill_null(""),
                )
                .drop("trace_id_found", "question_key_found")
            )
        return raw

    def item_scores(self, query: sql.FunnelQuery, needed: pl.DataFrame) -> pl.DataFrame:
        """Item scores at the last rerank span of ranked instances, else at the candidates.

        ``needed`` has ``inst_key`` and ``has_rr`` (a reranker ranked it last). With
        ``query.with_scores`` the scores come from the :meth:`funnel` pass of the same batch,
        not from another query (and are let go: a batch's records are built once).
        """
        names = sql.score_columns(query.items)
        if query.with_scores:
            with self._lock:
                scores = self._scores.pop(query.buckets)
            # As scores_sql reads them: a ranked instance's rerank span, another's candidates.
            found = scores.join(needed, on="inst_key", how="inner")
            return found.select(
                "inst_key",
                *(
                    pl.when(pl.col("has_rr") == name.startswith("rr"))
                    .then(pl.col(name))
                    .alias(name)
                    for name in names
                ),
            )
        ranked = needed.filter(pl.col("has_rr")).get_column("inst_key").to_list()
        candidates = needed.filter(~pl.col("has_rr")).get_column("inst_key").to_list()
        params = {**self._params(query), "ranked": ranked, "candidates": candidates}
        return self.store.query_df(sql.scores_sql(query), params)

    def side_data(self, query: sql.FunnelQuery, raws: list[pl.DataFrame]) -> SideData:
        """The rare details the funnel query leaves out, fetched only when some row has them."""

        def fetch(needed: pl.Expr, build: str) -> pl.DataFrame | None:
            if not any(raw.height and raw.select(needed.sum()).item() for raw in raws):
                return None
            return self.store.query_df(build, self._params(query))

        low_confidence = meta_field("gen", "n_low_confidence")

        return SideData(
            errors=fetch(pl.col("n_errors"), sql.errors_sql(query)),
            samples=fetch(pl.col("samples_n_spans"), sql.samples_sql(query)),
            oracle=fetch(pl.col("oracle_n_spans"), sql.oracle_sql(query)),
            low_confidence=fetch(low_confidence, sql.low_confidence_sql(query)),
            retrievers=(
                fetch(pl.col("fusion_n_spans"), sql.retrievers_sql(query)) if query.items else None
            ),
        )
