"""Fit the offline judge's calibrated score on public labelled data (not shipped).

The data comes from bench/judge_data.py (``--data``, default ``$RAGFUNNEL_JUDGE_DATA`` or
``/work/judge-data``). Fitted on, and only on:

- ``wice-dev.jsonl`` (ryokamoi/wice, dev split): a claim is supported only when WiCE says
  ``supported``; ``partially_supported`` and ``not_supported`` count as not supported;
- ``qags-cnndm.jsonl`` (W4ngatang/qags, CNN/DM): summary sentences, majority of three workers;
- the ``val`` cut of ``aggrefact-cliff.jsonl`` (Liyan06/AggreFact, CLIFF): whole summaries;
- ``xsumhallu-val.jsonl`` (google-research-datasets/xsum_hallucination_annotations, the
  summaries of CLIFF's ``val`` articles): whole one-sentence summaries, hallucinated or not;
- ``begin-dev.jsonl`` (google/BEGIN-dataset, the dev splits of its three sources): dialogue
  responses against the knowledge passage they were given, "fully attributable" or not.

Each set weighs the same in the fit, whatever its size, and within a set its supported and its
unsupported claims weigh the same: the score is the probability of "supported" at even odds, so
no set's base rate (a tenth of the XSum summaries are faithful, three quarters of QAGS CNN/DM's
sentences) pulls the others' ranking. The measured sets (bench/judge.py) are
the others: WiCE test, QAGS XSum, the CLIFF ``test`` cut, ``xsumhallu-test`` (the
summaries of CLIFF's ``test`` articles) and BEGIN's Wizard of Wikipedia test split.

Fits two models, each printed as a ``Model(...)`` constant for
``ragfunnel/analyzer/judges/offline/score.py``: ``PLAIN`` over ``align.FEATURES`` and, when
``ragfunnel[paraphrase]`` is installed, ``PARAPHRASE`` over those and
``align.PARAPHRASE_FEATURES``. Also prints the precision of each hard check on the fitting
data (a hard check makes a claim unsupported by itself, so it must be precise).

``--aggregates`` instead compares, on the two fitting summary sets only, the ways of turning an
answer's claim confidences into one score to rank answers by (``AnswerVerdict.confidence`` is
the mean: the choice this printed), and with the confidence of the whole answer judged as one
claim (``whole``: CLIFF val is fitted as whole summaries, so that one is in-sample there):

    python bench/judge_fit.py [--data DIR] [--aggregates]
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from ragfunnel.analyzer.judges.offline.align import (
    FEATURES,
    FOUND_AT,
    PARAPHRASE_FEATURES,
    Evidence,
    align,
)
from ragfunnel.analyzer.judges.offline.checks import CHECKS
from ragfunnel.analyzer.judges.offline.embed import load
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.judge import OfflineJudge, judge_claim, supportable
from ragfunnel.analyzer.judges.verdict_types import Chunk

DATA = Path(os.environ.get("RAGFUNNEL_JUDGE_DATA", "/work/judge-data"))
REGULARISATION = {"PLAIN": 0.01, "PARAPHRASE": 0.03}
"""scikit-learn's C, the inverse strength of the L2 penalty, per model. Chosen by
leave-one-set-out validation on the fitting sets (printed by this script: fit on three, AUROC
on the fourth): of 0.01, 0.03, 0.1 and 0.3, 0.01 ranks best on average for both models (a
strong penalty keeps any one set's quirks out of the weights). ``PARAPHRASE`` takes 0.03, the
next best (0.008 lower on average, the best on WiCE dev): at 0.01 the penalty shrinks the
embedding's weight until the paraphrases it is there for ("Staff who misplace a notebook
computer …" against "Employees who lose a laptop …", tests/analyzer/judges/offline/
test_embed.py) are no longer supported."""
CHOICES = (0.01, 0.03, 0.1, 0.3, 1.0)
LEFT_OUT = {"PARAPHRASE": ("tokens", "begin-dev")}
"""Features (coefficient 0) and fitting sets a model is fitted without. ``PARAPHRASE`` leaves
out ``tokens`` (the share of all the claim's tokens in the context) and BEGIN's dialogue
responses, whose attribution is lexical: fitted with either, the lexical terms outweigh the
embedding's similarity and a paraphrase in other words ("The physician prescribed
medication." against "The doctor gave him drugs.", tests/analyzer/judges/offline/
test_embed.py) scores 0.25 to 0.30, below the supported cut-off, at every C
tried: what the extra is for is lost. It stays the issue-18 model (BEGIN measures it)."""
FIT_SCALE = {"question": 3.0}
"""Features fitted on their value times this (the printed coefficient is for the value): a
yes/no feature that few claims have keeps, under the strong penalty, a weight too small to
matter unless it is scaled up. 3 for ``question``: by leave-one-source-out on BEGIN dev, with
``chat`` beside it, 1 adds 0.010 on average over the three sources, 3 adds 0.016."""
SUPPORTED_RECALL = 0.95
"""Of the supported claims that neither a hard finding nor a gate (a missing name, less than
``FOUND_AT`` of the claim found, an unstated fact) holds back, the share the judge must call supported on *every*
fitting set: fixes ``supported_at``."""
UNSUPPORTED_PRECISION = 0.9
"""The precision of "unsupported" by score alone that fixes ``unsupported_below``: reached on
every fitting set where at least :data:`FEW` claims score below it (at each set's own mix of
supported and unsupported claims)."""
FEW = 20


Sets = dict[str, tuple[list[Evidence], list[bool]]]
"""Fitting sets by name: each claim's evidence and whether it is supported."""


