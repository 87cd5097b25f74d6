"""``store/arrow_values.py``: Arrow arrays of Python values that never make pyarrow import pandas."""

from __future__ import annotations

import subprocess
import sys

import pyarrow as pa
import pytest

from ragfunnel.analyzer.store.arrow_values import booleans, integers, strings


def test_strings_keep_every_value_however_it_is_spelled() -> None:
    values = ["", "a", "héllo wörld", "日本語", "😀 emoji", "x" * 70_000]
    built = strings(values)
    assert built.type == pa.string()
    assert built.to_pylist() == values
    assert strings([]).to_pylist() == []
    assert strings([""])[0].as_py() == ""


@pytest.mark.parametrize(
    ("kind", "values"),
    [
        (pa.int64(), [0, -1, 2**63 - 1, -(2**63)]),
        (pa.uint64(), [0, 2**64 - 1]),
        (pa.int32(), [-(2**31), 7]),
        (pa.uint8(), [0, 255]),
    ],
)
def test_integers_keep_their_values_and_type(kind: pa.DataType, values: list[int]) -> None:
    built = integers(values, kind)
    assert built.type == kind
    assert built.to_pylist() == values


def test_booleans() -> None:
    assert booleans([True, False, True]).to_pylist() == [True, False, True]
    assert booleans([]).type == pa.bool_()


def test_building_them_imports_no_pandas() -> None:
    # pa.array(["a"]) alone imports pandas when it is installed (0.17 s, ~42 MiB).
    probe = (
        "import sys, pyarrow as pa\n"
        "from ragfunnel.analyzer.store.arrow_values import booleans, integers, strings\n"
        "strings(['a', '']); integers([1], pa.int64()); booleans([True])\n"
        "print('pandas' in sys.modules)\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "False"
