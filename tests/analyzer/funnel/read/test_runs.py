"""The runs a store holds and the check of a named run (``read/runs.py``): the did-you-mean, the
list cut at ``SHOWN_RUNS``, and the check of every run named, however they are given."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.errors import InvalidArgument
from ragfunnel.analyzer.funnel.read.runs import (
    SHOWN_RUNS,
    UnknownRun,
    check_runs,
    held_runs,
    unknown_runs_message,
)
from ragfunnel.analyzer.store import Store
from tests.support.traces import TraceBuilder


def test_the_message_suggests_close_runs_and_lists_the_held_ones() -> None:
    assert unknown_runs_message(["k4"], ["clean", "k3"]) == (
        "no run 'k4' (did you mean 'k3'?) in the store; it holds: clean, k3"
    )
    assert unknown_runs_message(["k4", "zzz"], ["k3", "k40"]) == (  # closest first
        "no runs 'k4' (did you mean 'k40' or 'k3'?), 'zzz' in the store; it holds: k3, k40"
    )
    assert unknown_runs_message(["k4"], []) == (
        "no run 'k4' in the store: it holds no run id at all"
    )


def test_a_long_list_of_runs_is_cut_and_counted() -> None:
    held = [f"run-{i:03d}" for i in range(SHOWN_RUNS + 1_234)]
    message = unknown_runs_message(["other"], held)
    assert message.endswith(f"it holds: {', '.join(held[:SHOWN_RUNS])} and 1,234 more")


def test_check_runs_takes_any_iterable_and_names_the_argument(
    store: Store, b: TraceBuilder
) -> None:
    with b.question("q-1", "A question?", run="k3") as q:
        q.retrieve(["a"])
    with b.question("q-2", "Another?", run="nightly") as q:
        q.retrieve(["a"])
    b.into(store)
    assert held_runs(store) == ["k3", "nightly"]
    check_runs(store, (run for run in ["k3", "nightly", "k3"]))  # a generator, a repeat
    check_runs(store, [])  # nothing named, nothing checked
    with pytest.raises(UnknownRun, match=r"no run 'k4' \(did you mean 'k3'\?\)") as caught:
        check_runs(store, iter(["k3", "k4"]), argument="RUN_A, RUN_B")
    assert isinstance(caught.value, InvalidArgument)
    assert caught.value.argument == "RUN_A, RUN_B"
