"""docs/environment-variables.md and ragfunnel/environment_variables.py list the same variables.

Every ``RAGFUNNEL_*`` name the package reads comes from that one module; every name anywhere in
the repository (docs, collector configuration, scripts, benchmarks, tests) is on the page.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import ragfunnel.environment_variables as env

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "environment-variables.md").read_text(encoding="utf-8")
NAME = re.compile(r"RAGFUNNEL_[A-Z][A-Z0-9_]*")
MODULE = ROOT / "ragfunnel" / "environment_variables.py"


def _package_table() -> list[tuple[str, str, str]]:
    section = PAGE.split("## Variables of the tools around the package")[0]
    rows = re.findall(r"^\| `(RAGFUNNEL_[A-Z0-9_]+)` \| (\w+) \| (.*) \|$", section, re.MULTILINE)
    return [(name, part, doc) for name, part, doc in rows]


def _tooling_names() -> set[str]:
    return set(NAME.findall(PAGE.split("## Variables of the tools around the package")[1]))


def test_the_page_lists_every_variable_of_the_module_with_its_text_in_order() -> None:
    module = [(v.name, v.part, v.doc) for v in env.VARIABLES.values()]
    assert _package_table() == module
    assert {"RAGFUNNEL_SERVICE_NAME", "RAGFUNNEL_DEMO_LLM_URL"} <= set(env.VARIABLES)
    # Each constant is the name it is registered under, and each is exported.
    constants = {getattr(env, n) for n in env.__all__ if n.isupper() and n != "VARIABLES"}
    assert constants == set(env.VARIABLES)


def test_no_module_of_the_package_spells_a_variable_name_of_its_own() -> None:
    own: list[str] = []
    unknown: list[str] = []
    for path in sorted((ROOT / "ragfunnel").rglob("*.py")):
        if path == MODULE:
            continue
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        unknown += [f"{where}: {n}" for n in NAME.findall(text) if n not in env.VARIABLES]
        for node in ast.walk(ast.parse(text)):
            is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if is_text and NAME.fullmatch(node.value):
                own.append(f"{where}:{node.lineno}: {node.value!r}")
    assert own == [], "read the name from ragfunnel.environment_variables"
    assert unknown == [], "add the variable to ragfunnel/environment_variables.py"


def test_every_name_in_the_repository_is_on_the_page_and_every_tool_name_is_used() -> None:
    found: dict[str, set[str]] = {}
    files = [ROOT / "README.md"]
    for place in ["collector_config", ".ci", "scripts", "bench", "tests", "examples", "docs"]:
        files += [p for p in (ROOT / place).rglob("*") if p.is_file() and p.suffix != ".png"]
    for path in files:
        if "__pycache__" in path.parts:
            continue
        for name in NAME.findall(path.read_text(encoding="utf-8", errors="replace")):
            found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    known = set(env.VARIABLES) | _tooling_names()
    assert {n: sorted(w) for n, w in found.items() if n not in known} == {}
    page = "docs/environment-variables.md"
    assert sorted(n for n in _tooling_names() if not found.get(n, set()) - {page}) == []
