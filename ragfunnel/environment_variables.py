"""Every ``RAGFUNNEL_*`` environment variable ragfunnel reads, each with what it does.

The one list, and the one reader: modules that read a variable take its name from here and
read it with :func:`read`, and
``docs/environment-variables.md`` is checked against it (``tests/docs/test_environment_variables.py``).
Standard library only, so that the instrumentation can import it without the analyzer's
dependencies. Variables that only the collector configuration, the build scripts, the benchmarks
or the tests read are listed in that page too, not here: the package never reads them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import overload

__all__ = [
    "CAPTURE_CONTENT",
    "DEMO_LLM_MODEL",
    "DEMO_LLM_URL",
    "ENABLED",
    "EXPORTER",
    "EXPORT_DELAY_S",
    "JAEGER_URL",
    "JUDGE_API_KEY",
    "JUDGE_BASE_URL",
    "JUDGE_MODEL",
    "MAX_QUEUE_SIZE",
    "NATIVE",
    "ON_QUEUE_FULL",
    "PIPELINE",
    "REDACT",
    "RUN_ID",
    "SERVICE_NAME",
    "STORE",
    "VARIABLES",
    "VENV",
    "Variable",
    "default_for_this_process",
    "defaults_for_children",
    "is_set",
    "read",
]


@dataclass(frozen=True)
class Variable:
    """One environment variable: its name, the part of ragfunnel that reads it, what it does."""

    name: str
    part: str
    doc: str


VARIABLES: dict[str, Variable] = {}
"""Every variable by name, in the order of this module."""


def _variable(name: str, part: str, doc: str) -> str:
    VARIABLES[name] = Variable(name, part, doc)
    return name


@overload
def read(name: str) -> str | None: ...
@overload
def read(name: str, default: str) -> str: ...
def read(name: str, default: str | None = None) -> str | None:
    """The value of the environment variable ``name``, or ``default`` when it is unset.

    The one place ragfunnel reads its environment (a test checks that no other module reads
    ``os.environ``): this module's ``RAGFUNNEL_*`` names and the standard ones ragfunnel honours
    (``OTEL_SERVICE_NAME``, ``CLICKHOUSE_USER`` …).
    """
    return os.environ.get(name, default)


def is_set(name: str) -> bool:
    """Whether the environment variable ``name`` is set (to anything, the empty string too)."""
    return name in os.environ


def turned_off(name: str) -> bool:
    """Whether the switch ``name`` is set to ``0``, ``false``, ``no`` or ``off`` (any case)."""
    return (read(name) or "").strip().lower() in {"0", "false", "no", "off"}


def default_for_this_process(name: str, value: str) -> None:
    """``name`` set to ``value`` for the rest of this process, unless the user set it.

    For a variable of a dependency that reads it once, when first imported: the ``ragfunnel``
    command's option for polars' allocator (``cli/app.py``, ``POLARS_ALLOCATOR``).
    """
    os.environ.setdefault(name, value)


@contextmanager
def defaults_for_children(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` set, for the processes started meanwhile, where the user set none of them.

    With :func:`default_for_this_process`, the one place ragfunnel writes its environment (the
    judge's worker processes inherit thread limits this way); each name it set is removed
    again on leaving.
    """
    added = {name: value for name, value in values.items() if name not in os.environ}
    os.environ.update(added)
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


# --- instrumentation (ragfunnel.configure); a bad value warns and falls back to the default

