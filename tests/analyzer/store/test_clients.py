"""``store/clients.py``: chdb's one path per process, another process's lock, a server's errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.store import Store, StoreError


def test_a_second_embedded_path_waits_for_the_first_to_close(tmp_path: Path) -> None:
    first = Store.open(f"chdb://{tmp_path / 'a'}", create=True)
    try:
        also_first = Store.open(f"chdb://{tmp_path / 'a'}", database="other", create=True)
        also_first.close()
        with pytest.raises(StoreError, match="one store path per process"):
            Store.open(f"chdb://{tmp_path / 'b'}", create=True)
    finally:
        first.close()
    with Store.open(f"chdb://{tmp_path / 'b'}", create=True) as second:
        assert second.command("SELECT 1") == 1


def test_an_unreachable_server_error_never_shows_the_password() -> None:
    with pytest.raises(StoreError) as caught:
        Store.open("http://bob:hunter2-secret@127.0.0.1:9/otel", create=True)
    assert "hunter2-secret" not in str(caught.value)
    assert "http://bob:***@127.0.0.1:9/otel" in str(caught.value)


def test_a_second_process_on_the_same_store_is_told_so_in_plain_words(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    path = tmp_path / "store"
    child = (
        "import sys\nfrom ragfunnel.analyzer.store import Store, StoreError\n"
        "try:\n    Store.open('chdb://' + sys.argv[1], create=True)\n"
        "except StoreError as exc:\n    print(exc)\n"
    )
    with Store.open(f"chdb://{path}", create=True):
        found = subprocess.run(
            [sys.executable, "-c", child, str(path)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            check=True,
        )
    assert f"the store chdb://{path} is in use by another process (pid " in found.stdout
    assert "EmbeddedServer" not in found.stdout and "BAD_ARGUMENTS" not in found.stdout


def test_the_engine_is_freed_only_when_the_last_store_on_its_path_closes(tmp_path: Path) -> None:
    first = Store.open(f"chdb://{tmp_path / 'a'}", create=True)
    second = Store.open(f"chdb://{tmp_path / 'a'}", database="other", create=True)
    first.close()
    with pytest.raises(StoreError, match=rf"bound to chdb://{tmp_path / 'a'} until every store"):
        Store.open(f"chdb://{tmp_path / 'b'}", create=True)  # the second still holds it
    second.close()
    with Store.open(f"chdb://{tmp_path / 'b'}", create=True) as elsewhere:
        assert elsewhere.command("SELECT 1") == 1


def test_a_refused_open_creates_no_folder(tmp_path: Path) -> None:
    with Store.open(f"chdb://{tmp_path / 'a'}", create=True):
        with pytest.raises(StoreError, match="one store path per process"):
            Store.open(f"chdb://{tmp_path / 'b'}", create=True)
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("read_only", [False, True])
def test_the_embedded_engine_hands_results_over_uncompressed(
    tmp_path: Path, read_only: bool
) -> None:
    # Compressing a result for pyarrow to decompress in the same process cost a tenth of a
    # funnel batch's query (bench/RESULTS.md, "Issue 35, seventeenth session").
    path = tmp_path / "store"
    Store.open(f"chdb://{path}", create=True).close()
    with Store.open_for_analysis(f"chdb://{path}", read_only=read_only) as store:
        settings = store.query_df(
            "SELECT name, value FROM system.settings WHERE name IN "
            "('output_format_arrow_compression_method', 'output_format_arrow_parallel_encoding')"
        )
        values = dict(settings.iter_rows())
        assert values == {
            "output_format_arrow_compression_method": "none",
            "output_format_arrow_parallel_encoding": "0",
        }
        rows = store.query_df("SELECT number AS n, toString(number) AS s FROM numbers(3)")
        assert rows.to_dicts() == [{"n": 0, "s": "0"}, {"n": 1, "s": "1"}, {"n": 2, "s": "2"}]