def read(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file, with the file and line in any error."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}:{n}: not JSON ({exc.msg})") from exc
        for key in ("evidence", "label"):
            if key not in row:
                raise SystemExit(f"{path}:{n}: no field {key!r}")
        rows.append(row)
    return rows


def measure(pairs: list[tuple[str, str]], paraphrase: bool) -> list[Evidence]:
    """Each (claim, evidence) aligned, with the embedding or not; each evidence indexed once."""
    indexes: dict[str, ContextIndex] = {}
    out = []
    for claim, evidence in pairs:
        index = indexes.get(evidence)
        if index is None:
            index = indexes[evidence] = ContextIndex.of([Chunk("e", evidence)], paraphrase)
        out.append(align(claim, index))
    return out


def fitting_sets(data: Path, paraphrase: bool) -> Sets:
    """The five fitting sets: evidence per claim and whether it is supported."""
    sets = {}
    for name in ("wice-dev", "qags-cnndm"):
        rows = read(data / f"{name}.jsonl")
        sets[name] = (
            measure([(r["claim"], r["evidence"]) for r in rows], paraphrase),
            [r["label"] == "supported" for r in rows],
        )
    cliff = [r for r in read(data / "aggrefact-cliff.jsonl") if r["cut"] == "val"]
    sets["cliff-val"] = (
        measure([(r["summary"], r["evidence"]) for r in cliff], paraphrase),
        [r["label"] == "supported" for r in cliff],
    )
    hallucinated = read(data / "xsumhallu-val.jsonl")
    sets["xsumhallu-val"] = (
        measure([(r["summary"], r["evidence"]) for r in hallucinated], paraphrase),
        [r["label"] == "supported" for r in hallucinated],
    )
    begin = read(data / "begin-dev.jsonl")
    sets["begin-dev"] = (
        measure([(r["claim"], r["evidence"]) for r in begin], paraphrase),
        [r["label"] == "supported" for r in begin],
    )
    return sets


def _columns(width: int, name: str) -> list[int]:
    """The features a model is fitted on: the first ``width`` but those it leaves out."""
    names = (*FEATURES, *PARAPHRASE_FEATURES)[:width]
    return [i for i, n in enumerate(names) if n not in LEFT_OUT.get(name, ())]


def _scale(columns: list[int]) -> np.ndarray:
    """Each column's :data:`FIT_SCALE`."""
    names = (*FEATURES, *PARAPHRASE_FEATURES)
    return np.array([FIT_SCALE.get(names[i], 1.0) for i in columns])


def _x(evidence: list[Evidence], columns: list[int]) -> np.ndarray:
    values: np.ndarray = np.array([[e.values[i] for i in columns] for e in evidence])
    scaled: np.ndarray = values * _scale(columns)
    return scaled


