"""The trace ids one ingest inserted into a store that held nothing: which may be stored.

An ingest into an empty store can meet a span already stored only among the traces it inserted
itself (a trace whose spans lie in several chunks, a file given twice). :class:`InsertedTraces`
remembers those trace ids as a bit set of their hashes — 4 MiB whatever the number of spans —
so the writer looks up in the store only the trace ids that may be there, not every chunk's
(bench/RESULTS.md, issue 35: the lookups were a sixth of the insert thread's time). A hash
collision costs one needless lookup, never a missed duplicate: the store still says which
spans it holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["InsertedTraces"]

_BITS = 1 << 25
"""Bits of the set: with a million traces inserted, about 1 in 30 new ids is looked up."""


class InsertedTraces:
    """A bit set of the trace ids inserted so far (hashes within this process)."""

    def __init__(self) -> None:
        self._bits = np.zeros(_BITS >> 3, dtype=np.uint8)

    @staticmethod
    def _slots(ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        hashes = np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids)).view(np.uint64)
        slots = hashes % np.uint64(_BITS)
        return slots >> np.uint64(3), np.left_shift(1, slots & np.uint64(7)).astype(np.uint8)

    def add(self, ids: Sequence[str]) -> None:
        """Remember ``ids`` as inserted."""
        where, bit = self._slots(ids)
        np.bitwise_or.at(self._bits, where, bit)

    def maybe(self, ids: Sequence[str]) -> list[str]:
        """The ``ids`` that may have been inserted: every one that was, and a few more."""
        if not ids:
            return []
        where, bit = self._slots(ids)
        hit = (self._bits[where] & bit) != 0
        return [ids[i] for i in np.flatnonzero(hit).tolist()]
