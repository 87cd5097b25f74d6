"""Attribution on injected faults over real HotpotQA data (100 % on deterministic faults: bench/RESULTS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.demo.faults import run_faults
from ragfunnel.demo.hotpotqa import BM25, EXPECTED, default_data_path, load, plan_faults


def test_the_shared_hotpotqa_sample_is_there() -> None:
    # Not a skip: the data is part of the test environment (../shared/data/hotpotqa).
    corpus = load(limit=5)
    assert default_data_path().is_dir()
    assert len(corpus.questions) == 5
    assert all(len(q.gold) == 2 for q in corpus.questions)


def test_bm25_finds_a_paragraph_by_its_own_words() -> None:
    corpus = load(limit=20)
    bm25 = BM25(corpus.paragraphs)
    title, text = next(iter(corpus.paragraphs.items()))
    assert bm25.search(text, 3)[0][0] == title


def test_every_injected_fault_is_attributed_to_its_stage(tmp_path: Path) -> None:
    report = run_faults(tmp_path, limit=150)
    assert report.spans_dropped == 0
    assert set(report.by_fault) == set(EXPECTED)  # every fault class took part
    assert min(sum(v.values()) for v in report.by_fault.values()) >= 10
    assert report.mistakes == []
    assert report.accuracy == pytest.approx(1.0)


def test_ingestion_faults_remove_only_paragraphs_no_other_question_needs() -> None:
    corpus = load(limit=150)
    plan = plan_faults(corpus)
    needed_elsewhere = {
        title for q in corpus.questions for title in q.gold if plan.faults.get(q.id) != "ingestion"
    }
    assert plan.removed
    assert not plan.removed & needed_elsewhere
