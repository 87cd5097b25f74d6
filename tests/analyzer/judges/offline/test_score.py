"""score.py: the calibrated probability that a claim is supported, and a verdict's cut-offs."""

from __future__ import annotations

import math

import pytest

from ragfunnel.analyzer.judges.offline.align import FEATURES, PARAPHRASE_FEATURES
from ragfunnel.analyzer.judges.offline.score import (
    HARD_CAP,
    PARAPHRASE,
    PLAIN,
    SUPPORTED_AT,
    Model,
    model_for,
    probability,
)


def test_the_probability_is_the_logistic_of_the_intercept_plus_the_weighted_features() -> None:
    model = Model(0.5, (2.0, -1.0), supported_at=0.5, unsupported_below=0.1, hard_factor=0.3)
    assert model.probability((0.0, 0.0)) == pytest.approx(1 / (1 + math.exp(-0.5)))
    assert model.probability((1.0, 0.5)) == pytest.approx(1 / (1 + math.exp(-2.0)))
    assert model.probability((-20.0, 0.0)) == 0.0  # far below: no overflow, exactly 0
    with pytest.raises(ValueError):
        model.probability((1.0,))  # one value per coefficient


def test_each_model_has_one_coefficient_per_feature_and_is_chosen_by_their_number() -> None:
    assert len(PLAIN.coefficients) == len(FEATURES)
    assert len(PARAPHRASE.coefficients) == len(FEATURES) + len(PARAPHRASE_FEATURES)
    assert model_for((0.0,) * len(FEATURES)) is PLAIN
    assert model_for((0.0,) * len(PARAPHRASE.coefficients)) is PARAPHRASE
    values = (1.0,) * 4 + (0.0,) * (len(FEATURES) - 4)
    assert probability(values) == PLAIN.probability(values)


def _values(**named: float) -> tuple[float, ...]:
    return tuple(named.get(name, 0.0) for name in FEATURES)


def test_more_of_the_claim_in_the_context_scores_higher() -> None:
    shares = ("overlap", "window", "weighted", "proximity", "tokens")
    found = _values(**dict.fromkeys(shares, 1.0))
    lost = _values(**dict.fromkeys(shares, 0.2), missing=math.log1p(5))
    assert PLAIN.probability(found) > SUPPORTED_AT > PLAIN.probability(lost)
    contradicted = _values(**dict.fromkeys(shares, 1.0), facts_absent=1.0)
    assert PLAIN.probability(contradicted) < PLAIN.probability(found)


@pytest.mark.parametrize("model", [PLAIN, PARAPHRASE], ids=["plain", "paraphrase"])
def test_the_cut_offs_are_ordered_and_a_hard_finding_stays_below_supported(model: Model) -> None:
    assert 0 <= model.unsupported_below < model.supported_at < 1
    assert 0 < model.hard_factor < 1
    assert model.supported_at > HARD_CAP
