"""The calibrated score: P(supported) from the alignment features, and the cut-offs of a verdict.

A logistic regression over the features of ``align.FEATURES`` (:data:`PLAIN`), or over those
and ``align.PARAPHRASE_FEATURES`` when the paraphrase embedding is installed
(:data:`PARAPHRASE`), each fitted by ``bench/judge_fit.py`` (scikit-learn, offline) on public
labelled sets only — WiCE dev (ryokamoi/wice), QAGS CNN/DM (W4ngatang/qags), the validation
cut of CLIFF in AggreFact (Liyan06/AggreFact), the XSum hallucination annotations of CLIFF's
validation articles (google-research-datasets/xsum_hallucination_annotations) and, for
:data:`PLAIN` only, the dev splits of BEGIN's dialogue responses (google/BEGIN-dataset); each
set, and each class within a set, weighs the same. Only the coefficients live here: the predict step is one dot product and a logistic function in plain Python. Refit
with ``python bench/judge_fit.py`` and paste its output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["HARD_CAP", "PARAPHRASE", "PLAIN", "SUPPORTED_AT", "Model", "model_for", "probability"]


@dataclass(frozen=True)
class Model:
    """One fitted score and its cut-offs.

    Attributes:
        intercept: the logistic regression's intercept.
        coefficients: one per feature, in ``align`` order.
        supported_at: a claim scoring at least this is supported: the highest cut-off at which,
            on every fitting set, 95 % of the supported claims that no hard finding or gate
            (``judge.py``) holds back score at least this.
        unsupported_below: a claim scoring below this is unsupported: on every fitting set
            where at least 20 claims score below it, 90 % of them were; 0 when none reaches it.
        hard_factor: a claim with a hard finding gets its score times this as confidence: on
            the fitting data this matches how often such claims were supported.
    """

    intercept: float
    coefficients: tuple[float, ...]
    supported_at: float
    unsupported_below: float
    hard_factor: float

    def probability(self, values: tuple[float, ...]) -> float:
        """The calibrated probability that the claim is supported."""
        z = self.intercept + sum(c * v for c, v in zip(self.coefficients, values, strict=True))
        if z < -30:
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))


PLAIN = Model(
    intercept=-0.5677,
    coefficients=(
        0.3826,  # overlap
        0.3049,  # window
        0.3241,  # weighted
        0.3465,  # proximity
        -0.3701,  # missing
        -0.3274,  # names_missing
        -0.6753,  # facts_absent
        -0.1594,  # facts_contradicted
        -0.0333,  # strong_qualifier
        -0.0084,  # negation
        0.3118,  # tokens
        -0.5026,  # chat
        -1.2213,  # question
    ),
    supported_at=0.338,
    unsupported_below=0.170,
    hard_factor=0.241,
)
"""The score without the paraphrase embedding (the thirteen ``align.FEATURES``)."""

PARAPHRASE = Model(
    intercept=-0.5357,
    coefficients=(
        0.2371,  # overlap
        -0.0258,  # window
        0.2350,  # weighted
        0.1924,  # proximity
        -0.2472,  # missing
        -0.4794,  # names_missing
        -1.0591,  # facts_absent
        -0.3975,  # facts_contradicted
        -0.0114,  # strong_qualifier
        -0.0254,  # negation
        0.0000,  # tokens
        -0.3033,  # chat
        -0.1142,  # question
        0.9814,  # similarity
    ),
    supported_at=0.405,
    unsupported_below=0.150,
    hard_factor=0.326,
)
"""The score with it (``align.FEATURES`` then ``align.PARAPHRASE_FEATURES``)."""

SUPPORTED_AT = PLAIN.supported_at
"""The default judge's supported cut-off (without the extra)."""

HARD_CAP = 0.2
"""A claim with a hard finding scores at most this: below either model's supported cut-off."""


def model_for(values: tuple[float, ...]) -> Model:
    """The model for these features: with the paraphrase ones or without."""
    return PARAPHRASE if len(values) == len(PARAPHRASE.coefficients) else PLAIN


def probability(values: tuple[float, ...]) -> float:
    """The calibrated probability that the claim is supported."""
    return model_for(values).probability(values)
