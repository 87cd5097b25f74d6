"""The string literals of a module's source, docstrings left out: what the home scans read.

``tests/architecture/`` scans the package for SQL, attribute names and the environment with it.
"""

from __future__ import annotations

import ast
import itertools

__all__ = ["literals"]


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
        # An attribute's docstring: a string expression right after an assignment.
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for before, after in itertools.pairwise(body):
                if (
                    isinstance(before, (ast.Assign, ast.AnnAssign))
                    and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant)
                ):
                    found.add(id(after.value))
    return found


def literals(source: str) -> list[tuple[int, str]]:
    """Every string literal of ``source`` but docstrings, with its line."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    inner: set[int] = set()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                inner.add(id(value))
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    parts.append(value.value)
                else:
                    parts.append("{}")
            out.append((node.lineno, "".join(parts)))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and id(node) not in inner
        ):
            out.append((node.lineno, node.value))
    return out
