"""The calibrated score: P(supported) from the alignment features, and the cut-offs of a verdict.

A logistic regression over the features of ``align.FEATURES``, fitted by ``bench/judge_fit.py``
(scikit-learn, offline) on public labelled sets only — WiCE dev (ryokamoi/wice), QAGS CNN/DM
(W4ngatang/qags) and the validation cut of CLIFF in AggreFact (Liyan06/AggreFact); each set
weighs the same. Only its coefficients live here: the predict step is one dot product and a
logistic function in plain Python. Refit with ``python bench/judge_fit.py`` and paste its output.
"""

from __future__ import annotations

import math

__all__ = [
    "COEFFICIENTS",
    "HARD_CAP",
    "HARD_FACTOR",
    "INTERCEPT",
    "SUPPORTED_AT",
    "UNSUPPORTED_BELOW",
    "probability",
]

INTERCEPT = -0.2367
COEFFICIENTS = (
    0.0390,  # overlap
    -0.1169,  # window
    0.1777,  # weighted
    1.9008,  # proximity
    -0.2440,  # missing
    -0.5551,  # names_missing
    -1.3944,  # facts_absent
    -0.9137,  # facts_contradicted
    -0.1036,  # strong_qualifier
    -0.0157,  # negation
)
"""One per feature, in ``align.FEATURES`` order."""
SUPPORTED_AT = 0.445
"""A claim scoring at least this is supported: 85 % of the supported claims of the fitting data
without a hard finding do (each set weighing the same)."""
UNSUPPORTED_BELOW = 0.092
"""A claim scoring below this is unsupported: on the fitting data, 90 % of such claims were
(each set weighing the same)."""

HARD_FACTOR = 0.838
"""A claim with a hard finding gets its score times this as confidence: on the fitting data
this matches how often such claims were supported (each set weighing the same)."""

HARD_CAP = 0.3
"""...and at most this: an unsupported claim never scores near the supported cut-off."""


def probability(values: tuple[float, ...]) -> float:
    """The calibrated probability that the claim is supported."""
    z = INTERCEPT + sum(c * v for c, v in zip(COEFFICIENTS, values, strict=True))
    if z < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))
