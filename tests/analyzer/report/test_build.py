"""The report model and terminal diagnosis on planned runs whose faults are known."""

from __future__ import annotations

from ragfunnel.analyzer.report import build_report, report_text
from tests.support.report_fixtures import Fixture, report_of, with_verdicts


def test_diagnosis_reads_like_an_engineer_wrote_it(runs: Fixture) -> None:
    a = report_of(runs).run("A")
    assert (a.questions, a.failed, a.unjudged, a.incomplete) == (12, 7, 0, 0)
    assert a.diagnosis == (
        "Of 12 questions, 7 were answered wrongly or incompletely. 6 of the 7 failures arise "
        "before generation — 1 at ingestion (chunks never indexed: a parser, connector or scope "
        "gap; 1 of them from documents ingested with pages without text, such as scans without "
        "a text layer), 2 at "
        "search (found at rank 25, beyond the 20 candidates the reranker is given), 1 at rerank "
        "(moved by the reranker from rank 4 to 7, below the cut at 3), 2 at cut (1 scored 0.100, "
        "below the gate's threshold 0.300; 1 unanswerable, let through by the confidence gate, "
        "top score 0.900 against threshold 0.300) — and 1 at generation (answer misses facts the "
        "case lists). Changing the answer prompt can fix at most 1: work upstream first. Order "
        "of work: search (2) → ingestion (1) → rerank (1) → dropped by the cut (1) → let through by "
        "the gate (1) → generation (1)."
    )
    # No parenthesis inside another: every clause's details are free of them.
    depth = 0
    for ch in a.diagnosis:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        assert depth <= 1, a.diagnosis
    assert {f.stage: f.count for f in a.findings} == {
        "ingestion": 1, "search": 2, "rerank": 1, "cut": 2, "generation": 1,
    }  # fmt: skip


def test_textless_documents_come_from_the_ingest_spans(runs: Fixture) -> None:
    assert runs.textless == {"v1": ("scan-2019",)}
    plain = build_report(runs.result).run("A")
    ingestion = next(f for f in plain.findings if f.stage == "ingestion")
    assert ingestion.details == ("chunks never indexed: a parser, connector or scope gap",)


def test_shares_metrics_and_losses(runs: Fixture) -> None:
    a = report_of(runs).run("A")
    shares = {s.stage: (s.count, s.total) for s in a.shares}
    assert shares["search"] == (2, 12) and shares["ok"] == (5, 12)
    search = next(s for s in a.shares if s.stage == "search")
    assert 0 < search.ci_low < 2 / 12 < search.ci_high < 1
    recall = next(m for m in a.metrics if (m.metric, m.at) == ("recall", "cut"))
    assert recall.mean == 0.5 and recall.n == 10 and recall.ci_low < 0.5 < recall.ci_high
    assert "faithfulness" not in {m.metric for m in a.metrics}
    assert {(e.id, e.lost_at, e.questions) for e in a.lost_evidence} == {
        ("gold-4#c1", "search", 1), ("gold-5#c1", "search", 1),
        ("scan-2019#p1", "ingestion", 1),
    }  # fmt: skip
    assert a.cut_k == 3
    assert dict(a.funnel) == {
        "asked": 10, "indexed": 9, "retrieved": 7, "kept by the reranker": 6,
        "in the prompt": 5, "answered correctly": 4,
    }  # fmt: skip
    ranks = dict(a.ranks)
    # Five in the prompt at rank 1, the cut one at 2, the reranked one at 7, two at 25.
    assert (ranks["1"], ranks["2"], ranks["7"], ranks["21–30"], ranks["not found"]) == (
        5, 1, 1, 2, 1,
    )  # fmt: skip
    assert a.abstention.confusion == {
        "answerable_answered": 10, "answerable_abstained": 0,
        "unanswerable_answered": 1, "unanswerable_abstained": 1,
    }  # fmt: skip
    assert a.config == {"index_version": "v1", "prompt_version": "p1", "retriever.top_k": "30"}


def test_worst_questions_carry_their_drilldown(runs: Fixture) -> None:
    report = report_of(runs, jaeger_url="http://127.0.0.1:16686/", top=20)
    a = report.run("A")
    failed = {"q-04", "q-05", "q-06", "q-07", "q-08", "q-09", "q-12"}
    assert {w["question_id"] for w in a.worst} == failed
    assert a.worst[0]["first_failure"] == "ingestion"  # upstream first among recall 0
    search = next(w for w in a.worst if w["question_id"] == "q-05")
    assert search["question"].startswith("Is <img src=x")  # raw here; HTML escapes it
    assert "See <a href" in search["answer"]
    (item,) = search["evidence"]
    assert item["path"] == (
        "indexed → candidate #25 → lost at search: rank 25 beyond rerank depth 20"
    )
    ingestion = next(w for w in a.worst if w["question_id"] == "q-08")
    assert ingestion["evidence"][0]["path"] == (
        "lost at ingestion: never indexed (parser, connector, scope)"
    )
    assert len(search["prompt"]) == 3 and search["prompt"][0]["text"].startswith("Filler")
    assert search["trace_url"] == f"http://127.0.0.1:16686/trace/{search['trace_id']}"
    assert search["metrics"]["recall_at_cut"] == 0.0
    ok = next(w for w in report_of(runs, top=1).run("B").worst)
    assert ok["question_id"] == "q-08"  # top=1: just the worst
    shown = sum(len(run.worst) for run in report.runs)
    assert len(report.sample) == 36 - shown  # fewer records left than the 50 asked for


