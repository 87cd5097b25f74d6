"""Which runs a store holds, and the check that every run a caller names is one of them.

An unknown run id used to give an empty analysis ("0 question records") and a success. Every
command that takes ``--run`` (and :func:`~ragfunnel.analyzer.funnel.analyze`) checks its runs
here first: an unknown one is an :class:`UnknownRun` error that lists the runs the store holds,
closest first when one is near (``difflib``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ragfunnel.analyzer.errors import InvalidArgument
from ragfunnel.analyzer.funnel.read.source import StageSource, stage_source
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.stage_spans import run_ids

__all__ = ["SHOWN_RUNS", "UnknownRun", "check_runs", "held_runs", "unknown_runs_message"]

SHOWN_RUNS = 10
"""Run ids an error lists; the rest are counted."""


class UnknownRun(InvalidArgument):
    """A run id that the store holds no span of; the message lists the runs it holds."""


def held_runs(
    store: Store, source: StageSource | None = None, *, every_stage: bool = True
) -> list[str]:
    """Every run id of a stage span in ``store``, sorted.

    ``every_stage=False`` reads only question and ingest spans: at read time that parses far
    fewer spans, and it finds every run a question span names (the usual case).
    """
    source = source or stage_source(store)
    if every_stage:
        return run_ids(store, source.sql)
    return run_ids(store, source.question_sql, question_spans=True)


def check_runs(
    store: Store, runs: Iterable[str], source: StageSource | None = None, *, argument: str = "run"
) -> None:
    """Raise :class:`UnknownRun` naming each of ``runs`` that the store does not hold."""
    wanted = list(dict.fromkeys(runs))
    if not wanted:
        return
    held = held_runs(store, source, every_stage=False)
    if any(r not in set(held) for r in wanted):  # a run of other stages' spans only?
        held = held_runs(store, source)
    unknown = [r for r in wanted if r not in set(held)]
    if unknown:
        raise UnknownRun(unknown_runs_message(unknown, held), argument=argument)


def unknown_runs_message(unknown: list[str], held: list[str]) -> str:
    """``no run 'k4' in the store (did you mean 'k3'?); it holds: k3, clean``."""
    parts = []
    for run in unknown:
        close = difflib.get_close_matches(run, held, n=3, cutoff=0.5)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        parts.append(f"{run!r}{hint}")
    noun = "run" if len(unknown) == 1 else "runs"
    if not held:
        return f"no {noun} {', '.join(parts)} in the store: it holds no run id at all"
    shown = ", ".join(held[:SHOWN_RUNS])
    more = f" and {len(held) - SHOWN_RUNS:,} more" if len(held) > SHOWN_RUNS else ""
    return f"no {noun} {', '.join(parts)} in the store; it holds: {shown}{more}"
