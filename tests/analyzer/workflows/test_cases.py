"""``workflows/cases.py``: ``cases rebase``'s output choices and the index version it needs.

(The rewriting itself: ``tests/analyzer/cli/test_cases_rebase.py``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import CaseSet, write_cases
from ragfunnel.analyzer.errors import InvalidArgument
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.workflows import rebase_from_store, rebased_path
from tests.support.decisions import case
from tests.support.traces import TraceBuilder


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    write_cases(CaseSet.of([case()]), path)
    return path


def test_the_default_output_sits_beside_the_cases() -> None:
    assert rebased_path(Path("dir/cases.yaml")) == Path("dir/cases.rebased.yaml")
    assert rebased_path(Path("golden.yml")) == Path("golden.rebased.yml")


def test_the_input_is_never_overwritten_unless_asked(store: Store, cases_file: Path) -> None:
    before = cases_file.read_text(encoding="utf-8")
    with pytest.raises(InvalidArgument, match="the output is the cases file itself") as caught:
        rebase_from_store(store, cases_file, from_index="v1", output=cases_file)
    assert caught.value.argument == "output"
    with pytest.raises(InvalidArgument, match="give --output or --in-place, not both"):
        rebase_from_store(store, cases_file, from_index="v1", output="other.yaml", in_place=True)
    assert cases_file.read_text(encoding="utf-8") == before


def test_an_index_version_the_store_lacks_is_named_with_those_it_holds(
    store: Store, cases_file: Path
) -> None:
    b = TraceBuilder()
    b.ingest("runbook", ["runbook#1"], version="v7")
    b.into(store)
    with pytest.raises(InvalidArgument, match=r"index version 'v1' .*\(versions with ingest "
                       r"spans: 'v7'\)") as caught:  # fmt: skip
        rebase_from_store(store, cases_file, from_index="v1")
    assert caught.value.argument == "from_index"
    assert not rebased_path(cases_file).exists()