def test_sample_is_seeded_and_excludes_the_worst(runs: Fixture) -> None:
    one = report_of(runs, top=2, sample=5, seed=3)
    two = report_of(runs, top=2, sample=5, seed=3)
    keys = [(s["trace_id"], s["question_id"]) for s in one.sample]
    assert keys == [(s["trace_id"], s["question_id"]) for s in two.sample] and len(keys) == 5
    worst = {w["trace_id"] for run in one.runs for w in run.worst}
    assert not worst & {trace for trace, _ in keys}


def test_verdicts_appear_when_present_never_mixed_with_retrieval(runs: Fixture) -> None:
    report = report_of(runs, with_verdicts(runs.result))
    a = report.run("A")
    gen = a.generation
    assert gen is not None and gen.faithfulness is not None
    assert gen.judged == 6 and gen.faithfulness.mean == (5 * 1.0 + 0.5) / 6
    assert gen.correctness == {"correct": 5, "wrong": 1} and gen.unsupported_claims == 1
    # 1.0 has its own bin (the last): the "0.9" bin no longer hides the fully supported answers.
    assert len(gen.faithfulness_bins) == 11
    assert gen.faithfulness_bins[5] == 1 and gen.faithfulness_bins[9] == 0
    assert gen.faithfulness_bins[10] == 5
    assert (
        "1 with unsupported claims"
        in next(f for f in a.findings if f.stage == "generation").details
    )
    wrong = next(w for w in a.worst if w["question_id"] == "q-04")
    assert wrong["unsupported_claims"] == [
        {"text": "It says <script>window.__pwned = 4</script> too.", "label": "unsupported",
         "missing": "no chunk says so"}
    ]  # fmt: skip
    text = report_text(report)
    assert "generation (judged answers, never averaged with retrieval)" in text
    # Unjudged, the funnel's own check of the facts still gives answer correctness.
    plain = report_of(runs).run("A").generation
    assert plain is not None and plain.faithfulness is None and plain.judged == 0
    assert plain.correctness == {"correct": 4, "wrong": 6}


def test_terminal_text(runs: Fixture) -> None:
    text = report_text(report_of(runs))
    assert "runs A, B, C · 36 question records · index truth: ingest spans" in text
    assert "run A · 12 questions" in text and "Of 12 questions, 7 were answered" in text
    assert "retrieval at the real cut (k = 3)" in text
    assert "gold-4#c1" in text and "q-08" in text
    assert "configuration: index_version = v1; prompt_version = p1" in text
    assert "unanswerable — answered 1, abstained 1" in text


def test_empty_result_reports_no_runs(runs: Fixture) -> None:
    empty = runs.result.records.clear()
    import dataclasses

    result = dataclasses.replace(
        runs.result, records=empty, failures=runs.result.failures.clear(),
        metrics=runs.result.metrics.clear(),
    )  # fmt: skip
    report = build_report(result)
    assert report.runs == () and report.sample == ()
    assert "0 question records" in report_text(report)


def test_questions_without_a_run_report_as_one_unnamed_run(runs: Fixture) -> None:
    import dataclasses

    import polars as pl

    from ragfunnel.analyzer.funnel.run_summaries import failure_table, metric_table

    a = runs.result.records.filter(pl.col("run_id") == "A")
    records = a.with_columns(run_id=pl.lit(None, pl.Categorical))
    result = dataclasses.replace(
        runs.result, records=records, failures=failure_table(records),
        metrics=metric_table(records, runs.result.k),
    )  # fmt: skip
    (run,) = build_report(result).runs
    assert run.run_id == "" and run.questions == 12 and run.failed == 7
    assert {s.stage: s.count for s in run.shares}["search"] == 2
    assert next(m for m in run.metrics if (m.metric, m.at) == ("recall", "cut")).mean == 0.5
    assert "run (none) · 12 questions" in report_text(build_report(result))


def test_verdict_columns_with_nothing_judged_show_no_generation_section(runs: Fixture) -> None:
    import dataclasses

    import polars as pl

    unjudged = runs.result.records.with_columns(
        faithfulness=pl.lit(None, pl.Float64), answer_correctness=pl.lit(None, pl.String)
    )
    report = report_of(runs, dataclasses.replace(runs.result, records=unjudged))
    assert report.run("A").generation is None


def test_flags_add_clauses_to_their_stage(runs: Fixture) -> None:
    import dataclasses

    import polars as pl

    failure = pl.col("first_failure").cast(pl.String)
    flagged = runs.result.records.with_columns(
        flags=pl.when(failure == "generation")
        .then(pl.lit(["conflicting_sources", "low_confidence"], dtype=pl.List(pl.String)))
        .otherwise(pl.col("flags"))
    )
    report = report_of(runs, dataclasses.replace(runs.result, records=flagged))
    generation = next(f for f in report.run("B").findings if f.stage == "generation")
    assert generation.details == (
        "answers miss facts the case lists",
        "2 of them with two versions of one document in the prompt",
        "2 with low-confidence tokens in the answer",
    )
    assert "and 2 at generation (answers miss facts the case lists; 2 of them with two " in (
        report.run("B").diagnosis
    )
