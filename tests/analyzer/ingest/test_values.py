"""Attribute values become exactly the text the collector's pdata AsString gives.

data/asstring_pdata.json holds values with their AsString as printed by pdata v1.71 itself
(the version the clickhouseexporter v0.165 is built on).
"""

from __future__ import annotations

import json

import pytest

from ragfunnel.analyzer.ingest import spans_to_arrow
from ragfunnel.analyzer.ingest.values import go_float, go_json
from tests.support.data import DATA

CASES = json.loads((DATA / "asstring_pdata.json").read_text())


def test_every_value_matches_pdata() -> None:
    table = spans_to_arrow(CASES["document"])
    row = table.to_pylist()[0]
    got = dict(row["SpanAttributes"])
    got["__kind"] = row["SpanKind"]
    got["__status"] = row["StatusCode"]
    expected = CASES["expected"]
    assert {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2.0, "2"),
        (0.5, "0.5"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (-1.5e-5, "-0.000015"),
        (-0.0, "-0"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        (1.2345678901234568e20, "123456789012345680000"),
        (2.5e-300, "2.5e-300"),
    ],
)
def test_go_float(value: float, text: str) -> None:
    assert go_float(value) == text


def test_go_json_sorts_keys_and_can_escape_html_like_old_pdata() -> None:
    value = {"b": [1, 2.0, "<&>"], "a": None, "c": True}
    assert go_json(value) == '{"a":null,"b":[1,2,"<&>"],"c":true}'
    assert (
        go_json(value, escape_html=True) == '{"a":null,"b":[1,2,"\\u003c\\u0026\\u003e"],"c":true}'
    )
    with pytest.raises(ValueError, match="NaN"):
        go_json([float("nan")])
