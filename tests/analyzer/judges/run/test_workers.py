"""Issue 35: the offline screen on worker processes, and the offline policy page by page.

The verdict rows must be the same with any number of workers, any page size, rows kept or
handed to ``on_rows`` and written: compared on a store of 480 traced answers (more than
:data:`IN_PROCESS_BELOW`), prompts of three of the worked example's four chunks in other
orders, answers with changed numbers and times, refusals and disagreeing samples.
"""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

import ragfunnel
from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.run import workers
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.judges.run.workers import IN_PROCESS_BELOW, ScreenPool, shippable
from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict, Chunk
from ragfunnel.analyzer.store import Store
from tests.support.judge_pipeline import CASES, CHUNKS, record_many

ANSWERS = 480


def _runs() -> Iterator[str]:
    """The run ids as a generator: ``runs`` takes any iterable."""
    yield "r1"


def test_workers_and_pages_change_no_verdict_row(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_many(store, ANSWERS)
    alone = judge_store(store, cases=CASES, write=False, workers=1)
    assert alone.judged == ANSWERS and len(alone.rows) == ANSWERS == alone.row_count
    labels = {label for row in alone.rows for label in row["ClaimLabels"]}
    assert {"supported", "unsupported"} <= labels
    # Conflicting sources among them: the workers read those from their judges' chunks.
    assert any(s.startswith("conflicting_sources") for row in alone.rows for s in row["Signals"])

    started: list[int] = []
    start = ScreenPool.start

    def counted(pool: ScreenPool) -> object:
        started.append(pool.workers)
        return start(pool)

    monkeypatch.setattr(ScreenPool, "start", counted)
    two = judge_store(store, cases=CASES, write=False, workers=2, runs=_runs())
    assert started and set(started) == {2}
    assert two.rows == alone.rows
    assert (two.faithfulness, two.confidence) == (alone.faithfulness, alone.confidence)


class Echo:
    """A custom screening judge that pickles: the offline judge's verdicts under its own name."""

    name = "echo"

    def judge(self, answer: str, context: Iterable[Chunk | tuple[str, str] | str]) -> AnswerVerdict:
        verdict = OfflineJudge(multilingual=False, chunk_cache=0).judge(answer, list(context))
        return AnswerVerdict(verdict.claims, verdict.refusals, self.name)


class Local(Echo):
    """One that does not pickle (it holds a lambda): judged in process."""

    def __init__(self) -> None:
        self.seen: Callable[[], int] = lambda: 0


def test_a_custom_screen_goes_to_the_workers_when_it_pickles(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_many(store, IN_PROCESS_BELOW)
    assert shippable(Echo()) and shippable(None) == b"" and shippable(Local()) is None
    shipped = judge_store(store, write=False, workers=2, screen=Echo())
    alone = judge_store(store, write=False, workers=1, screen=Echo())
    assert shipped.rows == alone.rows and {r["Judge"] for r in shipped.rows} == {"echo"}

    def refuse(_pool: ScreenPool) -> None:
        raise AssertionError("no worker may start")

    monkeypatch.setattr(ScreenPool, "start", refuse)
    local = judge_store(store, write=False, workers=2, screen=Local())
    assert local.rows == alone.rows


def test_few_answers_are_judged_in_process(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    record_many(store, 12)

    def refuse(_pool: ScreenPool) -> None:
        raise AssertionError("no worker may start below IN_PROCESS_BELOW")

    monkeypatch.setattr(ScreenPool, "start", refuse)
    seen: list[tuple[str, int, int]] = []
    result = judge_store(store, write=False, workers=4, progress=lambda *s: seen.append(s))
    assert result.judged == 12 and seen[-1] == ("judging offline (offline)", 12, 12)
    with pytest.raises(ValueError, match="workers must be 1 or more"):
        judge_store(store, write=False, workers=0)


def test_a_script_without_a_main_guard_is_not_run_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    """The workers start with an empty ``__main__``: Python would import the user's script."""
    import sys
    import types

    script = types.ModuleType("__main__")
    script.__file__ = "/nonexistent/user_script.py"  # a worker importing it would fail
    monkeypatch.setitem(sys.modules, "__main__", script)
    items = [("Die Hotelpauschale beträgt 120 Euro.", (Chunk("h", CHUNKS["hotel-allowance"]),))]
    with ScreenPool(b"", 1) as pool:
        ((verdict, conflicts),) = pool.submit(items).results(lambda _n: None)
    assert verdict.claims and conflicts == []
    assert sys.modules["__main__"] is script
    assert pickle.loads(pickle.dumps(verdict)) == verdict
    assert workers.default_workers() >= 1


def test_a_worker_collects_garbage_rarely_and_the_parent_as_before() -> None:
    """Only the worker processes, ragfunnel's own, get the judge's collector thresholds."""
    import gc

    before = gc.get_threshold()
    with ScreenPool(b"", 1) as pool:
        pool.submit([("Warm-up.", (Chunk("w", "Warm-up."),))]).results(lambda _n: None)
        thresholds = pool.start().submit(gc.get_threshold).result()
        frozen = pool.start().submit(gc.get_freeze_count).result()
    assert thresholds == workers.WORKER_GC_THRESHOLDS != before
    assert frozen > 0  # what the worker loaded before its first answer
    assert gc.get_threshold() == before


def test_the_parent_collects_rarely_while_workers_judge_then_as_before(store: Store) -> None:
    """The process reading the pages for the workers collects rarely, until judge_store returns
    or raises; judging in process, it keeps its own settings."""
    import gc

    record_many(store, IN_PROCESS_BELOW)
    before = gc.get_threshold()
    seen: list[tuple[int, ...]] = []
    judge_store(
        store, write=False, workers=2, on_rows=lambda _rows: seen.append(gc.get_threshold())
    )
    assert seen and set(seen) == {workers.WORKER_GC_THRESHOLDS} and before not in seen
    assert gc.get_threshold() == before
    alone: list[tuple[int, ...]] = []
    judge_store(
        store, write=False, workers=1, on_rows=lambda _rows: alone.append(gc.get_threshold())
    )
    assert set(alone) == {before}

    def fail(_rows: object) -> None:
        raise RuntimeError("the caller's callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        judge_store(store, write=False, workers=2, on_rows=fail)
    assert gc.get_threshold() == before


_IN_A_TREE = """
import sys
sys.path.insert(0, sys.argv[1])
from ragfunnel.analyzer.judges.run.workers import ScreenPool
from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.verdict_types import Chunk
items = [("The clinic opens at 9 am.", (Chunk("c", "The clinic opens at 9 am."),))]
with ScreenPool(b"", 1) as pool:
    ((shipped, _),) = pool.submit(items).results(lambda _n: None)
print(OfflineJudge().judge(*items[0]).judge, shipped.judge)
"""


def test_the_workers_judge_with_the_parents_code(tmp_path: Path) -> None:
    """A process running a source tree of its own (put first on ``sys.path``) has its workers
    judge with that tree's judge, not with whatever ragfunnel a bare ``python -c`` finds.

    Python 3.11's fork server ignores the parent's ``sys.path``: a judge preloaded there came
    from the installed ragfunnel, and the 10,000-answer benchmark of a source tree judged 46
    answers with another commit's judge (bench/RESULTS.md, "Issue 35: the workers' verdicts").
    The tree here is a copy of the package whose judge names itself ``offline-tree``.
    """
    tree = tmp_path / "tree"
    package = Path(ragfunnel.__file__).parent
    # Sources only: under a compiled judge (scripts/compiled-wheel) its modules would shadow them.
    skipped = shutil.ignore_patterns("__pycache__", "*.so")
    shutil.copytree(package, tree / "ragfunnel", ignore=skipped)
    judge = tree / "ragfunnel" / "analyzer" / "judges" / "offline" / "judge.py"
    text = judge.read_text(encoding="utf-8")
    assert '\nNAME = "offline"\n' in text
    judge.write_text(text.replace('\nNAME = "offline"\n', '\nNAME = "offline-tree"\n'), "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _IN_A_TREE, str(tree)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["offline-tree", "offline-tree"]


_KILLED_WHILE_JUDGING = """
import sys, time
from ragfunnel.analyzer.judges.run.workers import ScreenPool
from ragfunnel.analyzer.judges.verdict_types import Chunk
items = [("The clinic opens at 9 am.", (Chunk("c", "The clinic opens at 9 am."),))]
pool = ScreenPool(b"", 2)
pool.submit(items * 4).results(lambda _n: None)
print(*pool.start()._processes, flush=True)
time.sleep(600)
"""


def _ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (Linux's ``/proc``, like the watcher's pidfd)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"  # ended, not yet reaped


def test_workers_end_when_the_process_that_started_them_is_killed(tmp_path: Path) -> None:
    """A judge killed outright (``SIGKILL``, the OOM killer) runs no cleanup; its workers
    (~300 MB each) must not wait for tasks forever."""
    with subprocess.Popen(
        [sys.executable, "-c", _KILLED_WHILE_JUDGING],
        cwd=tmp_path, stdout=subprocess.PIPE, text=True,
    ) as script:  # fmt: skip
        try:
            assert script.stdout is not None
            pids = [int(p) for p in script.stdout.readline().split()]
            assert len(pids) == 2 and not any(_ended(p) for p in pids)
        finally:
            script.kill()
    deadline = time.monotonic() + 30
    while not all(_ended(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [p for p in pids if not _ended(p)] == []
