"""The answer's verdicts (``records/answers.py``): the facts check of pipeline and oracle answers,
the judges' deciding verdict joined and correctness settled, the mode, and oracle runs."""

from __future__ import annotations

from typing import Any

import polars as pl

from ragfunnel.analyzer.funnel.read.verdicts import no_verdicts
from ragfunnel.analyzer.funnel.records.answer_checks import prepare_cases
from ragfunnel.analyzer.funnel.records.answers import (
    answer_verdicts,
    instance_mode,
    oracle_run_verdicts,
    with_verdicts,
)

CASES = prepare_cases(
    pl.DataFrame(
        {"case_idx": [0], "facts": [["4.2.0", "4.2.1"]], "reference": [None]},
        schema={"case_idx": pl.UInt32, "facts": pl.List(pl.String), "reference": pl.String},
    )
)
RIGHT = "Firmware 4.2.0 and 4.2.1 need a reset."
WRONG = "Only 4.2.0."
INSTANCE: dict[str, Any] = {
    "inst": 0, "case_idx": 0, "trace_id": "t", "question_key": "q-017", "answerable": True,
    "has_gen": True, "has_cand": True, "abstained": False, "gen_has_answer": 1,
    "gen_answer": RIGHT, "gen_error": 0, "gen_error_msg": None, "oracle_n_spans": 0,
    "oracle_has_answer": 0, "oracle_answer": None, "oracle_error": 0,
}  # fmt: skip
SCHEMA = {
    "inst": pl.UInt32, "case_idx": pl.UInt32, "trace_id": pl.String, "question_key": pl.String,
    "answerable": pl.Boolean, "has_gen": pl.Boolean, "has_cand": pl.Boolean,
    "abstained": pl.Boolean, "gen_has_answer": pl.Int64, "gen_answer": pl.String,
    "gen_error": pl.Int64, "gen_error_msg": pl.String, "oracle_n_spans": pl.Int64,
    "oracle_has_answer": pl.Int64, "oracle_answer": pl.String, "oracle_error": pl.Int64,
}  # fmt: skip


def instances(*changes: dict[str, Any]) -> pl.DataFrame:
    rows = [{**INSTANCE, "inst": i, "trace_id": f"t{i}", **c} for i, c in enumerate(changes)]
    return pl.DataFrame(rows, schema=SCHEMA)


def test_the_facts_check_gives_the_answer_and_the_oracle_verdicts() -> None:
    out = answer_verdicts(
        instances(
            {},
            {"gen_answer": WRONG},
            {"abstained": True},
            {"has_gen": False, "gen_has_answer": 0, "gen_answer": None},
            {"gen_error": 1, "gen_error_msg": "RateLimitError"},
            {"gen_error": 1},
            {"oracle_n_spans": 1, "oracle_has_answer": 1, "oracle_answer": RIGHT},
            {"oracle_n_spans": 1, "oracle_error": 1},
        ),
        CASES,
    ).sort("inst")
    assert out.select("answer_verdict", "answer_reason").rows() == [
        ("correct", "answer states every fact"),
        ("incorrect", "answer misses fact(s): 4.2.1"),
        ("abstained", "the system abstained"),
        ("missing", "no pipeline generate span"),
        ("failed", "generate failed: RateLimitError"),
        ("failed", "generate failed: (no message)"),
        ("correct", "answer states every fact"),
        ("correct", "answer states every fact"),
    ]
    oracle = out.select("oracle_verdict").to_series().to_list()
    assert oracle == [None] * 6 + ["correct", "failed"]
    # The facts check's own columns stay for with_verdicts to settle.
    assert out.get_column("facts_correctness").to_list()[:2] == ["correct", "incomplete"]


def checked(*changes: dict[str, Any]) -> pl.DataFrame:
    return answer_verdicts(instances(*changes), CASES)


def verdicts(**by_trace: dict[str, Any]) -> pl.DataFrame:
    """Deciding verdicts for the given traces, the other columns null."""
    rows = [{"trace_id": trace, "question_key": "q-017", **values}
            for trace, values in by_trace.items()]  # fmt: skip
    return pl.concat([no_verdicts(), pl.DataFrame(rows)], how="diagonal_relaxed")


def test_a_judges_correctness_wins_over_the_facts_check() -> None:
    out = with_verdicts(
        checked({}, {"gen_answer": WRONG}, {}),
        verdicts(t0={"judged_correctness": "wrong", "judged_correctness_reason": "the 4.2.1 "
                     "it names is a typo", "faithfulness": 0.5}),
    ).sort("inst")  # fmt: skip
    assert out.select(
        "answer_correctness", "correctness_reason", "correctness_by_judge"
    ).rows() == [
        ("wrong", "the 4.2.1 it names is a typo", True),
        ("incomplete", "answer misses fact(s): 4.2.1", False),
        ("correct", "answer states every fact", False),
    ]
    assert out.get_column("faithfulness").to_list() == [0.5, None, None]
    assert out.get_column("claims").to_list() == [[], [], []]  # never null
    for gone in ("verdict_reason", "facts_correctness", "judged_correctness", "refused"):
        assert gone not in out.columns


def test_a_refusal_the_judge_read_is_an_abstention_on_an_answerable_case_only() -> None:
    out = with_verdicts(
        checked({}, {"answerable": False}, {"gen_error": 1}),
        verdicts(t0={"refused": True}, t1={"refused": True}, t2={"refused": True}),
    ).sort("inst")
    assert out.select("abstained", "answer_verdict", "answer_reason").rows() == [
        (True, "abstained", "the answer declines to answer"),
        (False, "correct", "answer states every fact"),  # unanswerable: the gate rule decides
        (False, "failed", "generate failed: (no message)"),  # a failed step declined nothing
    ]
    assert out.get_column("answer_correctness").to_list() == [None, "correct", None]


def test_an_instance_with_only_oracle_spans_is_an_oracle_run() -> None:
    out = instance_mode(
        instances(
            {},
            {"oracle_n_spans": 1},
            {"oracle_n_spans": 1, "has_gen": False, "has_cand": False},
            {"has_gen": False, "has_cand": False},
        )
    )
    assert out.get_column("mode").to_list() == ["pipeline", "pipeline", "oracle", "pipeline"]


def test_an_oracle_run_is_judged_by_its_oracle_answer_alone() -> None:
    frame = pl.DataFrame(
        {
            "mode": ["oracle", "oracle", "oracle", "oracle", "pipeline"],
            "oracle_verdict": ["correct", "incorrect", "failed", "unknown", "incorrect"],
            "oracle_reason": ["answer states every fact", "misses 4.2.1", None, "no facts", "x"],
            "first_failure": ["incomplete_trace"] * 4 + ["search"],
            "failure_reason": ["missing: retrieve span"] * 4 + ["rank 41 > prompt cut at 10"],
            "missing": [["retrieve span"]] * 4 + [[]],
        }
    )
    out = oracle_run_verdicts(frame)
    assert out.select("first_failure", "failure_reason").rows() == [
        ("ok", "oracle run (gold evidence in the prompt): answer states every fact"),
        ("generation", "oracle run (gold evidence in the prompt): misses 4.2.1"),
        ("generation", "oracle run (gold evidence in the prompt): the oracle generate failed"),
        ("unjudged", "oracle run (gold evidence in the prompt): no facts"),
        ("search", "rank 41 > prompt cut at 10"),
    ]
    assert out.get_column("missing").to_list() == [[], [], [], [], []]
