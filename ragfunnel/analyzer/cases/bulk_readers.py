"""JSON and JSON Lines cases decoded in bulk with msgspec: the fast way in for large files.

Cases go to the :class:`ColumnBuilder` a chunk at a time: the plain ones as one Arrow batch
(``plain_shapes``; for a JSON Lines chunk of the simplest shapes, ``native_cases`` when
ragfunnel-native is installed), every other one decoded on its own and validated in full, in
file order. These
readers only vouch for files they read exactly as the reference readers (``readers``) would:
anything they cannot decode, or whose lines they might count differently, makes them return
False, and the caller reads the file again with the reference readers, which report every
problem with its line. Never touches the store.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec
import polars as pl

from ragfunnel.analyzer.cases.case_columns import ColumnBuilder
from ragfunnel.analyzer.cases.native_cases import native_reader
from ragfunnel.analyzer.cases.plain_shapes import LEAF_FRAME, PLAIN_DECODER, PlainCase, plain_batch

__all__ = ["BOM", "json_into", "jsonl_into"]

BOM = b"\xef\xbb\xbf"
_CHUNK_BYTES = 4 << 20
_CHUNK_CASES = 32_768
# Line breaks that str.splitlines() honours besides \n and \r\n (after universal newlines).
_ODD_BREAKS = re.compile(rb"\r(?!\n)|[\x0b\x0c\x1c-\x1e]|\xc2\x85|\xe2\x80[\xa8\xa9]")
_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw])
_RAW_DICT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ANY = msgspec.json.Decoder()
_UNDECODED = PlainCase(id="", question="")  # an empty id: always flagged


def jsonl_into(raw: bytes, builder: ColumnBuilder) -> bool:
    """Feed every case of a JSON Lines file to ``builder``.

    Returns False if the reference reader must read the file instead.
    """
    raw = raw.removeprefix(BOM)
    if _odd_breaks(raw):
        return False
    native = native_reader()
    number, start = 0, 0
    while start < len(raw):
        end = raw.find(b"\n", start + _CHUNK_BYTES)
        end = len(raw) if end < 0 else end + 1
        block = raw[start:end]
        read = native(block, number + 1) if native is not None else None
        if read is not None:  # every line plain: no line split, no object per case
            batch, flagged = read
            lines = block.splitlines() if flagged else []  # only a flagged row needs its line
            count = batch.height
            fed = _add(
                batch, flagged, LEAF_FRAME, values=lines, first_line=number + 1, builder=builder
            )
        else:
            lines = block.splitlines()
            count = len(lines)
            fed = _feed(lines, number + 1, builder)
        if not fed:
            return False
        number += count
        start = end
    return True


def json_into(raw: bytes, builder: ColumnBuilder) -> bool:
    """Feed every case of a JSON file (an array, or an object with a ``cases`` array) to ``builder``.

    Returns False if the reference reader must read the file instead.
    """
    raw = raw.removeprefix(BOM)
    items: list[msgspec.Raw]
    try:
        if raw.lstrip()[:1] == b"{":
            items = _RAW_LIST.decode(_RAW_DICT.decode(raw)["cases"])
        else:
            items = _RAW_LIST.decode(raw)
    except (msgspec.DecodeError, KeyError):
        return False
    return all(
        _feed(items[i : i + _CHUNK_CASES], None, builder)
        for i in range(0, len(items), _CHUNK_CASES)
    )


def _odd_breaks(raw: bytes) -> bool:
    # Cheap byte tests first: the regex scan costs seconds on a large file.
    maybe = (
        (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n"))
        or any(byte in raw for byte in (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e"))
        or any(byte in raw for byte in (b"\x85", b"\xa8", b"\xa9"))
    )
    return maybe and _ODD_BREAKS.search(raw) is not None


def _feed(
    values: Sequence[bytes | msgspec.Raw], first_line: int | None, builder: ColumnBuilder
) -> bool:
    """One chunk of lines (``first_line`` set) or array items into ``builder``, in order."""
    decode = PLAIN_DECODER.decode
    try:
        cases = list(map(decode, values))
    except msgspec.DecodeError:
        cases = [_decode_or_flag(value) for value in values]
    if first_line is None:
        lines = pl.repeat(None, len(cases), dtype=pl.Int32, eager=True)
    else:
        lines = pl.int_range(first_line, first_line + len(cases), dtype=pl.Int32, eager=True)
    batch, flagged, leaves = plain_batch(cases, lines)
    return _add(batch, flagged, leaves, values=values, first_line=first_line, builder=builder)


def _add(
    batch: pl.DataFrame,
    flagged: list[int],
    leaves: pl.DataFrame,
    *,
    values: Sequence[bytes | msgspec.Raw],
    first_line: int | None,
    builder: ColumnBuilder,
) -> bool:
    """A chunk's plain frame into ``builder``, each flagged row validated in full, in order."""
    builder.add_leaf_table(leaves)
    done = 0
    for i in flagged:
        if i > done:
            builder.add_batch(batch.slice(done, i - done))
        if not _one(values[i], None if first_line is None else first_line + i, builder):
            return False
        done = i + 1
    if done < batch.height:
        builder.add_batch(batch.slice(done))
    return True


def _decode_or_flag(value: bytes | msgspec.Raw) -> PlainCase:
    try:
        return PLAIN_DECODER.decode(value)
    except msgspec.DecodeError:
        return _UNDECODED


def _one(value: bytes | msgspec.Raw, line: int | None, builder: ColumnBuilder) -> bool:
    """One case that is not plain (or one blank or comment line), read as the reference does."""
    if isinstance(value, bytes):
        body = value.strip()
        if not body:
            return True
        if body.startswith(b"//"):
            return _is_utf8(value)  # the reference reader decodes the whole file
    try:
        data = _ANY.decode(value)
    except msgspec.DecodeError:
        return False
    builder.add_record(data, line)
    return True


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