def _design(sets: Sets, columns: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and weights: each set, and each class within it, weighing the same."""
    xs, ys, ws = [], [], []
    for evidence, labels in sets.values():
        xs.append(_x(evidence, columns))
        ys.append(np.array(labels, dtype=int))
        yes = max(1, sum(labels))
        no = max(1, len(labels) - sum(labels))
        ws.append(np.array([500 / yes if lab else 500 / no for lab in labels]))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ws)


def leave_one_set_out(sets: Sets, columns: list[int], name: str) -> None:
    """For each choice of C: fit on all sets but one, print the AUROC on the one left out."""
    for c in CHOICES:
        scores = []
        for left in sets:
            x, y, w = _design({k: v for k, v in sets.items() if k != left}, columns)
            model = LogisticRegression(C=c, max_iter=5000).fit(x, y, sample_weight=w)
            evidence, labels = sets[left]
            p = model.predict_proba(_x(evidence, columns))[:, 1]
            scores.append(roc_auc_score(labels, p))
        shown = ", ".join(f"{k} {a:.3f}" for k, a in zip(sets, scores, strict=True))
        print(f"# {name} C={c}: left-out AUROC {shown}; mean {np.mean(scores):.3f}")


def leave_one_source_out(sets: Sets, sources: list[str], columns: list[int], name: str) -> None:
    """BEGIN dev's sources in turn: fit on the other sets and BEGIN's other sources, print the
    AUROC on the one left out beside the ``overlap`` feature's. Dialogue features are learnt
    from BEGIN alone, so leaving all of BEGIN out (:func:`leave_one_set_out`) cannot show
    whether they help; this can."""
    evidence, labels = sets["begin-dev"]
    shown = []
    for source in sorted(set(sources)):
        mine = [s == source for s in sources]
        rest = {k: v for k, v in sets.items() if k != "begin-dev"}
        rest["begin-dev"] = (
            [e for e, m in zip(evidence, mine, strict=True) if not m],
            [lab for lab, m in zip(labels, mine, strict=True) if not m],
        )
        x, y, w = _design(rest, columns)
        model = LogisticRegression(C=REGULARISATION[name], max_iter=5000)
        model.fit(x, y, sample_weight=w)
        held = [e for e, m in zip(evidence, mine, strict=True) if m]
        truth = [lab for lab, m in zip(labels, mine, strict=True) if m]
        p = model.predict_proba(_x(held, columns))[:, 1]
        overlap = roc_auc_score(truth, [e.values[0] for e in held])
        shown.append(f"{source} {roc_auc_score(truth, p):.3f} (overlap {overlap:.3f})")
    print(f"# {name} C={REGULARISATION[name]}: BEGIN dev by source, left-out AUROC "
          f"{', '.join(shown)}")  # fmt: skip


def begin_sources(data: Path) -> list[str]:
    """The source dialogue set (``wow``, ``cmu-dog``, ``topicalchat``) of each BEGIN dev row."""
    return [r["source"].split("/")[1] for r in read(data / "begin-dev.jsonl")]


def fit(sets: Sets, width: int, name: str, sources: list[str] | None = None) -> None:
    """Fit one model over the first ``width`` features and print it as a constant."""
    columns = _columns(width, name)
    sets = {k: v for k, v in sets.items() if k not in LEFT_OUT.get(name, ())}
    leave_one_set_out(sets, columns, name)
    if sources is not None and "begin-dev" in sets:
        leave_one_source_out(sets, sources, columns, name)
    x, y, w = _design(sets, columns)
    model = LogisticRegression(C=REGULARISATION[name], max_iter=5000).fit(x, y, sample_weight=w)
    p = model.predict_proba(x)[:, 1]
    hard = np.array([bool(e.hard) for evidence, _ in sets.values() for e in evidence])
    soft = ~hard
    found = np.array([e.found >= FOUND_AT for evidence, _ in sets.values() for e in evidence])
    named = np.array([supportable(e) for evidence, _ in sets.values() for e in evidence])
    eligible = soft & found & named
    group = np.concatenate([np.full(len(lab), k) for k, (_, lab) in enumerate(sets.values())])
    grid = np.linspace(0.01, 0.99, 393)

    def recall(t: float) -> float:
        """The lowest share, over the sets, of eligible supported claims scoring at least t."""
        return float(min(
            (p >= t)[eligible & (group == k) & (y == 1)].mean() for k in range(len(sets))
        ))  # fmt: skip

    supported_at = max((t for t in grid if recall(t) >= SUPPORTED_RECALL), default=grid[0])

    def precision(t: float) -> float:
        """The lowest precision, over the sets, of "unsupported" for soft claims below t."""
        out = []
        for k in range(len(sets)):
            chosen = soft & (p < t) & (group == k)
            if chosen.sum() >= FEW:
                out.append(float((y[chosen] == 0).mean()))
        return min(out, default=0.0)

    below = max((t for t in grid[grid < supported_at] if precision(t) >= UNSUPPORTED_PRECISION),
                default=0.0)  # fmt: skip
    # A hard finding makes a claim unsupported whatever its score; its confidence is the score
    # scaled so that, on the fitting data, it matches how often such claims were supported.
    hard_factor = float(np.average(y[hard], weights=w[hard]) / np.average(p[hard], weights=w[hard]))
    names = (*FEATURES, *PARAPHRASE_FEATURES)[:width]
    print(f"{name} = Model(")
    print(f"    intercept={model.intercept_[0]:.4f},")
    print("    coefficients=(")
    fitted = dict(zip(columns, model.coef_[0] * _scale(columns), strict=True))
    for i, feature in enumerate(names):
        print(f"        {fitted.get(i, 0.0):.4f},  # {feature}")
    print("    ),")
    print(f"    supported_at={supported_at:.3f},")
    print(f"    unsupported_below={below:.3f},")
    print(f"    hard_factor={min(1.0, hard_factor):.3f},")
    print(")")
    for k, set_name in enumerate(sets):
        mine = group == k
        said = eligible & (p >= supported_at) & mine
        print(f"#   {set_name}: supported claims called supported "
              f"{said[y == 1].sum() / (mine & (y == 1)).sum():.3f}")  # fmt: skip


AGGREGATES: dict[str, Callable[[list[float]], float]] = {
    "mean": lambda c: sum(c) / len(c),
    "lowest": min,
    "product": math.prod,
    "geometric mean": lambda c: math.prod(c) ** (1 / len(c)),
}


WITH_WHOLE: dict[str, Callable[[list[float], list[int], float], float]] = {
    "mean by words": lambda c, w, _: sum(x * n for x, n in zip(c, w, strict=True)) / sum(w),
    "whole": lambda c, w, whole: whole,
    "mean of whole and mean": lambda c, w, whole: (whole + sum(c) / len(c)) / 2,
    "lower of whole and mean": lambda c, w, whole: min(whole, sum(c) / len(c)),
}
"""Aggregates that read more than the claims' confidences: their lengths in words, or the
confidence of the whole answer judged as one claim."""


def aggregates(data: Path) -> None:
    """AUROC of faithfulness and of each claim-confidence aggregate, on the fitting summaries."""
    summaries = {
        "cliff-val": [r for r in read(data / "aggrefact-cliff.jsonl") if r["cut"] == "val"],
        "xsumhallu-val": read(data / "xsumhallu-val.jsonl"),
    }
    variants = {"plain": False, "paraphrase": True} if load() is not None else {"plain": False}
    for variant, paraphrase in variants.items():
        judge = OfflineJudge(paraphrase)
        for name, rows in summaries.items():
            labels = [r["label"] == "supported" for r in rows]
            scores: dict[str, list[float]] = {
                k: [] for k in ("faithfulness", *AGGREGATES, *WITH_WHOLE)
            }
            for r in rows:
                verdict = judge.judge(r["summary"], [("e", r["evidence"])])
                faith = verdict.faithfulness
                scores["faithfulness"].append(1.0 if faith is None else faith)
                conf = [c.score for c in verdict.claims] or [1.0]
                for k, fn in AGGREGATES.items():
                    scores[k].append(fn(conf))
                words = [len(c.text.split()) for c in verdict.claims] or [1]
                whole = judge_claim(r["summary"], [r["evidence"]], paraphrase).score
                for k, both in WITH_WHOLE.items():
                    scores[k].append(both(conf, words, whole))
            shown = ", ".join(f"{k} {roc_auc_score(labels, v):.3f}" for k, v in scores.items())
            print(f"{variant} {name} ({len(rows)} summaries, {sum(labels)} consistent): {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--aggregates", action="store_true",
                        help="compare answer-score aggregates on the fitting summaries instead")  # fmt: skip
    args = parser.parse_args()
    if args.aggregates:
        aggregates(args.data)
        return
    sets = fitting_sets(args.data, paraphrase=False)
    sources = begin_sources(args.data)
    fit(sets, len(FEATURES), "PLAIN", sources)
    if load() is not None:
        width = len(FEATURES) + len(PARAPHRASE_FEATURES)
        fit(fitting_sets(args.data, True), width, "PARAPHRASE", sources)
    else:
        print("# ragfunnel[paraphrase] is not installed: PARAPHRASE not fitted")
    for name, (evidence, labels) in sets.items():
        fired = [lab for e, lab in zip(evidence, labels, strict=True) if e.hard]
        wrong = sum(fired)
        print(f"{name}: {len(labels)} claims, {sum(labels)} supported; hard checks fired on "
              f"{len(fired)}, {wrong} of them supported (precision "
              f"{1 - wrong / max(1, len(fired)):.3f})")  # fmt: skip
        for check in CHECKS:
            hits = [
                lab for e, lab in zip(evidence, labels, strict=True)
                if check.told(getattr(e.findings, check.name))
            ]  # fmt: skip
            print(f"  {check.name}: fired {len(hits)}, supported {sum(hits)}")


if __name__ == "__main__":
    main()
