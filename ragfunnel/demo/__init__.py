"""The demo: a small hybrid RAG pipeline over a shipped policy corpus, with known faults.

:mod:`.corpus` reads the shipped documents and cases, :mod:`.pipeline` is the app (instrumented
only through the public ``ragfunnel`` decorators, as a user's app would be), :mod:`.faults`
injects faults and writes their truth, and :mod:`.run` runs it all and analyzes the traces
(``ragfunnel demo``). Needs the ``ragfunnel[demo]`` extra; this package's own import and
:mod:`.faults` need only the analyzer, so the CLI can list the demo without it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragfunnel.demo.console import closing_text
    from ragfunnel.demo.faults import FAULTS
    from ragfunnel.demo.pipeline import LLM
    from ragfunnel.demo.runner import run_demo

DEFAULT_WORKDIR = Path(".ragfunnel/demo")
"""Where ``ragfunnel demo`` writes unless told otherwise."""

_LAZY = {
    "FAULTS": "faults",
    "LLM": "pipeline",
    "closing_text": "console",
    "run_demo": "runner",
}
"""What the face exports, and the module each comes from: imported on first use, so that
``import ragfunnel.demo`` (and ``ragfunnel demo --help``) loads none of the demo's libraries."""

__all__ = ["DEFAULT_WORKDIR", "FAULTS", "LLM", "closing_text", "run_demo"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
