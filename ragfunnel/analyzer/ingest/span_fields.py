"""The fields of a span as ``otel_traces`` holds them: ids, times, kind and status names.

The clickhouseexporter's rules (``rows`` documents them): ids in lowercase hex (base64 from
protobuf's generic JSON mapping accepted), an all-zero id is ``''``; times are nanoseconds that
DateTime64(9) can hold; kinds and status codes are pdata's ``String()`` names. A field that
cannot be read raises :class:`SpanProblem`, naming it.
"""

from __future__ import annotations

import base64
import binascii

__all__ = [
    "HEX_DIGITS",
    "KINDS",
    "SAME_START_NS",
    "STATUS_CODES",
    "ZERO_SPAN",
    "ZERO_TRACE",
    "SpanProblem",
    "hex_id",
    "parse_time",
    "same_start",
]

_MAX_TIME_NS = 2**63 - 1  # the last instant DateTime64(9) and Arrow's ns timestamps can hold
HEX_DIGITS = "0123456789abcdef"
ZERO_TRACE = "0" * 32
ZERO_SPAN = "0" * 16

SAME_START_NS = 1_000
"""Two copies of a span (same trace and span id) whose start times differ by less than this are
the same span (Jaeger keeps microseconds only); otherwise the later copy has other content."""

KINDS: dict[int | str, str] = {
    0: "Unspecified",
    1: "Internal",
    2: "Server",
    3: "Client",
    4: "Producer",
    5: "Consumer",
    "SPAN_KIND_UNSPECIFIED": "Unspecified",
    "SPAN_KIND_INTERNAL": "Internal",
    "SPAN_KIND_SERVER": "Server",
    "SPAN_KIND_CLIENT": "Client",
    "SPAN_KIND_PRODUCER": "Producer",
    "SPAN_KIND_CONSUMER": "Consumer",
}
STATUS_CODES: dict[int | str, str] = {
    0: "Unset",
    1: "Ok",
    2: "Error",
    "STATUS_CODE_UNSET": "Unset",
    "STATUS_CODE_OK": "Ok",
    "STATUS_CODE_ERROR": "Error",
}


class SpanProblem(ValueError):
    """A span that cannot become a row; the message names the field."""


def hex_id(value: str, size: int, what: str) -> str:
    """A trace (size 16) or span (size 8) id in lowercase hex; '' for an empty or zero id."""
    if len(value) == 2 * size:
        value = value.lower()
        if not value.strip(HEX_DIGITS):
            return "" if value.count("0") == 2 * size else value
        raise SpanProblem(f"{what} {value!r} is not hexadecimal")
    if not value:
        return ""
    # OTLP/JSON proper is hex, but protobuf's generic JSON mapping writes bytes as base64.
    try:
        padded = value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4)
        raw = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise SpanProblem(
            f"{what} {value[:48]!r} is neither {2 * size} hex digits nor base64 of {size} bytes"
        )
    hexed = raw.hex()
    return "" if hexed.count("0") == 2 * size else hexed


def parse_time(value: int | str, what: str) -> int:
    """A time in nanoseconds (a number or its decimal text) that DateTime64(9) can hold."""
    try:
        number = int(value)
    except ValueError:
        raise SpanProblem(f"{what} {str(value)[:40]!r} is not an integer") from None
    if not 0 <= number <= _MAX_TIME_NS:
        raise SpanProblem(f"{what} {number} is out of range")
    return number


def same_start(earlier: int, value: int | str) -> bool:
    """Whether a copy starting at ``value`` is the span seen starting at ``earlier``."""
    try:
        start = parse_time(value, "startTimeUnixNano")
    except SpanProblem:
        return False  # an unreadable start time is other content
    return abs(start - earlier) < SAME_START_NS
