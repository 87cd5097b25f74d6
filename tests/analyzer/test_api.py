import subprocess
import sys

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
