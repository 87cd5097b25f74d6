"""Index truth (``read/index_truth.py``): the manifest formats and their errors, the version a
question searched, and each item slot's ``in_index`` from a manifest, ingest spans or nothing."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.funnel.read.index_truth import IndexTruth, ManifestError, load_manifest

IDS = frozenset({"release-notes-4.2#known-issues", "runbook-reset#scope", "42"})


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("ids.txt", "# exported 2024-06-01\nrelease-notes-4.2#known-issues\n\n"
                    "  runbook-reset#scope  \n42\n"),
        ("ids.json", '["release-notes-4.2#known-issues", "runbook-reset#scope", 42]'),
        ("ids.JSON", '{"ids": ["release-notes-4.2#known-issues", "runbook-reset#scope", "42"]}'),
        ("ids.csv", "source,id\nnotes, release-notes-4.2#known-issues\nrunbook,runbook-reset#scope\n"
                    "x,42\ny,\nshort\n"),
        ("ids.csv", "release-notes-4.2#known-issues,a\nrunbook-reset#scope,b\n42,c\n"),
        ("ids.tsv", "id\tsource\nrelease-notes-4.2#known-issues\tn\nrunbook-reset#scope\tr\n42\tx\n"),
        ("ids.txt", "\ufeffrelease-notes-4.2#known-issues\nrunbook-reset#scope\n42\n"),
    ],
    ids=["txt", "json-array", "json-object", "csv-id-column", "csv-first-column", "tsv", "bom"],
)  # fmt: skip
def test_every_manifest_format_reads_the_same_ids(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert load_manifest(path) == IDS
    assert load_manifest(str(path)) == IDS  # a string path as well as a Path


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.json", '[\n"a",\n', r"bad\.json:3: invalid JSON: "),
        ("bad.json", '{"chunks": ["a"]}', r'bad\.json: expected a JSON array of ids \(or \{"ids"'),
        ("bad.json", '[["a"], "b"]', r"bad\.json: expected a JSON array of ids"),
        ("empty.csv", "", r"empty\.csv: the manifest is empty"),
    ],
)
def test_a_bad_manifest_names_its_file_and_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError, match=message) as caught:
        load_manifest(path)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, AnalyzerError)
    assert caught.value.argument == "index_manifest"


def test_an_unreadable_manifest_is_a_manifest_error(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match=r"missing\.txt: cannot read the index manifest"):
        load_manifest(tmp_path / "missing.txt")
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9#1\n")
    with pytest.raises(ManifestError, match=r"latin\.txt: cannot read the index manifest"):
        load_manifest(latin)


def _ingest_truth(*versions: str) -> IndexTruth:
    found = pl.DataFrame({"version": ["v1", "v2", "v2"], "id": ["a", "a", "b"]})
    return IndexTruth.from_ingest(found, versions)


def test_the_version_a_question_searched() -> None:
    two = _ingest_truth("v2", "v1")
    assert two.versions == ("v1", "v2")
    assert (two.version_of("v2"), two.version_of(""), two.version_of("v9")) == ("v2", None, None)
    one = _ingest_truth("v1")
    assert one.version_of("") == "v1"  # no version named: the only one ingested
    assert IndexTruth.from_ingest(pl.DataFrame({"version": [], "id": []}), ()).kind == "none"
    # An empty iterator is no version either (it is truthy, as any iterator).
    assert IndexTruth.from_ingest(pl.DataFrame({"version": [], "id": []}), iter(())).kind == "none"


def test_describe_names_the_source() -> None:
    assert IndexTruth.from_manifest({"a", "b"}).describe() == (
        "index manifest (2 expected ids present)"
    )
    assert _ingest_truth("v1", "").describe() == 'ingest spans, index version(s) "", v1'
    assert IndexTruth.none().describe() == (
        "none: items not retrieved are reported as ingestion_or_search"
    )


def _slots(versions: list[str]) -> pl.DataFrame:
    """Two item slots per question; the second slot is unused on the last row."""
    return pl.DataFrame(
        {"index_version": versions, "item_0": ["a"] * len(versions),
         "item_1": ["b"] * (len(versions) - 1) + [None]},
        schema={"index_version": pl.String, "item_0": pl.String, "item_1": pl.String},
    )  # fmt: skip


def _in_index(truth: IndexTruth, versions: list[str]) -> list[tuple[bool | None, bool | None]]:
    out = truth.in_index_slots(_slots(versions), 2)
    assert "_version" not in out.columns
    return out.select("in_index_0", "in_index_1").rows()


def test_in_index_from_ingest_spans_per_version() -> None:
    truth = _ingest_truth("v1", "v2")
    # v1 holds a only, v2 both; "" names no version and two exist: unknown; v9 was never
    # ingested: unknown; an unused slot stays null.
    assert _in_index(truth, ["v1", "v2", "", "v9", "v2"]) == [
        (True, False), (True, True), (None, None), (None, None), (True, None),
    ]  # fmt: skip
    assert _in_index(_ingest_truth("v1"), ["", "v1"]) == [(True, False), (True, None)]


def test_in_index_from_a_manifest_ignores_the_version() -> None:
    truth = IndexTruth.from_manifest(frozenset({"b"}))
    assert _in_index(truth, ["v1", "", "whatever"]) == [(False, True), (False, True), (False, None)]


def test_without_truth_every_slot_is_unknown() -> None:
    assert _in_index(IndexTruth.none(), ["v1", "v2"]) == [(None, None), (None, None)]
