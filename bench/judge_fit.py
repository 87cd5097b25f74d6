"""Fit the offline judge's calibrated score on public labelled data (not shipped).

The data comes from bench/judge_data.py (``--data``, default ``$RAGFUNNEL_JUDGE_DATA`` or
``/work/judge-data``). Fitted on, and only on:

- ``wice-dev.jsonl`` (ryokamoi/wice, dev split): a claim is supported only when WiCE says
  ``supported``; ``partially_supported`` and ``not_supported`` count as not supported;
- ``qags-cnndm.jsonl`` (W4ngatang/qags, CNN/DM): summary sentences, majority of three workers;
- the ``val`` cut of ``aggrefact-cliff.jsonl`` (Liyan06/AggreFact, CLIFF): whole summaries.

Each set weighs the same in the fit, whatever its size. The measured sets (bench/judge.py) are
the others: WiCE test, QAGS XSum and the CLIFF ``test`` cut.

Fits two models, each printed as a ``Model(...)`` constant for
``ragfunnel/analyzer/judges/offline/score.py``: ``PLAIN`` over ``align.FEATURES`` and, when
``ragfunnel[paraphrase]`` is installed, ``PARAPHRASE`` over those and
``align.PARAPHRASE_FEATURES``. Also prints the precision of each hard check on the fitting
data (a hard check makes a claim unsupported by itself, so it must be precise):

    python bench/judge_fit.py [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from ragfunnel.analyzer.judges.offline.align import (
    FEATURES,
    FOUND_AT,
    PARAPHRASE_FEATURES,
    Evidence,
    align,
)
from ragfunnel.analyzer.judges.offline.embed import load
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.verdict_types import Chunk

DATA = Path(os.environ.get("RAGFUNNEL_JUDGE_DATA", "/work/judge-data"))
REGULARISATION = 0.3
"""scikit-learn's C: the inverse strength of the L2 penalty."""
SUPPORTED_RECALL = 0.95
"""Of the supported claims that neither a hard finding nor a gate (a missing name, less than
``FOUND_AT`` of the claim found) holds back, the share the judge must call supported on *every*
fitting set: fixes ``supported_at``."""
UNSUPPORTED_PRECISION = 0.9
"""The precision of "unsupported" by score alone (sets weighing the same) that fixes
UNSUPPORTED_BELOW."""


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


def fitting_sets(data: Path, paraphrase: bool) -> dict[str, tuple[list[Evidence], list[bool]]]:
    """The three fitting sets: evidence per claim and whether it is supported."""
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
    return sets


def fit(sets: dict[str, tuple[list[Evidence], list[bool]]], width: int, name: str) -> None:
    """Fit one model over the first ``width`` features and print it as a constant."""
    xs, ys, ws = [], [], []
    for evidence, labels in sets.values():
        xs.append(np.array([e.values[:width] for e in evidence]))
        ys.append(np.array(labels, dtype=int))
        ws.append(np.full(len(labels), 1000 / len(labels)))
    x, y, w = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
    model = LogisticRegression(C=REGULARISATION, max_iter=5000).fit(x, y, sample_weight=w)
    p = model.predict_proba(x)[:, 1]
    hard = np.array([bool(e.hard) for evidence, _ in sets.values() for e in evidence])
    soft = ~hard
    found = np.array([e.found >= FOUND_AT for evidence, _ in sets.values() for e in evidence])
    named = np.array([not e.names for evidence, _ in sets.values() for e in evidence])
    eligible = soft & found & named
    group = np.concatenate([np.full(len(lab), k) for k, (_, lab) in enumerate(sets.values())])
    grid = np.linspace(0.01, 0.99, 393)

    def recall(t: float) -> float:
        """The lowest share, over the sets, of eligible supported claims scoring at least t."""
        return float(min(
            (p >= t)[eligible & (group == k) & (y == 1)].mean() for k in range(len(sets))
        ))  # fmt: skip

    supported_at = max((t for t in grid if recall(t) >= SUPPORTED_RECALL), default=grid[0])
    below = 0.0
    for t in grid[grid < supported_at]:
        chosen = soft & (p < t)
        if chosen.sum() >= 20 and np.average(y[chosen] == 0, weights=w[chosen]) >= (
            UNSUPPORTED_PRECISION
        ):
            below = float(t)
    # A hard finding makes a claim unsupported whatever its score; its confidence is the score
    # scaled so that, on the fitting data, it matches how often such claims were supported.
    hard_factor = float(np.average(y[hard], weights=w[hard]) / np.average(p[hard], weights=w[hard]))
    names = (*FEATURES, *PARAPHRASE_FEATURES)[:width]
    print(f"{name} = Model(")
    print(f"    intercept={model.intercept_[0]:.4f},")
    print("    coefficients=(")
    for c, feature in zip(model.coef_[0], names, strict=True):
        print(f"        {c:.4f},  # {feature}")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    sets = fitting_sets(args.data, paraphrase=False)
    fit(sets, len(FEATURES), "PLAIN")
    if load() is not None:
        fit(fitting_sets(args.data, True), len(FEATURES) + len(PARAPHRASE_FEATURES), "PARAPHRASE")
    else:
        print("# ragfunnel[paraphrase] is not installed: PARAPHRASE not fitted")
    for name, (evidence, labels) in sets.items():
        fired = [lab for e, lab in zip(evidence, labels, strict=True) if e.hard]
        wrong = sum(fired)
        print(f"{name}: {len(labels)} claims, {sum(labels)} supported; hard checks fired on "
              f"{len(fired)}, {wrong} of them supported (precision "
              f"{1 - wrong / max(1, len(fired)):.3f})")  # fmt: skip
        for kind in ("facts", "qualifiers", "negation", "swapped"):
            hits = [
                lab for e, lab in zip(evidence, labels, strict=True)
                if (e.facts.absent if kind == "facts" else getattr(e, kind))
            ]  # fmt: skip
            print(f"  {kind}: fired {len(hits)}, supported {sum(hits)}")


if __name__ == "__main__":
    main()
