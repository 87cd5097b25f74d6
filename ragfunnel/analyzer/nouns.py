"""Counted nouns that agree in number: ``1 answer``, ``2 answers``, ``12,000 questions``.

The one rule for them, at the bottom of the layers so that the funnel's reasons, the judges'
outcome, the report and the command line all use it (``report.wording`` re-exports it with the
report's other number shapes). :func:`count_expr` is the same rule as a polars expression, for
texts built column-wise (a funnel reason, ``not retrieved (1 candidate)``). Standard library
only; polars is imported by :func:`count_expr` alone, when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

__all__ = ["count", "count_expr", "plural"]

_IRREGULAR = {"was": "were", "is": "are", "has": "have", "this": "these", "it": "they"}


def plural(n: int, singular: str, many: str | None = None) -> str:
    """The noun for ``n`` things: ``singular`` for exactly one, else ``many`` (default ``+s``)."""
    if n == 1:
        return singular
    return many if many is not None else _IRREGULAR.get(singular, singular + "s")


def count(n: int, singular: str, many: str | None = None) -> str:
    """``1 answer``, ``2 answers``, ``12,000 questions``."""
    return f"{n:,} {plural(n, singular, many)}"


def count_expr(n: pl.Expr, singular: str, many: str | None = None) -> pl.Expr:
    """:func:`count` of each row's ``n``, as a string column (``n`` as polars writes it)."""
    import polars as pl

    noun = pl.when(n == 1).then(pl.lit(singular)).otherwise(pl.lit(plural(2, singular, many)))
    return pl.format("{} {}", n, noun)
