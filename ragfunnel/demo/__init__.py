"""The demo: a small hybrid RAG pipeline over a shipped policy corpus, with known faults.

:mod:`.corpus` reads the shipped documents and cases, :mod:`.pipeline` is the app (instrumented
only through the public ``ragfunnel`` decorators, as a user's app would be), :mod:`.faults`
injects faults and writes their truth, and :mod:`.run` runs it all and analyzes the traces
(``ragfunnel demo``). Needs the ``ragfunnel[demo]`` extra; this package's own import and
:mod:`.faults` need only the analyzer, so the CLI can list the demo without it.
"""

from pathlib import Path

DEFAULT_WORKDIR = Path(".ragfunnel/demo")
"""Where ``ragfunnel demo`` writes unless told otherwise."""
