"""The wide layout of the funnel's frames: column names and the bit packing, in one place.

The funnel query returns one row per question instance. Per stage (``cand`` for the candidate
retrieval, ``rr`` rerank, ``cut``, ``gen`` generate) it returns ``{stage}_{field}`` columns: the
span count, the chosen span's small fields packed into one UInt64 (``{stage}_meta``, laid out
by :data:`META_FIELDS`), and the positions of the case's evidence items packed four to a UInt64
word (``{stage}_pk{w}`` for the output list, ``{stage}_in_pk{w}`` for the input list). Item j of
a case then lives in *slot* j of the polars frames: ``cand_{j}``, ``code_{j}``, ``in_index_{j}``
... (:func:`slot`).

``read/sql/`` packs with the SQL builders here, the polars modules unpack with the expressions
here; no other module spells a column-name pattern, a shift or a multiplier. Nothing here
touches a store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import polars as pl

__all__ = [
    "ITEMS_PER_WORD",
    "META_FIELDS",
    "POSITION_BITS",
    "POSITION_CAP",
    "STAGE_PREFIXES",
    "item_hash",
    "meta_field",
    "meta_sql",
    "positions_sql",
    "slot",
    "stage_column",
    "unpack_position",
    "word",
    "words",
]

STAGE_PREFIXES: dict[str, str] = {
    "retrieve": "cand",
    "rerank": "rr",
    "cut": "cut",
    "generate": "gen",
}
"""The prefix of each stage's columns in the funnel query's rows."""

ITEMS_PER_WORD = 4
POSITION_BITS = 16
POSITION_CAP = (1 << POSITION_BITS) - 1
"""Positions are stored in 16 bits; a position at or beyond this is reported as this."""

# A span's small fields packed into one UInt64 ("meta"), so that each stage costs one aggregate
# state for all of them (ClickHouse keeps one state per aggregate and group: with a million
# questions, fewer states is what keeps memory and time down). Field: (lowest bit, width). Bits
# 5-7 are spare.
META_FIELDS: dict[str, tuple[int, int]] = {
    "error": (0, 1),
    "has_ids": (1, 1),
    "has_input": (2, 1),
    "abstained": (3, 1),
    "has_answer": (4, 1),
    "n": (8, 24),
    "n_in": (32, 24),
    "n_low_confidence": (56, 8),
}


def words(items: int) -> int:
    """How many packed words hold the positions of ``items`` items."""
    return -(-items // ITEMS_PER_WORD)


def slot(name: str, j: int) -> str:
    """The column of item slot ``j`` for ``name``: ``slot("cand", 3) == "cand_3"``."""
    return f"{name}_{j}"


def word(name: str, w: int) -> str:
    """The ``w``-th packed positions word of ``name``: ``word("cand_pk", 0) == "cand_pk0"``."""
    return f"{name}{w}"


def stage_column(stage: str, field: str) -> str:
    """A stage's column in the funnel rows: ``stage_column("cand", "n") == "cand_n"``."""
    return f"{stage}_{field}"


def item_hash(j: int) -> str:
    """The match table's column holding the hash of a case's item ``j``."""
    return f"i{j}"


def positions_sql(array: str, w: int, items: int, item: Callable[[int], str]) -> str:
    """SQL packing the 1-based positions in ``array`` of items ``4w .. 4w+3`` into a UInt64.

    ``item(j)`` is the SQL of item j's hash; 0 means absent, positions are capped at
    :data:`POSITION_CAP`.
    """
    parts = []
    for position in range(ITEMS_PER_WORD):
        j = w * ITEMS_PER_WORD + position
        if j >= items:
            break
        pos = f"toUInt64(least(indexOf({array}, {item(j)}), {POSITION_CAP}))"
        shift = POSITION_BITS * position
        parts.append(pos if shift == 0 else f"bitShiftLeft({pos}, {shift})")
    expr = parts[0]
    for part in parts[1:]:
        expr = f"bitOr({expr}, {part})"
    return expr


def meta_sql(values: Mapping[str, str]) -> str:
    """SQL packing one span's fields into a UInt64 by :data:`META_FIELDS`.

    ``values`` maps every field to its SQL (a flag or a count); counts are capped at their
    width.
    """
    if set(values) != set(META_FIELDS):
        raise ValueError(f"meta fields {sorted(values)} != {sorted(META_FIELDS)}")
    terms = []
    for name, (shift, bits) in META_FIELDS.items():
        value = values[name] if bits == 1 else f"least({values[name]}, {(1 << bits) - 1})"
        terms.append(f"toUInt64({value})" + (f" * {1 << shift}" if shift else ""))
    return " + ".join(terms)


def meta_field(stage: str, name: str) -> pl.Expr:
    """One of a stage's small fields, unpacked from its ``{stage}_meta`` column."""
    shift, bits = META_FIELDS[name]
    return (pl.col(stage_column(stage, "meta")) // (1 << shift) % (1 << bits)).cast(pl.Int64)


def unpack_position(name: str, j: int) -> pl.Expr:
    """Item ``j``'s 1-based position from the packed words of ``name`` (``cand_pk`` ...).

    Null when the item is absent (position 0).
    """
    packed = pl.col(word(name, j // ITEMS_PER_WORD))
    value = (packed // (1 << (POSITION_BITS * (j % ITEMS_PER_WORD)))) % (1 << POSITION_BITS)
    return pl.when(value > 0).then(value.cast(pl.Int64))
