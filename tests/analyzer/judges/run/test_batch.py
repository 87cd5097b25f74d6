from __future__ import annotations

import itertools

import pytest

from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges import tables
from ragfunnel.analyzer.judges.llm.endpoint import Endpoint
from ragfunnel.analyzer.judges.run.batch import SameModelWarning, judge_store
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE
from ragfunnel.testing import capture_spans
from tests.support.fake_openai import FakeOpenAI
from tests.support.judge_pipeline import ANY_TIME, BOTH, CASES, REFUSAL, WORKED_RANKING, ask
from tests.support.recorder import recording
from tests.support.responders import responder


def _record(store: Store, run: str = "r1") -> None:
    with capture_spans(capture_content=True, run_id=run) as spans:
        ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, ANY_TIME)
        ask("hotel-taxi-facts", "Hotel und Taxi, kurz?", WORKED_RANKING, BOTH)
        ask("mileage", "Wie hoch ist die Kilometerpauschale?", WORKED_RANKING, REFUSAL)
    ingest_spans(store, spans.spans)


def test_offline_policy_from_stored_spans(store: Store) -> None:
    _record(store)
    run = judge_store(store, cases=CASES)
    assert (run.answers, run.judged, run.abstained, run.without_content) == (3, 3, 1, 0)
    rows = {r["QuestionKey"]: r for r in tables.read_verdicts(store).iter_rows(named=True)}
    assert rows["hotel-taxi"]["Faithfulness"] == 0.5
    assert rows["hotel-taxi"]["ClaimLabels"] == ["supported", "unsupported"]
    assert rows["hotel-taxi"]["ClaimMissing"][1] == "jederzeit"
    assert rows["hotel-taxi"]["ClaimSupportingIds"] == [["hotel-allowance"], ["taxi"]]
    assert rows["hotel-taxi"]["Correctness"] == "incomplete"
    assert "Ein Taxi ist ab 22 Uhr erlaubt" in rows["hotel-taxi"]["CorrectnessReason"]
    assert rows["hotel-taxi-facts"]["Faithfulness"] == 1.0
    assert rows["hotel-taxi-facts"]["Correctness"] == "correct"
    assert rows["mileage"]["Abstained"] == 1 and rows["mileage"]["Faithfulness"] is None
    assert rows["mileage"]["Correctness"] == ""  # unanswerable: abstaining is the outcome


def test_a_judge_run_pauses_the_merges_of_the_spans_it_reads_and_not_of_its_verdicts(
    store: Store,
) -> None:
    # An ingest leaves parts to merge; their merges in the judge's process took its peak from
    # 1.0 to 2.2 GiB after 300,000 answers (bench/RESULTS.md). The verdicts, written page by
    # page, keep merging: paused, a million answers would leave a thousand parts.
    _record(store)
    stage = quote(store.database, STAGE_TABLE)
    with recording(store) as recorder:
        judge_store(store)
    merges = [s for s in recorder.statements if "MERGES" in s]
    assert merges == [
        f"SYSTEM STOP MERGES {store.traces_table}",
        f"SYSTEM STOP MERGES {stage}",
        f"SYSTEM START MERGES {store.traces_table}",
        f"SYSTEM START MERGES {stage}",
    ]
    first, last = (recorder.statements.index(m) for m in (merges[1], merges[2]))
    during = recorder.statements[first + 1 : last]
    assert any("INSERT INTO" in s and "verdicts" in s for s in during)  # judged in between


