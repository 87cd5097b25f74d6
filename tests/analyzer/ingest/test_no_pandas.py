"""An ingest never makes pyarrow import pandas (0.17 s and ~42 MiB of its peak for nothing).

pyarrow imports pandas at the first Python value it converts; the ingest builds such arrays
from their buffers (``store/arrow_values.py``). bench/RESULTS.md, "Issue 35, seventeenth
session": the 5M-span ingest's peak 1,000 → 926 MiB (medians of five).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.otlp_json import line, span

PROBE = """
import sys
from pathlib import Path
from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.store import Store
with Store.open('chdb://' + sys.argv[1], create=True) as store:
    ingest_paths(store, [Path(sys.argv[2])])
    summary = ingest_paths(store, [Path(sys.argv[3])])
print(summary.inserted, summary.duplicates, 'pandas' in sys.modules)
"""


def test_an_ingest_that_drops_copies_and_mends_the_stage_table_imports_no_pandas(
    tmp_path: Path,
) -> None:
    # The second file repeats a stored span (the identity check drops it) and lies where the
    # store already holds spans (the stage table is mended there); both files are logged.
    (tmp_path / "a.jsonl").write_text(line(span(1), span(2)) + "\n")
    (tmp_path / "b.jsonl").write_text(line(span(2), span(3)) + "\n")
    found = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "store"), str(tmp_path / "a.jsonl"),
         str(tmp_path / "b.jsonl")],
        capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    assert found.stdout.split() == ["1", "1", "False"]
