"""The wide layout's packing: what SQL packs, polars unpacks to the same numbers."""

from __future__ import annotations

import polars as pl
import pytest

from ragfunnel.analyzer.funnel.read.wide_layout import (
    META_FIELDS,
    POSITION_CAP,
    meta_field,
    meta_sql,
    positions_sql,
    slot,
    stage_column,
    unpack_position,
    word,
    words,
)
from ragfunnel.analyzer.store import Store


def test_positions_packed_in_sql_unpack_in_polars(store: Store) -> None:
    # Six items over two words: found at 1, absent, 3, beyond the cap, absent, 2.
    array = "arrayConcat([10, 99, 30], range(100, 70100), [50], [60])"
    items = {0: 10, 1: 7, 2: 30, 3: 60, 4: 8, 5: 99}
    item = lambda j: f"toUInt64({items[j]})"  # noqa: E731
    selects = ", ".join(
        f"{positions_sql(f'arrayMap(x -> toUInt64(x), {array})', w, 6, item)} AS {word('pk', w)}"
        for w in range(words(6))
    )
    frame = pl.from_arrow(store.query_arrow(f"SELECT {selects}"))
    assert isinstance(frame, pl.DataFrame)
    got = frame.select(unpack_position("pk", j).alias(slot("pos", j)) for j in range(6)).row(0)
    assert got == (1, None, 3, POSITION_CAP, None, 2)


@pytest.mark.parametrize("seed", [0, 1])
def test_meta_fields_round_trip(store: Store, seed: int) -> None:
    widths = {name: bits for name, (_, bits) in META_FIELDS.items()}
    values = {
        name: (1 - seed if bits == 1 else (1 << bits) - 1 - seed) for name, bits in widths.items()
    }
    packed = meta_sql({name: str(v) for name, v in values.items()})
    frame = pl.from_arrow(store.query_arrow(f"SELECT {packed} AS {stage_column('gen', 'meta')}"))
    assert isinstance(frame, pl.DataFrame)
    got = frame.select(meta_field("gen", name).alias(name) for name in META_FIELDS).row(0)
    assert got == tuple(values.values())


def test_counts_beyond_their_width_are_capped(store: Store) -> None:
    values = dict.fromkeys(META_FIELDS, "0") | {"n_low_confidence": "1000", "has_ids": "1"}
    frame = pl.from_arrow(store.query_arrow(f"SELECT {meta_sql(values)} AS cut_meta"))
    assert isinstance(frame, pl.DataFrame)
    row = frame.select(
        meta_field("cut", "n_low_confidence"), meta_field("cut", "has_ids").alias("h")
    )
    assert row.row(0) == (255, 1)


def test_meta_sql_wants_every_field() -> None:
    with pytest.raises(ValueError, match="meta fields"):
        meta_sql({"error": "1"})
