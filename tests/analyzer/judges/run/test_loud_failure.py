"""Loud failure, honest counts: a dead endpoint trips the breaker and fails the run; HTTP
requests are counted on the wire, the openai client's own retries included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.llm.endpoint import BREAKER_FAILURES, Endpoint
from ragfunnel.analyzer.judges.run.batch import MAX_FAILED_SHARE, judge_store
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.fake_openai import FakeOpenAI
from tests.support.judge_pipeline import BOTH, WORKED_RANKING, ask
from tests.support.responders import responder

ANSWERS = 5


def _record(dsn: str) -> None:
    with capture_spans(capture_content=True, run_id="r1") as spans:
        for n in range(ANSWERS):
            ask(f"hotel-taxi-{n}", "Was gilt für Hotel und Taxi?", WORKED_RANKING, BOTH)
    with Store.open(dsn, create=True) as store:
        ingest_spans(store, spans.spans)


def _judge(dsn: str, server: FakeOpenAI) -> Any:
    return CliRunner().invoke(
        app,
        ["judge", "--store", dsn, "--policy", "llm", "--judge-model", "judge-model",
         "--judge-base-url", server.base_url, "--concurrency", "1", "--timeout", "5"],
        env={"RAGFUNNEL_JUDGE_API_KEY": "k"},
    )  # fmt: skip


def test_a_dead_endpoint_trips_the_breaker_and_fails_the_run(tmp_path: Path) -> None:
    dsn = f"chdb://{tmp_path / 'store'}"
    _record(dsn)
    with FakeOpenAI(lambda body: 500) as server:
        result = _judge(dsn, server)
        sent = len(server.requests)
    assert result.exit_code == 1, result.output
    assert f"failed: judged none of the {ANSWERS} answers" in result.stderr
    # Three calls fail, each sent twice (the openai client retries a 500 once by itself);
    # then the breaker refuses the other answers without a request.
    assert sent == 2 * BREAKER_FAILURES
    assert (
        f"calls {BREAKER_FAILURES} (0 retries), {BREAKER_FAILURES} failed, "
        f"{ANSWERS - BREAKER_FAILURES} refused by the breaker, HTTP requests {sent}"
    ) in result.stdout
    assert "circuit breaker open" in result.stdout


def test_more_than_the_stated_share_of_failed_calls_fails_the_run(tmp_path: Path) -> None:
    dsn = f"chdb://{tmp_path / 'store'}"
    _record(dsn)
    seen: list[int] = []

    def first_call_fails(body: dict[str, Any]) -> str | int:
        seen.append(1)
        return 500 if len(seen) <= 2 else responder(body)

    with FakeOpenAI(first_call_fails) as server:
        result = _judge(dsn, server)
    # The first answer's claim split failed (1 call); the second took two calls, and the
    # other three, the same answer on the same context, came from the cache: 1 of 3 calls
    # failed, more than the stated share, though 4 of 5 answers were judged.
    assert MAX_FAILED_SHARE < 1 / 3
    assert result.exit_code == 1, result.output
    assert f"{ANSWERS} answers, {ANSWERS - 1} judged (llm)" in result.stdout
    assert "failed: 1 of 3 judge calls failed, more than 10%" in result.stderr


def test_a_healthy_run_counts_every_http_request(store: Store) -> None:
    with capture_spans(capture_content=True, run_id="r1") as spans:
        ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, BOTH)
    ingest_spans(store, spans.spans)
    with FakeOpenAI(responder) as server:
        endpoint = Endpoint(model="judge-model", base_url=server.base_url, api_key="k")
        run = judge_store(store, policy="llm", endpoint=endpoint)
        assert run.usage["requests"] == run.usage["calls"] == len(server.requests) == 2
    assert run.failure is None and run.usage["failed"] == run.usage["refused"] == 0
