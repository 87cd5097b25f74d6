import subprocess
import sys
from pathlib import Path

import pytest

import ragfunnel.analyzer
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.store import Store


def test_the_analyzer_facade_names_its_entry_points() -> None:
    assert ragfunnel.analyzer.__all__ == ["Store", "analyze", "ingest_paths"]
    assert ragfunnel.analyzer.analyze is analyze
    assert ragfunnel.analyzer.Store is Store
    assert ragfunnel.analyzer.ingest_paths is ingest_paths


def test_importing_the_store_does_not_load_the_funnel() -> None:
    code = "import sys, ragfunnel.analyzer.store; print('ragfunnel.analyzer.funnel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_public_function_that_takes_a_store_takes_a_dsn_or_path(tmp_path: Path) -> None:
    """Issue 21: `analyze(".ragfunnel/store", "cases.yaml")` raised AttributeError; the rest of
    the API took only an open Store. A path or DSN string is opened for the call and closed."""
    import ragfunnel
    from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence
    from ragfunnel.analyzer.ingest import ingest_lines, ingest_spans
    from ragfunnel.analyzer.judges.run.batch import judge_store
    from ragfunnel.analyzer.store import StoreError, migrate
    from ragfunnel.analyzer.workflows import report_from_store
    from ragfunnel.testing import capture_spans

    @ragfunnel.retrieve(name="bm25")
    def search(query: str) -> list[dict[str, object]]:
        return [{"id": "hotel", "text": "The hotel allowance is 120 EUR a night.", "score": 0.9}]

    @ragfunnel.generate(model="m")
    def generate(question: str, context: list[dict[str, object]]) -> str:
        return "The hotel allowance is 120 EUR a night."

    @ragfunnel.question(id="case_id")
    def ask(case_id: str, question: str) -> str:
        return generate(question, search(question))

    with capture_spans(capture_content=True, run_id="r1") as spans:
        ask("hotel", "How much is the hotel allowance?")
    cases = CaseSet.of([Case("hotel", "How much?", parse_evidence({"all_of": ["hotel"]}))])

    path = tmp_path / "store"
    missing = tmp_path / "typo"
    for reader in (
        lambda where: analyze(where, cases),
        lambda where: judge_store(where),
        lambda where: migrate(where),
        lambda where: report_from_store(where, cases),
    ):
        with pytest.raises(StoreError, match="there is no store at"):
            reader(str(missing))  # reading, judging, migrating: never a new store
    assert not missing.exists()

    assert ingest_spans(str(path), spans.spans).inserted == len(spans.spans)  # ingest creates
    assert ingest_lines(f"chdb://{path}", []).inserted == 0
    migrate(path)  # a PathLike
    assert judge_store(store=str(path)).judged == 1  # by keyword too
    records = analyze(store=f"chdb://{path}", cases=cases).records
    assert records.get_column("first_failure").to_list() == ["ok"]
    assert report_from_store(str(path), cases).result.records.height == 1
    with Store.open(str(path)) as store:  # left open when given open
        assert analyze(store, cases).records.height == 1
        assert store.query_arrow("SELECT 1 AS one").num_rows == 1
