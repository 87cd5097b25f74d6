"""A progress bar over the input bytes of an ingest, on stderr, shown only when asked for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Progress"]


class Progress:
    """A rich progress bar over the input bytes, on stderr, only when asked for."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self._enabled = enabled and total > 0
        self._total = total
        self._done = 0
        self._position: Callable[[], int] | None = None
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self._enabled:
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

            self._bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                DownloadColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("ingesting", total=self._total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def track(self, position: Callable[[], int]) -> None:
        """Follow the current file's read position, given by ``position()``."""
        self._position = position

    def refresh(self) -> None:
        """Redraw with the current file's position."""
        if self._bar is not None and self._position is not None:
            self._bar.update(self._task, completed=self._done + self._position())

    def phase(self, description: str) -> None:
        """Every byte is read; name what still runs (a pulsing bar: its length is unknown)."""
        if self._bar is not None:
            self._bar.update(self._task, description=description, total=None)

    def done_file(self, size: int) -> None:
        """Count a finished file of ``size`` bytes."""
        self._done += size
        self._position = None
        if self._bar is not None:
            self._bar.update(self._task, completed=self._done)
