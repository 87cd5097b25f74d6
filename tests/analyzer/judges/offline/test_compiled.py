"""The offline judge runs compiled exactly when it should (pyproject.toml's mypyc build hook).

``.ci/run`` builds the compiled wheel (``scripts/compiled-wheel``), unpacks it and runs the
judge's and the language tests on it with ``RAGFUNNEL_TEST_EXPECT_COMPILED=1``: there every
module the hook lists must be the compiled one, or that run tested the Python sources instead.
Everywhere else none may be: a module compiled in place beside its source would shadow it (a
source edit silently unused).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: pip's own copy
    from pip._vendor import tomli as tomllib

_PYPROJECT = Path(__file__).parents[4] / "pyproject.toml"


def _listed() -> list[str]:
    """The modules the mypyc hook compiles, as import names."""
    with _PYPROJECT.open("rb") as file:
        config = tomllib.load(file)
    paths = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["mypyc"]["include"]
    return [path.strip("/").removesuffix(".py").replace("/", ".") for path in paths]


def test_the_hook_lists_the_judges_hot_modules() -> None:
    listed = _listed()
    assert "ragfunnel.analyzer.judges.offline.align" in listed
    assert "ragfunnel.analyzer.language.terms" in listed
    for name in listed:  # every entry names a module that exists
        assert importlib.util.find_spec(name) is not None, name


def test_the_judge_is_compiled_exactly_when_expected() -> None:
    expected = os.environ.get("RAGFUNNEL_TEST_EXPECT_COMPILED") == "1"
    for name in _listed():
        module = importlib.import_module(name)
        compiled = not str(module.__file__).endswith(".py")
        assert compiled == expected, f"{name}: {module.__file__}"
