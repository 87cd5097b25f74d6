"""docs/architecture.md names modules and folders that exist (issue 33, Deliver 8).

Every path in backticks — a module (``store/tables/verdicts.py``), a folder (``judges/run/``),
a page (``docs/store.md``) — must name a file or folder of the repository: written relative to
the repository, or as the tail of a path in it (``tables/verdicts.py``, ``connection.py``). A
module renamed or moved without the page fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
NAMED = re.compile(r"`([\w./-]+(?:\.py|\.md|\.toml|/))`")


def _paths() -> list[str]:
    kept = ("ragfunnel", "tests", "docs", "bench", "native", "collector_config")
    return [
        str(p.relative_to(ROOT)) + ("/" if p.is_dir() else "")
        for top in kept
        for p in [ROOT / top, *(ROOT / top).rglob("*")]
        if "__pycache__" not in p.parts
    ] + ["pyproject.toml"]


def _missing(text: str, paths: list[str]) -> list[str]:
    return [
        name
        for name in sorted(set(NAMED.findall(text)))
        if not any(p == name or p.endswith("/" + name) for p in paths)
    ]


def test_every_path_the_architecture_page_names_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert len(NAMED.findall(text)) > 80  # the page names the modules it describes
    assert _missing(text, _paths()) == []


def test_a_missing_module_is_found() -> None:
    paths = _paths()
    assert _missing("`store/tables/verdicts.py` and `judges/run/`", paths) == []
    assert _missing("`store/tables/nowhere.py` and `judges/nowhere/`", paths) == [
        "judges/nowhere/",
        "store/tables/nowhere.py",
    ]
