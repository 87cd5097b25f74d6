"""Arrow arrays of Python values, built from their buffers.

pyarrow's own conversion of Python values (``pa.array``, ``pa.scalar``, ``Table.from_pylist``,
a Python ``str`` or ``int`` handed to a compute function) first asks whether pandas is installed, and so
imports it: 0.17 s and ~42 MiB of an ingest that never uses it (bench/RESULTS.md, "Issue 35,
seventeenth session"). Arrays built here from bytes never ask.
"""

from __future__ import annotations

import array
import itertools
from collections.abc import Sequence

import pyarrow as pa

__all__ = ["booleans", "integers", "strings"]

_INTEGER_CODES = {pa.int64(): "q", pa.uint64(): "Q", pa.int32(): "i", pa.uint8(): "B"}


def strings(values: Sequence[str]) -> pa.Array:
    """A ``string`` array of ``values`` (no nulls, under 2 GiB of text in all)."""
    encoded = [value.encode() for value in values]
    offsets = array.array("i", [0, *itertools.accumulate(map(len, encoded))])
    return pa.StringArray.from_buffers(
        len(encoded), pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))
    )


def integers(values: Sequence[int], kind: pa.DataType) -> pa.Array:
    """An integer array of ``values`` (no nulls); ``kind`` is int64, uint64, int32 or uint8."""
    data = array.array(_INTEGER_CODES[kind], values)
    return pa.Array.from_buffers(kind, len(data), [None, pa.py_buffer(data)])


def booleans(values: Sequence[bool]) -> pa.Array:
    """A ``bool`` array of ``values`` (no nulls)."""
    return integers([int(value) for value in values], pa.uint8()).cast(pa.bool_())
