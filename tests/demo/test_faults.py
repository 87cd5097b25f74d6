"""The demo's analysis names the stage of every injected fault (checked against the injection log).

This replaces the HotpotQA attribution test: it runs on the corpus the package ships, so a fresh
clone needs nothing beside it. The HotpotQA version stays a benchmark (bench/faults.py).
"""

from __future__ import annotations

import socket
from pathlib import Path

import polars as pl
import pytest

from ragfunnel.analyzer.cases import AllOf, AnyOf, Quote, load_cases
from ragfunnel.demo.console import closing_text
from ragfunnel.demo.faults import FAULTS, LLM_UNPLANNED, QUALIFIERS, DemoError, FaultError
from ragfunnel.demo.pipeline import LLM
from ragfunnel.demo.plan import read_log
from ragfunnel.demo.rechunk import RECHUNKED_RUN
from ragfunnel.demo.runner import CLEAN_RUN, FAULTY_RUN, DemoResult, run_demo
from tests.support.chat_server import ChatServer


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoResult:
    return run_demo(tmp_path_factory.mktemp("demo"))


def test_every_injected_fault_is_attributed_to_its_stage(demo: DemoResult) -> None:
    logged = read_log(demo.injection_log)
    assert logged == demo.truths
    assert {t.fault for t in logged} == set(FAULTS)  # every fault took part
    records = demo.records.filter(pl.col("run_id") == FAULTY_RUN)
    verdicts = dict(zip(records["question_id"], records["first_failure"], strict=True))
    mismatches = [(t.case_id, t.fault, t.stage, verdicts.get(t.case_id)) for t in logged]
    assert [m for m in mismatches if m[2] != m[3]] == []
    assert demo.disagreements == []
    for name, fault in FAULTS.items():  # each fault hit its own stage at least once
        assert fault.stage in {t.stage for t in logged if t.fault == name}, name


def test_the_report_and_the_diff_cover_both_runs(demo: DemoResult) -> None:
    assert [r.run_id for r in demo.report.runs] == [CLEAN_RUN, FAULTY_RUN]
    page = demo.html.read_text(encoding="utf-8")
    assert CLEAN_RUN in page and FAULTY_RUN in page and "de-hotel-taxi" in page
    # Every case the faults broke moved from ok in the diff, and nothing was fixed.
    broken = {t.case_id for t in demo.truths if t.stage not in ("ok", "ok_without_evidence")}
    moved = demo.records.filter(pl.col("run_id") == FAULTY_RUN, pl.col("first_failure") != "ok")
    assert broken <= set(moved["question_id"])
    assert demo.diff.paired == len(demo.clean)
    assert demo.diff.mcnemar.fixed == 0 and demo.diff.regressions()


def test_the_demo_judges_every_answer_offline(demo: DemoResult) -> None:
    assert demo.rechunk is not None  # the re-chunked run's answers are judged too
    rechunked = demo.rechunk.rebased.records.filter(pl.col("run_id") == RECHUNKED_RUN)
    records = pl.concat([demo.records, rechunked], how="diagonal_relaxed")
    answered = records.filter(pl.col("faithfulness").is_not_null())
    assert demo.judged.policy == "offline" and demo.judged.judged > 0
    # Out of the box: every answer has its text and its chunks' texts, so every one is judged.
    assert demo.judged.judged == demo.judged.answers and demo.judged.without_content == 0
    # Abstentions (the extractive generator found nothing to quote) are judged but not scored.
    assert demo.judged.judged - demo.judged.abstained == answered.height
    # The clean run's answers are cited verbatim quotes: every claim is supported, so its
    # markers and source lists were not taken for claims.
    clean = answered.filter(pl.col("run_id") == CLEAN_RUN)
    assert clean["faithfulness"].min() == 1.0
    claims = [c["text"] for row in clean["claims"].to_list() for c in row]
    assert claims and not [c for c in claims if "[" in c or c.startswith("Sources")]
    for run in demo.report.runs:
        assert run.generation is not None and run.generation.faithfulness is not None
    assert "Faithfulness of judged answers" in demo.html.read_text(encoding="utf-8")


def test_an_added_qualifier_fails_at_generation_quoting_the_claim(demo: DemoResult) -> None:
    records = demo.records.filter(pl.col("run_id") == FAULTY_RUN)
    added = [t for t in demo.truths if t.fault == "added_qualifier"]
    assert added and {t.stage for t in added} == {"generation"}
    for truth in added:
        (row,) = records.filter(pl.col("question_id") == truth.case_id).to_dicts()
        qualifier = next(q for q in QUALIFIERS.values() if q in demo.faulty[truth.case_id].answer)
        # Every fact is still stated, so only the judge's verdict names the failure.
        assert row["answer_correctness"] == "correct"
        assert row["first_failure"] == "generation"
        assert row["failure_reason"].startswith("unsupported claim: '")
        assert row["failure_reason"].endswith(f"{qualifier}' ({qualifier})")
        assert row["faithfulness"] < 1.0


def test_index_faults_are_blamed_on_ingestion_with_the_reason(demo: DemoResult) -> None:
    records = demo.records.filter(pl.col("run_id") == FAULTY_RUN)
    for truth in demo.truths:
        if truth.fault in ("dropped_document", "empty_ocr"):
            (row,) = records.filter(pl.col("question_id") == truth.case_id).to_dicts()
            assert row["failure_reason"].startswith("never indexed"), row


