"""Policies are objects: a name picks one, an object can be passed, each says what it sends on."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges import (
    POLICIES,
    AnswerVerdict,
    ClaimVerdict,
    JudgeError,
    OfflinePolicy,
    TieredPolicy,
    judge_store,
    policy_named,
)
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.judge_pipeline import ANY_TIME, BOTH, CASES, WORKED_RANKING, ask


def test_names_pick_policies() -> None:
    assert [policy_named(name).name for name in POLICIES] == list(POLICIES)
    assert [policy_named(name).needs_endpoint for name in POLICIES] == [False, True, True, True]
    with pytest.raises(JudgeError, match="unknown policy 'fast'"):
        policy_named("fast")
    with pytest.raises(JudgeError, match="sample_rate must be between 0 and 1"):
        TieredPolicy(sample_rate=1.5)


def test_tiered_sends_flagged_and_sampled_answers() -> None:
    supported = AnswerVerdict((ClaimVerdict("a", "supported"),), (), "offline")
    uncertain = AnswerVerdict((ClaimVerdict("a", "uncertain"),), (), "offline")
    never = TieredPolicy(sample_rate=0.0)
    assert not never.escalation("k", supported, []).send
    flagged = never.escalation("k", uncertain, [])
    assert flagged.send and flagged.reasons == ("offline: a claim not supported",)
    assert never.escalation("k", supported, ["low_confidence: x"]).reasons == ("low_confidence",)
    always = TieredPolicy(sample_rate=1.0).escalation("k", supported, [])
    assert always.send and always.sampled and not always.reasons
    assert not OfflinePolicy().escalation("k", uncertain, []).send


def test_a_policy_object_runs_as_its_name_does(store: Store) -> None:
    with capture_spans(capture_content=True, run_id="r") as spans:
        ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, ANY_TIME)
        ask("hotel-taxi-facts", "Hotel und Taxi, kurz?", WORKED_RANKING, BOTH)
    ingest_spans(store, spans.spans)
    by_name = judge_store(store, cases=CASES, write=False)
    by_object = judge_store(store, policy=OfflinePolicy(), cases=CASES, write=False)
    assert by_object.policy == "offline"
    assert by_object.rows == by_name.rows
    with pytest.raises(JudgeError, match="the tiered policy needs a judge endpoint"):
        judge_store(store, policy=TieredPolicy(), write=False)


def test_the_claim_columns_are_defined_once() -> None:
    from ragfunnel.analyzer.funnel.read.verdicts import CLAIM
    from ragfunnel.analyzer.store.tables.verdicts import CLAIM_COLUMNS, VERDICT_COLUMNS

    assert [name for _, name in CLAIM_COLUMNS] == [n for n in CLAIM.to_schema() if n != "judge"]
    assert {column for column, _ in CLAIM_COLUMNS} <= {column for column, _ in VERDICT_COLUMNS}
