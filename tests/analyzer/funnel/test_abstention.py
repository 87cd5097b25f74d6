from __future__ import annotations

import math

import polars as pl
import pytest

from ragfunnel.analyzer.funnel.abstention import abstention


def _records() -> pl.DataFrame:
    # Answerable questions score high, unanswerable ones low, with one overlap each way.
    return pl.DataFrame(
        {
            "run_id": ["r"] * 8,
            "mode": ["pipeline"] * 8,
            "latest": [True] * 8,
            "answerable": [True, True, True, True, False, False, False, False],
            "top_score": [0.9, 0.8, 0.6, 0.25, 0.5, 0.2, 0.1, None],
            "abstained": [False, False, False, True, False, True, True, True],
            "cut_threshold": [0.3] * 8,
        }
    )


def test_confusion_and_sweep() -> None:
    result = abstention(_records())
    confusion = {
        (r["answerable"], r["abstained"]): r["count"]
        for r in result.confusion.iter_rows(named=True)
    }
    assert confusion == {(True, False): 3, (True, True): 1, (False, False): 1, (False, True): 3}
    assert result.unscored == {"r": 1}
    assert result.pipeline_threshold == {"r": 0.3}
    sweep = {r["threshold"]: r for r in result.sweep.iter_rows(named=True)}
    own = sweep[0.3]
    assert own["pipeline"] and (own["answerable_refused"], own["unanswerable_answered"]) == (1, 1)
    assert own["coverage"] == pytest.approx(4 / 7)
    assert own["unanswerable_share"] == pytest.approx(1 / 4)
    assert sweep[math.inf]["answered"] == 0 and math.isnan(sweep[math.inf]["unanswerable_share"])
    # Equal costs: 0.25 (one unanswerable through) and 0.6 (one answerable refused) both cost
    # 1, the pipeline's 0.3 costs 2; of a tie the lowest threshold (more coverage) wins.
    assert result.recommended == {"r": 0.25}
    assert sum(result.sweep["recommended"]) == 1


def test_cost_ratio_moves_the_recommendation() -> None:
    # Answering an unanswerable question costs five refused answerable ones: refuse more.
    assert abstention(_records(), cost_ratio=5.0).recommended == {"r": 0.6}
    with pytest.raises(ValueError, match="cost_ratio"):
        abstention(_records(), cost_ratio=0)


def test_given_thresholds() -> None:
    result = abstention(_records(), thresholds=[0.0, 0.5, 1.0])
    assert result.sweep["threshold"].to_list() == [0.0, 0.5, 1.0]
    assert result.sweep["answered"].to_list() == [7, 4, 0]