def test_the_clean_run_has_only_the_gate_failure_nobody_injected(demo: DemoResult) -> None:
    clean = demo.records.filter(pl.col("run_id") == CLEAN_RUN, pl.col("first_failure") != "ok")
    # The train-ticket question overlaps the flight-refund policy: a real confidence-gate miss.
    assert clean.select("question_id", "first_failure").rows() == [("none-train-refund", "cut")]
    assert all(t.case_id != "none-train-refund" for t in demo.truths)


def test_faults_and_case_count_can_be_chosen(tmp_path: Path) -> None:
    result = run_demo(tmp_path, faults=["threshold_high", "threshold_low"], cases=20)
    assert result.records.filter(pl.col("run_id") == FAULTY_RUN).height == 20
    assert {t.fault for t in result.truths} == {"threshold_high", "threshold_low"}
    # The 20 are spread over the set: the unanswerable cases at its end take part too.
    assert any(t.case_id.startswith("none-") for t in result.truths)
    assert result.disagreements == []
    with pytest.raises(FaultError, match="unknown fault"):
        run_demo(tmp_path, faults=["no_such_fault"])


def test_a_work_directory_the_demo_did_not_write_is_refused(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "precious").write_text("keep me")
    with pytest.raises(DemoError, match="did not write"):
        run_demo(tmp_path, cases=5)
    assert (tmp_path / "store" / "precious").read_text() == "keep me"


def _first_sentence_of_source_one(body: dict[str, object]) -> str:
    # A tiny "model": quote the first sentence of the first source, cited.
    prompt = str(body["messages"][1]["content"])  # type: ignore[index]
    first = prompt.split("\n", 2)[1]
    return first.split(". ")[0].rstrip(".") + ". [1]"


def test_with_an_llm_generator_the_planned_faults_still_land(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    chat_server.reply = _first_sentence_of_source_one
    result = run_demo(tmp_path, llm=LLM(base_url=chat_server.url, model="tiny"), cases=30)
    assert len(chat_server.requests) > 30  # both runs asked the model
    faults = {t.fault for t in result.truths}
    assert faults and not faults & LLM_UNPLANNED
    assert result.disagreements == []


def test_an_unreachable_llm_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = LLM(base_url=f"http://127.0.0.1:{port}/v1", model="none")
    with pytest.raises(DemoError, match=f"the LLM at http://127.0.0.1:{port}/v1 failed") as info:
        run_demo(tmp_path, llm=llm, cases=2)
    assert info.value.argument == "llm"


def test_next_steps_name_only_commands_that_exist(demo: DemoResult) -> None:
    assert "ragfunnel threshold" not in closing_text(demo)
    assert "ragfunnel threshold --store" in closing_text(demo, {"threshold"})
    text = closing_text(demo)
    assert "names the injected stage for" in text and str(demo.html) in text


def test_the_demos_report_is_what_ragfunnel_report_builds_from_its_store(demo: DemoResult) -> None:
    """One workflow (``analyzer.workflows``) behind both: the demo's page cannot drift."""
    import json

    from typer.testing import CliRunner

    from ragfunnel.analyzer.cli import app
    from ragfunnel.analyzer.report.exports import summary

    out = demo.workdir / "cli-summary.json"
    result = CliRunner().invoke(
        app,
        ["report", "--store", demo.store, "--cases", str(demo.cases_path), "--json", str(out),
         "--run", CLEAN_RUN, "--run", FAULTY_RUN, "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    from_cli = json.loads(out.read_text(encoding="utf-8"))
    from_demo = json.loads(json.dumps(summary(demo.report), ensure_ascii=False))
    for document in (from_cli, from_demo):
        document.pop("generated_at", None)
    assert _rounded(from_cli) == _rounded(from_demo)


def _rounded(value: object) -> object:
    """Floats to 12 significant digits: two analyses may add the same numbers in another order."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def test_the_rechunked_run_is_right_with_the_rebased_cases(demo: DemoResult) -> None:
    rechunk = demo.rechunk
    assert rechunk is not None
    assert rechunk.disagreements == [] and rechunk.not_rewritten == ()
    answerable = [c for c in load_cases(demo.cases_path) if c.answerable]
    assert rechunk.rewritten == sum(len(c.evidence_ids) for c in answerable)
    rebased = {c.id: c for c in load_cases(rechunk.rebased_path)}
    assert {type(rebased[c.id].evidence) for c in answerable} <= {Quote, AllOf, AnyOf}
    assert all(
        "@" not in leaf for c in answerable for leaf in rebased[c.id].evidence_ids
    )  # no chunk id is left: every leaf is a document + quote
    # The rebase changes nothing on the index it was written against.
    assert rechunk.verdicts(rechunk.rebased, CLEAN_RUN) == rechunk.verdicts(
        demo.analysis, CLEAN_RUN
    )
    new = rechunk.verdicts(rechunk.rebased, RECHUNKED_RUN)
    assert not {"stale_case", "ingestion"} & set(new.values())
    assert list(new.values()).count("ok") >= len(answerable) - 10
    # The old chunk ids on the new chunking: stale labels, every one, never ingestion.
    old = rechunk.verdicts(rechunk.old_ids, RECHUNKED_RUN)
    assert {old[c.id] for c in answerable} == {"stale_case"}
    row = rechunk.old_ids.record("travel-hotel").row(0, named=True)
    assert row["failure_reason"] == (
        "chunk id(s) travel-policy@2024-07#hotel-allowance of document travel-policy not in "
        "index policies-demo-rechunked (stale labels: `ragfunnel cases rebase` rewrites them "
        "as document + quote)"
    )
    text = closing_text(demo)
    assert f"chunk-id cases on {RECHUNKED_RUN}: stale_case {len(answerable)}" in text