ENABLED = _variable(
    "RAGFUNNEL_ENABLED",
    "instrumentation",
    "`false` turns every decorator into a plain call: no provider, exporter or file is made.",
)
EXPORTER = _variable(
    "RAGFUNNEL_EXPORTER",
    "instrumentation",
    "Where spans go: `file:PATH` (default `file:.ragfunnel/traces/spans-{pid}.jsonl`), `otlp`, "
    "`otlp+http`, `otlp+grpc` or `none`.",
)
CAPTURE_CONTENT = _variable(
    "RAGFUNNEL_CAPTURE_CONTENT",
    "instrumentation",
    "`true` records question, query, chunk and answer text (default off); or the kinds to "
    "record, comma-separated: `question`, `chunks`, `answer` (`question,answer` keeps the corpus "
    'out of spans; docs/reliability.md, "Capture by kind").',
)
REDACT = _variable(
    "RAGFUNNEL_REDACT",
    "instrumentation",
    "`package.module:function`, the hook every captured text passes first; if it cannot be "
    "imported, content capture is turned off.",
)
RUN_ID = _variable(
    "RAGFUNNEL_RUN_ID",
    "instrumentation",
    "Groups the questions of one evaluation run (default: a fresh timestamped id).",
)
PIPELINE = _variable(
    "RAGFUNNEL_PIPELINE",
    "instrumentation",
    "The pipeline's settings as a JSON object, recorded on every question as `ragfunnel.pipeline.*`.",
)
SERVICE_NAME = _variable(
    "RAGFUNNEL_SERVICE_NAME",
    "instrumentation",
    "`service.name` of a provider ragfunnel creates (else `OTEL_SERVICE_NAME`, else `ragfunnel-app`).",
)
MAX_QUEUE_SIZE = _variable(
    "RAGFUNNEL_MAX_QUEUE_SIZE",
    "instrumentation",
    "How many finished spans wait for export at most (default 2,048; a whole number ≥ 1); what a "
    "full queue does is `RAGFUNNEL_ON_QUEUE_FULL`'s.",
)
ON_QUEUE_FULL = _variable(
    "RAGFUNNEL_ON_QUEUE_FULL",
    "instrumentation",
    "`wait` (a full export queue holds the thread that ended a span until there is room, at most "
    "10 s; for batch runs) or `drop` (the span is dropped and counted; for services). Default: "
    "`wait` for a `file:` exporter, `drop` otherwise.",
)
EXPORT_DELAY_S = _variable(
    "RAGFUNNEL_EXPORT_DELAY_S",
    "instrumentation",
    "Seconds between export batches (default 1.0; more than 0); a full batch goes at once.",
)

# --- analyzer (the ragfunnel command); a flag given on the command line wins

STORE = _variable(
    "RAGFUNNEL_STORE",
    "analyzer",
    "The store's DSN when `--store` is not given (default `chdb://.ragfunnel/store`).",
)
JAEGER_URL = _variable(
    "RAGFUNNEL_JAEGER_URL",
    "analyzer",
    "Jaeger's UI root, for links to each trace, when `--jaeger` is not given.",
)
JUDGE_MODEL = _variable(
    "RAGFUNNEL_JUDGE_MODEL",
    "analyzer",
    "The LLM judge's model when `--judge-model` is not given (else `OPENAI_MODEL`).",
)
JUDGE_BASE_URL = _variable(
    "RAGFUNNEL_JUDGE_BASE_URL",
    "analyzer",
    "The LLM judge's OpenAI-compatible API root when `--judge-base-url` is not given "
    "(else `OPENAI_BASE_URL`).",
)
JUDGE_API_KEY = _variable(
    "RAGFUNNEL_JUDGE_API_KEY",
    "analyzer",
    "The LLM judge's API key (else `OPENAI_API_KEY`).",
)
NATIVE = _variable(
    "RAGFUNNEL_NATIVE",
    "analyzer",
    "`0` reads every trace line with the Python converter instead of ragfunnel-native, "
    "and every cases file with msgspec.",
)
DEMO_LLM_URL = _variable(
    "RAGFUNNEL_DEMO_LLM_URL",
    "demo",
    "OpenAI-compatible endpoint for the demo's generator when `--llm-url` is not given "
    "(key: `OPENAI_API_KEY`).",
)
DEMO_LLM_MODEL = _variable(
    "RAGFUNNEL_DEMO_LLM_MODEL",
    "demo",
    "The demo generator's model when `--llm-model` is not given (default `gpt-4o-mini`).",
)
VENV = _variable(
    "RAGFUNNEL_VENV",
    "demo",
    "Set by `.ci/env.sh` (which `scripts/demo` sources): the environment ragfunnel runs in, "
    "so that `ragfunnel demo` can say how to put it on your PATH.",
)
