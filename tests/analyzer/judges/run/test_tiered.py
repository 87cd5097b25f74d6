"""Tiered screening (judges/run/tiered.py): the seeded sample, flag reasons, rates from the sample."""

from __future__ import annotations

import math

import pytest

from ragfunnel.analyzer.judges import AnswerVerdict, ClaimVerdict
from ragfunnel.analyzer.judges.run.tiered import Screened, estimates, flag_reasons, in_sample

SUPPORTED = AnswerVerdict((ClaimVerdict("a", "supported"), ClaimVerdict("b", "supported")))
HALF = AnswerVerdict((ClaimVerdict("a", "supported"), ClaimVerdict("b", "unsupported")))
UNSURE = AnswerVerdict((ClaimVerdict("a", "uncertain"),))
ABSTAINED = AnswerVerdict(())


def test_random_sample_is_seeded_and_near_its_rate() -> None:
    keys = [f"trace-{n}" for n in range(20_000)]
    picked = [k for k in keys if in_sample(k, seed=1, rate=0.03)]
    assert picked == [k for k in keys if in_sample(k, seed=1, rate=0.03)]
    assert 0.025 < len(picked) / len(keys) < 0.035
    assert picked != [k for k in keys if in_sample(k, seed=2, rate=0.03)]
    assert not any(in_sample(k, seed=1, rate=0.0) for k in keys[:100])
    assert all(in_sample(k, seed=1, rate=1.0) for k in keys[:100])


def test_a_doubted_claim_or_any_signal_flags_an_answer_each_kind_once() -> None:
    assert flag_reasons(SUPPORTED, []) == []
    assert flag_reasons(UNSURE, []) == ["offline: a claim not supported"]
    assert flag_reasons(
        HALF, ["low_confidence: a token at p = 0.05", "low_confidence: 0.1", "oversized_prompt: 25"]
    ) == ["offline: a claim not supported", "low_confidence", "oversized_prompt"]
    assert flag_reasons(SUPPORTED, iter(["sample_disagreement: EUR 120, EUR 150"])) == [
        "sample_disagreement"
    ]


def test_rates_come_from_the_random_sample_only() -> None:
    screened = [
        # Sampled, with an LLM verdict: these make the estimates.
        Screened(offline=SUPPORTED, llm=SUPPORTED, sampled=True, flagged=False),
        Screened(offline=SUPPORTED, llm=HALF, sampled=True, flagged=False),
        Screened(offline=HALF, llm=HALF, sampled=True, flagged=True),
        Screened(offline=SUPPORTED, llm=ABSTAINED, sampled=True, flagged=False),
        # Flagged only: sent to the LLM because it looks bad, so never counted.
        Screened(offline=HALF, llm=HALF, sampled=False, flagged=True),
        Screened(offline=HALF, llm=HALF, sampled=False, flagged=True),
        # Sampled but never judged by the LLM.
        Screened(offline=HALF, llm=None, sampled=True, flagged=True),
    ]
    rates = estimates(screened)
    assert rates["faithfulness"].estimate == pytest.approx((1.0 + 0.5 + 0.5) / 3)
    assert rates["unsupported_rate"].estimate == pytest.approx(2 / 3)
    assert rates["abstention_rate"].estimate == pytest.approx(1 / 4)
    # Offline and LLM agree on "fully supported or not" for the first and third.
    assert rates["offline_agreement"].estimate == pytest.approx(2 / 3)
    assert rates["unsupported_rate"].low < 2 / 3 < rates["unsupported_rate"].high
    assert (rates["faithfulness"].n, rates["abstention_rate"].n) == (3, 4)


def test_no_sample_gives_no_estimate() -> None:
    rates = estimates([Screened(offline=HALF, llm=HALF, sampled=False, flagged=True)])
    assert set(rates) == {
        "faithfulness",
        "unsupported_rate",
        "abstention_rate",
        "offline_agreement",
    }
    assert all(rate.n == 0 and math.isnan(rate.estimate) for rate in rates.values())
