"""Judge a store's answers, and draw the review sheet of its judged answers.

The sequences of ``ragfunnel judge`` and ``ragfunnel review``: the runs asked for are checked
against the store first (a typo names the run, not "nothing judged"), then the judges' library
does the work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragfunnel.analyzer.funnel.read.runs import check_runs
from ragfunnel.analyzer.judges import JudgeRun, judge_store
from ragfunnel.analyzer.judges.people.review import review_sheet
from ragfunnel.analyzer.store import Store, StoreArg, takes_store
from ragfunnel.analyzer.workflows.analysis import chosen_runs

if TYPE_CHECKING:
    from ragfunnel.analyzer.cases import CaseSet
    from ragfunnel.analyzer.judges import Endpoint

__all__ = ["judge_from_store", "review_from_store"]


@takes_store("write")
def judge_from_store(
    store: StoreArg,
    *,
    policy: str,
    runs: Sequence[str] | None = None,
    cases: CaseSet | None = None,
    endpoint: Endpoint | None = None,
    sample_rate: float,
    seed: int = 0,
    split: str = "llm",
    write: bool = True,
    chunk_texts: Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    workers: int | None = 1,
    keep_rows: bool = True,
    on_rows: Callable[[list[Any]], None] | None = None,
) -> JudgeRun:
    """Judge every stored pipeline answer of ``runs`` with ``policy`` (``judges.judge_store``).

    ``progress(step, done, total)`` is told how many answers are judged (the CLI's bar);
    ``workers``, ``keep_rows`` and ``on_rows`` as ``judge_store`` takes them (the CLI keeps no
    rows and writes each page's rows as they come).

    Raises:
        UnknownRun: a run the store does not hold. JudgeError, StoreError: as ``judge_store``.
    """
    assert isinstance(store, Store)  # takes_store opened it (never created)
    check_runs(store, runs or ())
    return judge_store(
        store, policy=policy, runs=chosen_runs(runs), cases=cases, endpoint=endpoint,
        sample_rate=sample_rate, seed=seed, split=split, write=write, chunk_texts=chunk_texts,
        progress=progress, workers=workers, keep_rows=keep_rows, on_rows=on_rows,
    )  # fmt: skip


def review_from_store(
    store: Store, *, n: int, week: str | None = None, runs: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """The review sheet: ``n`` judged answers of ``runs``, drawn with ``week``'s seed.

    Raises:
        UnknownRun: a run the store does not hold.
    """
    check_runs(store, runs)
    return review_sheet(store, n=n, week=week, runs=runs)
