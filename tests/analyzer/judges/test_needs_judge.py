"""Blame only when sure: claims a judge cannot decide send the question to a stronger judge.

A real, small judge stands in for the offline judge (``screen=``): it rates a claim
``uncertain`` when it mentions the taxi, ``unsupported`` when it says "jederzeit", and
``supported`` otherwise. The funnel must not blame generation for the uncertain claim.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges import AnswerVerdict, Chunk, ClaimVerdict, split_claims
from ragfunnel.analyzer.judges.llm.endpoint import Endpoint
from ragfunnel.analyzer.judges.protocol import Judge
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.judges.verdict_types import SUPPORTED, UNCERTAIN, UNSUPPORTED, as_chunks
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.fake_openai import FakeOpenAI
from tests.support.judge_pipeline import ANY_TIME, BOTH, CASES, WORKED_RANKING, ask
from tests.support.responders import responder


class TaxiDoubter:
    """Unsure about the taxi, sure about "jederzeit", happy with the rest."""

    name = "offline"

    def judge(self, answer: str, context: Iterable[Chunk | tuple[str, str] | str]) -> AnswerVerdict:
        chunks = as_chunks(context)
        claims = []
        for text in split_claims(answer).claims:
            if "jederzeit" in text:
                label, missing = UNSUPPORTED, "jederzeit"
            elif "Taxi" in text:
                label, missing = UNCERTAIN, ""
            else:
                label, missing = SUPPORTED, ""
            ids = (chunks[0].id,) if label == SUPPORTED else ()
            claims.append(ClaimVerdict(text, label, ids, missing, self.name, 0.5))
        return AnswerVerdict(tuple(claims), (), self.name)


def _record(store: Store) -> None:
    for run, reply in (("unsure", BOTH), ("wrong", ANY_TIME)):
        with capture_spans(capture_content=True, run_id=run) as spans:
            ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, reply)
        ingest_spans(store, spans.spans)


def test_uncertain_claims_need_a_judge_not_a_new_prompt(store: Store) -> None:
    assert isinstance(TaxiDoubter(), Judge)
    _record(store)
    judge_store(store, cases=CASES, screen=TaxiDoubter())
    result = analyze(store, CASES)
    records = {r["run_id"]: r for r in result.records.iter_rows(named=True)}

    unsure = records["unsure"]
    assert unsure["claims"][1]["label"] == "uncertain"
    assert unsure["faithfulness"] == 0.75
    assert unsure["first_failure"] == "needs_judge"
    assert unsure["failure_reason"].startswith("needs a judge: faithfulness 0.75 below 0.85")
    assert "'Ein Taxi ist ab 22 Uhr erlaubt'" in unsure["failure_reason"]
    # A claim the judge is sure of is still blamed on generation, quoted.
    wrong = records["wrong"]
    assert wrong["first_failure"] == "generation"
    assert wrong["failure_reason"].startswith("unsupported claim: 'Ein Taxi ist jederzeit")
    # Counted in the summary as its own outcome, never as a failed stage.
    shares = {
        (r["run_id"], r["first_failure"]): r["count"] for r in result.failures.iter_rows(named=True)
    }
    assert shares[("unsure", "needs_judge")] == 1
    assert ("unsure", "generation") not in shares


def test_tiered_sends_the_uncertain_answer_to_the_llm_which_then_decides(store: Store) -> None:
    _record(store)
    with FakeOpenAI(responder) as server:
        endpoint = Endpoint(model="judge-model", base_url=server.base_url, api_key="k")
        run = judge_store(
            store, policy="tiered", cases=CASES, endpoint=endpoint, sample_rate=0.0,
            screen=TaxiDoubter(),
        )  # fmt: skip
    assert run.sent_to_llm == {"offline: a claim not supported": 2}
    records = {r["run_id"]: r for r in analyze(store, CASES).records.iter_rows(named=True)}
    assert records["unsure"]["first_failure"] == "ok"
    assert {c["judge"] for c in records["unsure"]["claims"]} == {"llm:judge-model"}
    assert records["wrong"]["first_failure"] == "generation"
