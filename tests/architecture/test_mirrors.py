"""Tests mirror modules (issue 33): each module of the analyzer's core packages has its test.

A module ``ragfunnel/analyzer/<pkg>/…/<name>.py`` is tested at ``tests/analyzer/<pkg>/…/
test_<name>.py``; a module with no behaviour of its own (types, a re-export, an error class)
is listed in :data:`NO_BEHAVIOUR` with the reason, and a listed module that gains a test, or
disappears, must leave the list. So a new module without a test fails here, and a newcomer
knows where a module's tests are.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ragfunnel

PACKAGE = Path(ragfunnel.__file__).parent
TESTS = PACKAGE.parent / "tests"
MIRRORED = ("judges", "funnel", "store", "cases", "language")
"""The analyzer packages whose modules have a test each (issue 33: judges, funnel, store at
least)."""

NO_BEHAVIOUR: dict[str, str] = {
    "funnel/read/source.py": "a re-export of store/stage_source.py, tested there",
    "store/store_error.py": "the error class alone; its messages are tested where they are made "
    "(test_dsn, test_connection, test_clients)",
}
"""Modules (relative to ``ragfunnel/analyzer``) without a test of their own, and why."""


def _modules() -> list[str]:
    analyzer = PACKAGE / "analyzer"
    return sorted(
        str(path.relative_to(analyzer))
        for package in MIRRORED
        for path in (analyzer / package).rglob("*.py")
        if path.name != "__init__.py" and "__pycache__" not in path.parts
    )


def _test_of(module: str) -> Path:
    path = Path(module)
    return TESTS / "analyzer" / path.parent / f"test_{path.name}"


def test_every_module_with_behaviour_has_its_test_at_the_mirrored_path() -> None:
    missing = [m for m in _modules() if m not in NO_BEHAVIOUR and not _test_of(m).exists()]
    assert not missing, (
        f"no test at the mirrored path (tests/analyzer/…/test_<module>.py): {missing}"
    )


def test_the_list_of_modules_without_behaviour_is_current() -> None:
    modules = set(_modules())
    gone = [m for m in NO_BEHAVIOUR if m not in modules]
    tested = [m for m in NO_BEHAVIOUR if m in modules and _test_of(m).exists()]
    assert not gone, f"listed but no longer a module: {gone}"
    assert not tested, f"listed as without behaviour but tested: take them off the list: {tested}"


READS_OTHER_TESTS = {"analyzer/test_read_path.py"}
"""Test modules allowed to import another test module: the read-path test re-runs the funnel
tests' trace scenarios at read time (docs/architecture.md, "Tests")."""


def test_a_test_module_imports_helpers_from_tests_support_never_from_another_test() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("test_*.py")):
        name = str(path.relative_to(TESTS))
        if name in READS_OTHER_TESTS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if module and module.startswith("tests.") and not module.startswith("tests.support"):
                offenders.append(f"{name}:{node.lineno} {module}")
    assert not offenders, f"import helpers from tests/support instead: {offenders}"
