from __future__ import annotations

import csv
import json
from pathlib import Path

from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.llm.endpoint import Endpoint
from ragfunnel.analyzer.judges.people.calibration import calibrate
from ragfunnel.analyzer.judges.people.review import iso_week, review_sheet, write_sheet
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.fake_openai import FakeOpenAI
from tests.support.judge_pipeline import ANY_TIME, BOTH, WORKED_RANKING, ask
from tests.support.responders import responder


def _judged(store: Store) -> None:
    with capture_spans(capture_content=True, run_id="r1") as spans:
        for n in range(6):
            ask(f"q{n}", f"Frage {n}?", WORKED_RANKING, ANY_TIME if n % 2 else BOTH)
    ingest_spans(store, spans.spans)
    with FakeOpenAI(responder) as server:
        judge_store(
            store,
            policy="tiered",
            sample_rate=1.0,
            endpoint=Endpoint(model="judge-model", base_url=server.base_url, api_key="k"),
        )


def test_review_sheet_is_seeded_per_week(store: Store, tmp_path: Path) -> None:
    _judged(store)
    sheet = review_sheet(store, n=4, week="2026-W49")
    assert len(sheet) == 4
    assert sheet == review_sheet(store, n=4, week="2026-W49")
    other_weeks = {
        tuple(r["trace_id"] for r in review_sheet(store, n=4, week=f"2026-W{w}"))
        for w in range(40, 52)
    }
    assert len(other_weeks) > 1  # each week draws its own sheet
    row = sheet[0]
    assert row["review_id"] == "2026-W49-01" and row["week"] == "2026-W49"
    assert [c["id"] for c in row["context"]] == ["access-rights", "hotel-allowance", "taxi"]
    assert set(row["judges"]) == {"offline", "llm:judge-model"}
    assert len(row["judges"]["offline"]) == len(row["claims"]) == len(row["human_labels"])
    write_sheet(sheet, tmp_path / "s.csv", tmp_path / "s.jsonl")
    with (tmp_path / "s.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == [
        "review_id",
        "week",
        "run_id",
        "trace_id",
        "question_id",
        "question",
        "context",
        "answer",
        "claims",
        "judges",
        "human_labels",
        "claim_split_sensible",
        "notes",
    ]
    assert rows[0]["context"].startswith("[access-rights] Zugriffsrechte")
    lines = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["claims"] == row["claims"]
    assert iso_week().startswith("20")


def test_calibrate_reads_labels_back(store: Store, tmp_path: Path) -> None:
    _judged(store)
    sheet = review_sheet(store, n=6, week="2026-W49")
    for row in sheet:  # the person agrees with the LLM, and thinks the taxi claim wrong
        row["human_labels"] = [v["label"] for v in row["judges"]["llm:judge-model"]]
        row["claim_split_sensible"] = "yes"
    sheet[0]["week"] = "2026-W48"
    write_sheet(sheet, None, tmp_path / "labels.jsonl")
    result = calibrate(tmp_path / "labels.jsonl")
    assert result.answers == 6
    by_judge = {j.judge: j for j in result.judges}
    llm = by_judge["llm:judge-model"]
    assert llm.kappa.estimate == 1.0
    assert llm.unsupported_precision.estimate == 1.0 and llm.unsupported_recall.estimate == 1.0
    assert llm.confusion["unsupported"]["unsupported"] == 3
    assert set(llm.kappa_by_week) == {"2026-W48", "2026-W49"}
    assert by_judge["offline"].claims == 12
    assert result.split_sensible.estimate == 1.0
