"""Reading ``configure()``'s values: explicit arguments are checked, environment values parsed.

The one rule for every option: a bad explicit argument raises :class:`ConfigError` (the
developer is there to fix it), a bad environment value logs a warning and falls back to the
default (a typo in a deployment's environment must not take the service down). This module
parses and checks values only; it must never create a provider, an exporter or a file.
"""

from __future__ import annotations

import importlib
import json
import logging
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import ragfunnel.environment_variables as env
from ragfunnel.instrumentation.redaction import Redactor, redact_urls

logger = logging.getLogger("ragfunnel")

T = TypeVar("T")

DEFAULT_MAX_QUEUE_SIZE = 2048
DEFAULT_EXPORT_DELAY_S = 1.0
MAX_EXTRA_ATTRIBUTES = 64
"""Pipeline settings (flattened) or ``attributes=`` entries per span: the SDK keeps 128
attributes and evicts the oldest, which are ragfunnel's own."""


class ConfigError(ValueError):
    """An explicit configuration value is invalid."""


def parse_bool(text: str) -> bool:
    """``1/true/yes/on`` and ``0/false/no/off/""`` (any case); anything else is an error."""
    low = text.strip().lower()
    if low in {"1", "true", "yes", "on"}:
        return True
    if low in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError(f"not a boolean: {text!r}")


CONTENT_KINDS = ("question", "chunks", "answer")
"""What ``capture_content`` may record, by kind: the question text and the retrieval query
(``question``), the prompt's chunk texts (``chunks``), the generated answer (``answer``)."""


def content_kinds(value: bool | str | Iterable[str]) -> frozenset[str]:
    """The kinds of content ``capture_content=value`` records (``True``: every kind).

    ``value`` is a bool, one kind (``"answer"``), a comma-separated list (``"question,answer"``)
    or an iterable of kinds; raises ``ValueError`` naming an unknown kind.
    """
    if isinstance(value, bool):
        return frozenset(CONTENT_KINDS) if value else frozenset()
    items = value.split(",") if isinstance(value, str) else list(value)
    kinds = set()
    for item in items:
        kind = item.strip().lower() if isinstance(item, str) else item
        if kind == "":
            continue
        if kind not in CONTENT_KINDS:
            raise ValueError(f"unknown content kind {item!r} (kinds: {', '.join(CONTENT_KINDS)})")
        kinds.add(kind)
    return frozenset(kinds)


def parse_capture(text: str) -> frozenset[str]:
    """``RAGFUNNEL_CAPTURE_CONTENT``: a boolean word (every kind or none) or a list of kinds."""
    try:
        return content_kinds(parse_bool(text))
    except ValueError:
        return content_kinds(text)


def parse_pipeline(text: str) -> dict[str, Any]:
    """A JSON object (``RAGFUNNEL_PIPELINE``)."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("must be a JSON object")
    return value


def parse_hook(text: str) -> Redactor:
    """``package.module:function`` → that callable (how ``RAGFUNNEL_REDACT`` names a hook)."""
    module_name, sep, attribute = text.strip().partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError("expected 'package.module:function'")
    try:
        hook = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ValueError(str(exc)) from None
    if not callable(hook):
        raise ValueError(f"{text} is not callable")
    return hook  # type: ignore[no-any-return]


QUEUE_FULL_CHOICES = ("wait", "drop")
"""``on_queue_full``: wait (bounded) for room in a full export queue, or drop the span."""


def parse_on_queue_full(text: str) -> str:
    """``wait`` or ``drop``, any case (``RAGFUNNEL_ON_QUEUE_FULL``)."""
    choice = text.strip().lower()
    if choice not in QUEUE_FULL_CHOICES:
        raise ValueError("must be 'wait' or 'drop'")
    return choice


def positive_int(text: str) -> int:
    """A whole number ≥ 1 (the export queue's size: 0 would drop every span)."""
    value = int(text)
    if value < 1:
        raise ValueError("must be at least 1")
    return value


def positive_seconds(text: str) -> float:
    """A finite number of seconds > 0 (an export delay of 0 would busy-loop the worker)."""
    value = float(text)
    if not (math.isfinite(value) and value > 0):
        raise ValueError("must be a finite number of seconds greater than 0")
    return value


def from_env(name: str, parse: Callable[[str], T], default: T, *, show_value: bool = True) -> T:
    """``parse(`` the variable ``)``, or ``default`` (with a warning) when unset or unparsable.

    The warning quotes the value (URLs in it redacted), unless ``show_value`` is false: a
    pipeline snapshot may hold a credential the scrubbing of a parsed one would have hidden.
    """
    raw = env.read(name)
    if raw is None:
        return default
    try:
        return parse(raw)
    except ValueError as exc:  # json.JSONDecodeError included
        shown = f"{redact_urls(raw)!r}" if show_value else "<value not shown>"
        logger.warning("ignoring %s=%s (%s); using the default %r", name, shown, exc, default)
        return default


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


def _check_capture(value: object) -> None:
    kinds = ", ".join(repr(k) for k in CONTENT_KINDS)
    usage = f"capture_content must be True, False or content kinds ({kinds}), not {value!r}"
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        _require(
            value.strip().lower() not in {"true", "false", "yes", "no", "on", "off", "1", "0"},
            usage + " (a string such as 'false' is truthy)",
        )
    _require(isinstance(value, (str, Iterable)) and not isinstance(value, Mapping), usage)
    try:
        content_kinds(value)  # type: ignore[arg-type]
    except (ValueError, AttributeError, TypeError) as exc:
        raise ConfigError(f"{usage}: {exc}") from None


def check_arguments(
    *,
    service_name: object,
    exporter: object,
    capture_content: object,
    redact: object,
    run_id: object,
    pipeline: object,
    enabled: object,
    tracer_provider: object,
    batch: object,
    span_exporter_type: type,
    provider_type: type,
) -> None:
    """Raise :class:`ConfigError` for the first explicit argument of the wrong kind."""
    for name, value in (("service_name", service_name), ("run_id", run_id)):
        _require(
            value is None or (isinstance(value, str) and value.strip() != ""),
            f"{name} must be a non-empty string, not {value!r}",
        )
    _require(
        enabled is None or isinstance(enabled, bool),
        f"enabled must be True or False, not {enabled!r} (a string such as 'false' is truthy)",
    )
    _check_capture(capture_content)
    _require(isinstance(batch, bool), f"batch must be True or False, not {batch!r}")
    _require(
        exporter is None or isinstance(exporter, (str, span_exporter_type)),
        f"exporter must be a string or a SpanExporter, not {type(exporter).__name__}",
    )
    _require(
        pipeline is None or isinstance(pipeline, Mapping),
        "pipeline must be a mapping of setting name to value",
    )
    _require(
        redact is None or callable(redact),
        "redact must be a callable (attribute, text) -> text | None",
    )
    _require(
        tracer_provider is None or isinstance(tracer_provider, provider_type),
        "tracer_provider must be an opentelemetry.sdk.trace.TracerProvider, "
        f"not {type(tracer_provider).__name__}",
    )
