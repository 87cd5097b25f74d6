"""The optional native converter (the ``ragfunnel-native`` package) and the Arrow it produces.

``ragfunnel_native.Converter`` turns whole OTLP JSON lines into ``otel_traces`` columns in
compiled code, releasing the GIL: about 4 µs per 2 KB span from the file to the Arrow table,
against about 27 µs for the Python path. It takes a line only when the Python path would take
it without a word (no skipped span, no repaired value, no rule it lacks), and declines it
otherwise. Both paths give the same rows: the tests compare them on generated documents.
Without the package, or with ``RAGFUNNEL_NATIVE=0``, every line takes the Python path.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any

import pyarrow as pa

import ragfunnel.environment_variables as env
from ragfunnel.analyzer.ingest.arrow_columns import TRACES_ARROW_SCHEMA
from ragfunnel.analyzer.ingest.rows import MAX_VALUE_CHARS

if TYPE_CHECKING:
    from ragfunnel_native import Converter

__all__ = ["NATIVE_ENV", "SharedSeen", "available", "converter", "table_from_parts"]

NATIVE_ENV = env.NATIVE
"""Set to ``0`` to read every line with the Python path (to compare, or to rule it out)."""

logger = logging.getLogger(__name__)


def available() -> bool:
    """Whether lines will be converted natively (the package is installed and not turned off)."""
    return converter() is not None


def converter() -> Converter | None:
    """A new native converter, or None."""
    if env.turned_off(NATIVE_ENV):
        return None
    try:
        from ragfunnel_native import Converter
    except ImportError:
        return None
    if not hasattr(Converter, "seen_get"):
        # A build older than this ragfunnel (it kept span keys without their start times, so
        # it could not tell a conflicting copy): every line takes the Python path.
        _warn_outdated()
        return None
    return Converter(MAX_VALUE_CHARS)


@functools.cache
def _warn_outdated() -> None:
    logger.warning(
        "ragfunnel-native is older than this ragfunnel; reading with the slower Python path "
        "(reinstall ragfunnel-native from this version's native/ to speed ingest up)"
    )


class SharedSeen:
    """The native converter's spans, as the Python builder's ``seen`` map: one chunk, one map."""

    __slots__ = ("_converter",)

    def __init__(self, converter: Converter) -> None:
        self._converter = converter

    def get(self, key: str, /) -> int | None:
        """The start time (ns) of span ``key`` in this chunk, or None."""
        return self._converter.seen_get(key)

    def __setitem__(self, key: str, start: int, /) -> None:
        self._converter.seen_add(key, start)

    def clear(self) -> None:
        """Forget every span."""
        self._converter.seen_clear()


def table_from_parts(parts: dict[str, Any]) -> pa.Table:
    """The Arrow table of ``Converter.finish()``'s buffers (no copy: the arrays wrap them)."""
    rows = parts["rows"]
    columns = [_array(field.type, parts[field.name], rows) for field in TRACES_ARROW_SCHEMA]
    return pa.Table.from_arrays(columns, schema=TRACES_ARROW_SCHEMA)


def _int32s(data: bytes) -> pa.Array:
    return pa.Array.from_buffers(pa.int32(), len(data) // 4, [None, pa.py_buffer(data)])


def _strings(offsets: bytes, data: bytes) -> pa.Array:
    return pa.Array.from_buffers(
        pa.string(), len(offsets) // 4 - 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def _array(kind: pa.DataType, parts: Any, length: int) -> pa.Array:
    if pa.types.is_string(kind):
        return _strings(*parts)
    if pa.types.is_dictionary(kind):
        codes, offsets, data = parts
        return pa.DictionaryArray.from_arrays(_int32s(codes), _strings(offsets, data))
    if pa.types.is_map(kind):
        offsets, keys, key_offsets, key_data, value_offsets, value_data = parts
        return pa.MapArray.from_arrays(
            _int32s(offsets),
            pa.DictionaryArray.from_arrays(_int32s(keys), _strings(key_offsets, key_data)),
            _strings(value_offsets, value_data),
        )
    if pa.types.is_list(kind):
        offsets, inner = parts
        size = int.from_bytes(offsets[-4:], "little", signed=True)
        values = _array(kind.value_type, inner if isinstance(inner, tuple) else (inner,), size)
        return pa.ListArray.from_arrays(_int32s(offsets), values)
    (values,) = parts  # fixed width: timestamps, durations
    return pa.Array.from_buffers(kind, length, [None, pa.py_buffer(values)])
