"""Plain JSON Lines cases read by the optional native package, without a Python object per case.

``ragfunnel_native.plain_cases`` (``native/src/cases.rs``) reads a block of lines whose cases
all have the simplest plain shapes (string ids, evidence as ids or one ``all_of`` / ``any_of``
group of ids, string facts and reference, a boolean ``answerable``) into Arrow buffers, and
declines any other block, which ``bulk_readers`` then reads as before. The frame made here is
the one :func:`~ragfunnel.analyzer.cases.plain_shapes.plain_batch` makes of the same lines, and
the same checks flag the rows the full validation must see; the tests compare both on
generated files. A million cases (138 MB) load in 0.82–0.86 s against 1.91–1.98 s. Without
the package, or with ``RAGFUNNEL_NATIVE=0``, every block takes the msgspec path. Never touches
the store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pyarrow as pa

import ragfunnel.environment_variables as env
from ragfunnel.analyzer.cases.plain_shapes import flagged_rows

__all__ = ["native_reader"]

_KINDS = {1: "leaf", 2: "all", 3: "any"}
_NULL = 2  # the native reader's byte for a null boolean

Reader = Callable[[bytes, int], "tuple[pl.DataFrame, list[int]] | None"]


def native_reader() -> Reader | None:
    """``read(block, first_line)``: a block's frame and flagged rows, or None; None without it."""
    if env.turned_off(env.NATIVE):
        return None
    try:
        from ragfunnel_native import plain_cases
    except ImportError:  # not installed, or a build older than this reader
        return None

    def read(block: bytes, first_line: int) -> tuple[pl.DataFrame, list[int]] | None:
        found = plain_cases(block)
        return None if found is None else _frame(found, first_line)

    return read


def _frame(found: tuple[Any, ...], first_line: int) -> tuple[pl.DataFrame, list[int]]:
    rows, ids, questions, answerable, kinds, items, facts, reference, has_reference = found
    flags = _bytes(answerable, rows)
    kind = _bytes(kinds, rows)
    given = _bytes(has_reference, rows)
    frame = pl.DataFrame(
        [
            _strings(ids, rows).alias("id"),
            _strings(questions, rows).alias("question"),
            pl.select(
                pl.when(flags != _NULL).then(flags == 1).otherwise(True).alias("answerable")
            ).to_series(),
            _lists(items, rows).alias("items"),
            kind.replace_strict(_KINDS, default=None, return_dtype=pl.String).alias("root_kind"),
            _lists(facts, rows).alias("facts"),
            pl.select(pl.when(given == 1).then(_strings(reference, rows)))
            .to_series()
            .alias("reference"),
            pl.int_range(first_line, first_line + rows, dtype=pl.Int32, eager=True).alias("line"),
        ]
    )
    return frame, sorted(flagged_rows(frame))


def _bytes(data: bytes, rows: int) -> pl.Series:
    array = pa.Array.from_buffers(pa.uint8(), rows, [None, pa.py_buffer(data)])
    return pl.Series(array)


def _string_array(parts: tuple[bytes, bytes], rows: int) -> pa.Array:
    offsets, data = parts
    return pa.Array.from_buffers(
        pa.string(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def _strings(parts: tuple[bytes, bytes], rows: int) -> pl.Series:
    return pl.Series(_string_array(parts, rows))


def _lists(parts: tuple[bytes, bytes, bytes], rows: int) -> pl.Series:
    lists, offsets, data = parts
    values = _string_array((offsets, data), (len(offsets) >> 2) - 1)
    array = pa.ListArray.from_arrays(
        pa.Array.from_buffers(pa.int32(), rows + 1, [None, pa.py_buffer(lists)]), values
    )
    return pl.Series(array)
