"""``store/opening.py``: a public function takes an open store, a DSN or a path (``takes_store``).

A DSN or path is opened as the function's purpose needs and closed after the call; an open store
is used as given and left open.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.store import Store, StoreArg, StoreError, takes_store

Seen = list[tuple[bool, bool, str]]


def _describe(store: StoreArg, seen: Seen) -> str:
    assert isinstance(store, Store)
    seen.append((store.embedded, store.read_only, store.database))
    return str(store.command("SELECT 'answered'"))


ingesting = takes_store("ingest")(_describe)
writing = takes_store("write")(_describe)
analysing = takes_store("analysis")(_describe)


def _engine_is_free(tmp_path: Path) -> bool:
    """Whether a store on yet another path opens: only when every other store was closed."""
    with Store.open(f"chdb://{tmp_path / 'elsewhere'}", create=True):
        return True


def test_a_dsn_a_path_or_a_keyword_is_opened_for_the_call_and_closed_after(
    tmp_path: Path,
) -> None:
    seen: Seen = []
    dsn = f"chdb://{tmp_path / 'st'}"
    assert ingesting(dsn, seen) == "answered"  # ingest creates the store
    assert (tmp_path / "st").is_dir()
    assert writing(tmp_path / "st", seen) == "answered"  # an os.PathLike
    assert analysing(store=str(tmp_path / "st"), seen=seen) == "answered"  # by keyword
    assert seen == [(True, False, "otel")] * 3  # the embedded store stays the user's, writable
    assert _engine_is_free(tmp_path)  # every store the calls opened was closed


def test_an_open_store_is_used_as_given_and_left_open(store: Store) -> None:
    seen: Seen = []
    assert writing(store, seen) == "answered"
    assert analysing(store, seen=seen) == "answered"
    assert seen == [(True, False, store.database)] * 2
    assert store.command("SELECT 1") == 1  # still open


@pytest.mark.parametrize("decorated", [writing, analysing], ids=["write", "analysis"])
def test_only_ingest_creates_a_store(tmp_path: Path, decorated: object) -> None:
    missing = tmp_path / "typo" / "store"
    with pytest.raises(StoreError, match="there is no store at"):
        decorated(str(missing), [])  # type: ignore[operator]
    assert not missing.exists() and not missing.parent.exists()


def test_the_store_is_closed_when_the_function_raises(tmp_path: Path) -> None:
    @takes_store("ingest")
    def failing(store: StoreArg) -> None:
        raise RuntimeError("inside")

    with pytest.raises(RuntimeError, match="inside"):
        failing(f"chdb://{tmp_path / 'st'}")
    assert _engine_is_free(tmp_path)


def test_anything_else_reaches_the_function_as_given() -> None:
    @takes_store("write")
    def given(store: StoreArg) -> object:
        return store

    marker = object()
    assert given(marker) is marker  # type: ignore[arg-type]  # the function reports it
    assert given(store=None) is None  # type: ignore[arg-type]


def test_the_first_parameter_must_be_store() -> None:
    def wrong(dsn: str) -> None: ...

    with pytest.raises(TypeError, match="wrong: the first parameter must be 'store'"):
        takes_store("write")(wrong)


def test_the_decorated_function_keeps_its_name_and_docstring() -> None:
    @takes_store("analysis")
    def documented(store: StoreArg) -> None:
        """What it does."""

    assert documented.__name__ == "documented" and documented.__doc__ == "What it does."
