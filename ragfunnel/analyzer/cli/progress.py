"""The one progress display of the command line: rich, on stderr, honest, silent when piped.

Two shapes, both transient (gone once the work is done) and shown only when stderr is a
terminal and the command is not ``--quiet``:

- :func:`progress_steps`: a spinner with the current step's name and the time spent — for work
  whose size is not known ahead (an analysis, a judging run): it says what runs, never a share.
- :func:`progress_bar`: a bar with done / total — for work counted in known units (files,
  answers, cases), advanced as each unit finishes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

__all__ = ["progress_bar", "progress_shown", "progress_steps"]


def progress_shown(enabled: bool = True) -> bool:
    """Whether a progress display would show: enabled and stderr a terminal."""
    return enabled and Console(stderr=True).is_terminal


@contextmanager
def progress_steps(enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """A transient spinner line on stderr; the yielded callable names the current step."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield lambda _label: None
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting")
        yield lambda label: bar.update(task, description=label)


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Callable[[str, int, int], None]]:
    """Transient bars on stderr; the yielded ``step(name, done, total)`` moves bar ``name``."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield lambda _name, _done, _total: None
        return
    columns = (
        TextColumn("{task.description:<24}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, TaskID] = {}

        def step(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done, total=total)

        yield step
