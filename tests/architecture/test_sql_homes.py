"""No SQL statement against a table outside ``store/`` (issue 20): a scan of the package source.

Every string literal of every module (docstrings left out; an f-string's placeholders read as
``{}``) is searched for a statement against a table — ``SELECT … FROM``, ``INSERT INTO``,
``CREATE``/``DROP``/``ALTER`` of a table or view, ``DELETE FROM``. Only ``ragfunnel/analyzer/store/``
may hold one, and the two SQL builders that the store runs: the conventions' SELECT assembler
(``conventions/assemble.py``) and the funnel's query builder (``funnel/read/sql/``).
"""

from __future__ import annotations

import re
from pathlib import Path

import ragfunnel
from tests.support.literals import literals

PACKAGE = Path(ragfunnel.__file__).parent
STORE = PACKAGE / "analyzer" / "store"
ALLOWED = (
    PACKAGE / "analyzer" / "conventions" / "assemble.py",
    PACKAGE / "analyzer" / "funnel" / "read" / "sql",
)

STATEMENT = re.compile(
    r"\bSELECT\b[\s\S]*?\bFROM\b"
    r"|\bINSERT\s+INTO\b"
    r"|\b(?:CREATE|DROP|ALTER|ATTACH|DETACH|RENAME|TRUNCATE)\s+(?:TEMPORARY\s+)?"
    r"(?:TABLE|VIEW|MATERIALIZED\s+VIEW|DATABASE|DICTIONARY)\s+"
    # … followed by a name: ``IF NOT EXISTS``, a quoted or placeholder name, or a plain one
    # that a statement goes on from (not prose such as "needs CREATE TABLE rights").
    r"(?:IF\b|[`{]|\w+\s*[.(]|\w+\s+(?:AS|TO|ENGINE|ON|ADD|DROP|MODIFY)\b)"
    r"|\bDELETE\s+FROM\b"
    r"|\bOPTIMIZE\s+TABLE\b"
)
"""A statement that names a table (upper-case keywords, as every statement here is written)."""


def statements_in(path: Path) -> list[str]:
    """``path:line: text`` of every SQL statement in ``path``'s literals."""
    found = []
    for line, text in literals(path.read_text(encoding="utf-8")):
        match = STATEMENT.search(text)
        if match:
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {match.group(0)[:60]!r}")
    return found


def _outside_store(path: Path) -> bool:
    if path.is_relative_to(STORE):
        return False
    return not any(path == a or path.is_relative_to(a) for a in ALLOWED)


def test_the_scan_finds_statements() -> None:
    # The scan must be able to fail: each kind of statement, in each way a literal is written.
    table = "t"
    samples = (
        "SELECT a FROM t",
        f"SELECT a\n FROM {table} WHERE x",
        "INSERT INTO `db`.`t` (a) VALUES (1)",
        "CREATE TEMPORARY TABLE `x` (a String) ENGINE = Memory",
        "CREATE MATERIALIZED VIEW IF NOT EXISTS v TO t AS SELECT 1",
        "DROP TABLE IF EXISTS t",
        "ALTER TABLE t ADD COLUMN c String",
        "DELETE FROM t WHERE 1",
    )
    for sample in samples:
        assert STATEMENT.search(sample), sample
    source = (
        'def f(t):\n    """SELECT x FROM y in a docstring."""\n    return f"SELECT a FROM {t}"\n'
    )
    assert [text for _, text in literals(source)] == ["SELECT a FROM {}"]
    for harmless in (
        "select the answers from the store",
        "the SELECT the view runs",
        "FROM a",
        "Needs CREATE TABLE, CREATE VIEW, INSERT and DROP on the database",
        "a user without CREATE TABLE rights",
    ):
        assert not STATEMENT.search(harmless), harmless


def test_no_sql_statement_outside_the_store() -> None:
    found = [
        statement
        for path in sorted(PACKAGE.rglob("*.py"))
        if _outside_store(path)
        for statement in statements_in(path)
    ]
    assert not found, "SQL against a table outside ragfunnel/analyzer/store/:\n" + "\n".join(found)


def test_the_store_holds_statements() -> None:
    # The scan reads the store's own modules the same way: it would see a statement moved there.
    assert any(statements_in(path) for path in (STORE / "tables").rglob("*.py"))
