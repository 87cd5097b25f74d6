"""``ingest/span_fields.py``: ids, times, kinds and status codes as ``otel_traces`` holds them."""

from __future__ import annotations

import base64

import pytest

from ragfunnel.analyzer.ingest.span_fields import (
    KINDS,
    SAME_START_NS,
    STATUS_CODES,
    SpanProblem,
    hex_id,
    parse_time,
    same_start,
)

TRACE = "5B8EFFF798038103D269B633813FC60C"


def test_hex_ids_are_lowercased_and_zero_or_empty_ids_are_absent() -> None:
    assert hex_id(TRACE, 16, "traceId") == TRACE.lower()
    assert hex_id("eee19b7ec3c1b174", 8, "spanId") == "eee19b7ec3c1b174"
    assert hex_id("0" * 32, 16, "traceId") == ""
    assert hex_id("", 8, "spanId") == ""


def test_base64_ids_of_protobufs_generic_mapping_become_hex() -> None:
    raw = bytes.fromhex(TRACE)
    assert hex_id(base64.b64encode(raw).decode(), 16, "traceId") == TRACE.lower()
    url_safe = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    assert hex_id(url_safe, 16, "traceId") == TRACE.lower()  # unpadded, url-safe alphabet
    assert hex_id(base64.b64encode(bytes(8)).decode(), 8, "spanId") == ""


@pytest.mark.parametrize(
    ("value", "size", "message"),
    [
        ("z" * 32, 16, "traceId 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz' is not hexadecimal"),
        ("abc", 8, "spanId 'abc' is neither 16 hex digits nor base64 of 8 bytes"),
        (base64.b64encode(bytes(9)).decode(), 8, "is neither 16 hex digits nor base64 of 8"),
    ],
)
def test_an_unreadable_id_is_a_problem_naming_the_field(
    value: str, size: int, message: str
) -> None:
    what = "traceId" if size == 16 else "spanId"
    with pytest.raises(SpanProblem, match=message.replace("(", r"\(")):
        hex_id(value, size, what)


def test_times_are_nanoseconds_a_datetime64_can_hold() -> None:
    assert parse_time(1_700_000_000_000_000_000, "startTimeUnixNano") == 1_700_000_000_000_000_000
    assert parse_time("42", "endTimeUnixNano") == 42  # numbers written as strings
    assert parse_time(2**63 - 1, "t") == 2**63 - 1
    with pytest.raises(SpanProblem, match="startTimeUnixNano 'soon' is not an integer"):
        parse_time("soon", "startTimeUnixNano")
    for out in (-1, 2**63):
        with pytest.raises(SpanProblem, match=f"endTimeUnixNano {out} is out of range"):
            parse_time(out, "endTimeUnixNano")


def test_copies_within_a_microsecond_are_the_same_span() -> None:
    start = 1_700_000_000_000_000_000
    assert same_start(start, start + SAME_START_NS - 1)
    assert same_start(start, str(start - SAME_START_NS + 1))
    assert not same_start(start, start + SAME_START_NS)
    assert not same_start(start, "not a time")  # unreadable: other content


def test_kinds_and_status_codes_by_number_or_enum_name() -> None:
    assert [KINDS[n] for n in range(6)] == [
        "Unspecified", "Internal", "Server", "Client", "Producer", "Consumer",
    ]  # fmt: skip
    assert all(KINDS[f"SPAN_KIND_{v.upper()}"] == v for v in KINDS.values())
    assert [STATUS_CODES[n] for n in range(3)] == ["Unset", "Ok", "Error"]
    assert all(STATUS_CODES[f"STATUS_CODE_{v.upper()}"] == v for v in STATUS_CODES.values())
