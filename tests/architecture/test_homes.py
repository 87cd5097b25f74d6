"""One home for each kind of thing (issue 33): the environment, attribute names, SQL.

A scan of the package's source: no module but ``environment_variables.py`` reads the
environment; no module but the span contract (``instrumentation/contract.py``) and the
analyzer's conventions (``analyzer/conventions/``, which read other tools' names) spells an
attribute name. SQL is ``tests/architecture/test_sql_homes.py``'s.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import ragfunnel
from ragfunnel.instrumentation import contract
from tests.support.literals import literals

PACKAGE = Path(ragfunnel.__file__).parent
ENVIRONMENT = PACKAGE / "environment_variables.py"
NAMES_HOMES = (PACKAGE / "instrumentation" / "contract.py", PACKAGE / "analyzer" / "conventions")

CONTRACT_NAMES = {
    value
    for name, value in vars(contract).items()
    if name.isupper() and isinstance(value, str) and "." in value
}
FOREIGN = re.compile(
    r"^(?:gen_ai|openinference|llm|retrieval|reranker|service)\.[a-z_]+(?:\.[a-z_]+)*$"
)


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _reads_environment(tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and node.attr in ("environ", "getenv", "environb", "getenvb")
        )
        or (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(a.name in ("environ", "getenv") for a in node.names)
        )
    ]


def test_only_environment_variables_reads_the_environment() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in _modules()
        if path != ENVIRONMENT
        for line in _reads_environment(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offenders == [], "read it with ragfunnel.environment_variables.read: " + str(offenders)


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def test_attribute_names_are_spelt_only_in_the_contract_and_the_conventions() -> None:
    offenders = []
    for path in _modules():
        if any(path == home or home in path.parents for home in NAMES_HOMES):
            continue
        for line, text in literals(path.read_text(encoding="utf-8")):
            if text in CONTRACT_NAMES or (FOREIGN.match(text) and not _is_module(text)):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {text!r}")
    assert offenders == [], "name it by its contract constant: " + "\n".join(offenders)


def test_the_scans_find_what_they_look_for() -> None:
    """The scans can fail: each finds a planted offence."""
    planted = "import os\nkey = 'gen_ai.evaluation.name'\nx = os.environ.get('X')\n"
    assert _reads_environment(ast.parse(planted)) == [3]
    assert [t for _, t in literals(planted) if FOREIGN.match(t)] == ["gen_ai.evaluation.name"]
    assert contract.QUESTION_ID in CONTRACT_NAMES
    assert [t for _, t in literals(f"a = {contract.QUESTION_ID!r}\n") if t in CONTRACT_NAMES]


WORD_LIST_HOME = PACKAGE / "analyzer" / "language" / "lexicon.py"
WORD_LIST_PACKAGES = (
    PACKAGE / "analyzer" / "language",
    PACKAGE / "analyzer" / "judges" / "offline",
)
"""Where the judges' language rules live; their word lists belong in the lexicon."""
_NATURAL_WORD = re.compile(r"^[a-zäöüß][a-zäöüß .'’-]*$")
MANY = 6
"""A module-level collection of this many lower-case words or more is a word list."""


def _word_lists(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in tree.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        target = ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node.target)
        if target == "__all__" or target.endswith("FEATURES"):  # names, not words
            continue
        strings = [
            c.value
            for c in ast.walk(node.value)
            if isinstance(c, ast.Constant) and isinstance(c.value, str)
        ]
        words = [w for s in strings for w in (s.split() if "\n" in s else [s])]
        if len(words) >= MANY and all(_NATURAL_WORD.match(w) for w in words):
            found.append((node.lineno, target))
    return found


def test_every_word_list_of_the_judges_is_in_the_lexicon() -> None:
    """Issue 33: every word list in one lexicon (docs/architecture.md, "word list")."""
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line} {name}"
        for package in WORD_LIST_PACKAGES
        for path in sorted(package.rglob("*.py"))
        if path != WORD_LIST_HOME and "__pycache__" not in path.parts
        for line, name in _word_lists(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not offenders, f"word lists outside language/lexicon.py: {offenders}"


def test_the_word_list_scan_finds_a_word_list() -> None:
    tree = ast.parse('WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday",'
                     ' "friday", "saturday"])\n__all__ = ["a", "b", "c", "d", "e", "f"]')  # fmt: skip
    assert _word_lists(tree) == [(1, "WEEKDAYS")]