def test_llm_policy_and_a_rerun_makes_no_calls(store: Store) -> None:
    _record(store)
    with FakeOpenAI(responder) as server:
        endpoint = Endpoint(model="judge-model", base_url=server.base_url, api_key="k")
        first = judge_store(store, policy="llm", cases=CASES, endpoint=endpoint)
        calls = len(server.requests)
        # claims + verdicts for each answer with claims, a claims call for the refusal,
        # and a correctness call for the reference case
        assert calls == 2 + 2 + 1 + 1
        again = judge_store(store, policy="llm", cases=CASES, endpoint=endpoint)
        assert len(server.requests) == calls  # a rerun: zero calls
        _record(store, run="r2")  # a second run whose answers repeat
        second_run = judge_store(store, policy="llm", runs="r2", cases=CASES, endpoint=endpoint)
        assert len(server.requests) == calls
    assert first.usage["calls"] == calls and again.usage["calls"] == 0
    assert second_run.usage["calls"] == 0 and second_run.usage["cached"] > 0
    rows = {
        r["QuestionKey"]: r for r in tables.read_verdicts(store, runs=["r1"]).iter_rows(named=True)
    }
    taxi = rows["hotel-taxi"]
    assert taxi["Judge"] == "llm:judge-model" and taxi["Faithfulness"] == 0.5
    assert taxi["ClaimTexts"][1] == "Ein Taxi ist jederzeit erlaubt"
    assert taxi["Correctness"] == "incomplete"
    assert taxi["CorrectnessReason"].startswith("misses: ein Taxi ist ab 22 Uhr erlaubt")


def test_judging_with_the_generator_model_warns(store: Store) -> None:
    _record(store)
    with FakeOpenAI(responder) as server:
        endpoint = Endpoint(model="generator-model", base_url=server.base_url, api_key="k")
        with pytest.warns(SameModelWarning, match="too kindly"):
            run = judge_store(store, policy="llm", endpoint=endpoint, write=False)
    assert run.warnings and not tables.table_exists(store, tables.VERDICTS_TABLE)


def test_tiered_policy_sends_flagged_and_sampled_answers(store: Store) -> None:
    _record(store)
    with FakeOpenAI(responder) as server:
        endpoint = Endpoint(model="judge-model", base_url=server.base_url, api_key="k")
        run = judge_store(store, policy="tiered", endpoint=endpoint, sample_rate=0.0)
        # Only the 'jederzeit' answer is flagged (an unsupported claim): two calls.
        assert len(server.requests) == 2
        everything = judge_store(
            store, policy="tiered", endpoint=endpoint, sample_rate=1.0, write=False
        )
    assert run.sent_to_llm == {"offline: a claim not supported": 1}
    judges = sorted(r["Judge"] for r in run.rows)
    assert judges == ["llm:judge-model", "offline", "offline", "offline"]
    assert everything.sent_to_llm["random sample"] == 3
    estimate = everything.estimates["faithfulness"]
    assert estimate.n == 2 and estimate.estimate == pytest.approx(0.75)
    assert everything.estimates["abstention_rate"].estimate == pytest.approx(1 / 3)
    assert everything.estimates["offline_agreement"].estimate == 1.0


def test_policy_errors(store: Store) -> None:
    from ragfunnel.analyzer.judges import JudgeError

    with pytest.raises(JudgeError, match="unknown policy"):
        judge_store(store, policy="vibes")
    with pytest.raises(JudgeError, match="needs a judge endpoint"):
        judge_store(store, policy="llm")


def test_progress_counts_the_answers_as_they_are_judged(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: `ragfunnel judge` showed a spinner; its bar must count what is done."""
    from ragfunnel.analyzer.judges.run import pages as run_module

    _record(store)
    offline: list[tuple[str, int, int]] = []
    judge_store(store, cases=CASES, write=False, progress=lambda *seen: offline.append(seen))
    assert offline[0] == ("judging offline (offline)", 0, 3)
    assert offline[-1] == ("judging offline (offline)", 3, 3)
    assert [done for _, done, _ in offline] == sorted(done for _, done, _ in offline)

    monkeypatch.setattr(run_module, "PROGRESS_SLICE", 1)
    with FakeOpenAI(responder) as server:
        endpoint = Endpoint(model="judge-model", base_url=server.base_url, api_key="k")
        asked: list[tuple[int, int, int]] = []

        def progress(step: str, done: int, total: int) -> None:
            if step == "asking the LLM judge":
                asked.append((done, total, len(server.requests)))

        judge_store(store, policy="llm", endpoint=endpoint, write=False, progress=progress)
    assert [(done, total) for done, total, _ in asked] == [(0, 3), (1, 3), (2, 3), (3, 3)]
    requests = [made for *_, made in asked]
    # Each report comes after that answer's calls returned: every slice made calls.
    assert requests[0] == 0 and all(b > a for a, b in itertools.pairwise(requests))
