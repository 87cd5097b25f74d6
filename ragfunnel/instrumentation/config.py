"""``ragfunnel.configure()``: where spans go, what they may contain, and the run they belong to.

Precedence is argument > ``RAGFUNNEL_*`` environment variable > default. A bad explicit argument
raises :class:`ConfigError`; a bad environment value logs a warning and falls back to the default,
because a typo in a deployment's environment must not take the service down. Standard ``OTEL_*``
variables keep working: the OTLP exporters read their endpoint, headers, protocol and timeout
themselves, and ``OTEL_SERVICE_NAME`` names the service when ``RAGFUNNEL_SERVICE_NAME`` does not.

If the app already installed an SDK ``TracerProvider``, ragfunnel attaches its processor to that
provider instead of replacing it, so the app's own spans and ragfunnel's share one trace.
"""

from __future__ import annotations

import atexit
import datetime as dt
import json
import logging
import secrets
import threading
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter

import ragfunnel.environment_variables as env
from ragfunnel.instrumentation import contract
from ragfunnel.instrumentation.export import BoundedBatchProcessor, ExportStats
from ragfunnel.instrumentation.exporters import DEFAULT_TRACE_DIR, DEFAULT_TRACE_FILE, make_exporter
from ragfunnel.instrumentation.file_export import JsonLinesSpanExporter
from ragfunnel.instrumentation.redaction import Redactor, scrub_attributes, scrub_json
from ragfunnel.instrumentation.safety import internal_error
from ragfunnel.instrumentation.settings import (
    CONTENT_KINDS,
    DEFAULT_EXPORT_DELAY_S,
    DEFAULT_MAX_QUEUE_SIZE,
    MAX_EXTRA_ATTRIBUTES,
    QUEUE_FULL_CHOICES,
    ConfigError,
    check_arguments,
    content_kinds,
    from_env,
    parse_bool,
    parse_capture,
    parse_hook,
    parse_on_queue_full,
    parse_pipeline,
    positive_int,
    positive_seconds,
)

__all__ = [
    "DEFAULT_TRACE_DIR",
    "DEFAULT_TRACE_FILE",
    "ConfigError",
    "State",
    "configure",
    "current_state",
    "export_stats",
    "flush",
    "restore",
    "state",
]

logger = logging.getLogger("ragfunnel")


def _default_run_id() -> str:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"run-{stamp}-{secrets.token_hex(2)}"


def flatten_pipeline(pipeline: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten a pipeline snapshot into ``ragfunnel.pipeline.*`` attributes (nested keys dotted)."""
    out: dict[str, Any] = {}
    for key, value in pipeline.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten_pipeline(value, name + "."))
        elif isinstance(value, (str, bool, int, float)):
            out[contract.PIPELINE_PREFIX + name] = value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            out[contract.PIPELINE_PREFIX + name] = list(value)
        else:
            out[contract.PIPELINE_PREFIX + name] = json.dumps(scrub_json(value), default=str)
    return out


def _pipeline_attributes(pipeline: Mapping[str, Any] | None) -> dict[str, Any]:
    # The SDK keeps 128 attributes per span and evicts the oldest: a huge snapshot would push
    # out ragfunnel.stage and the question id, which are set first.
    if pipeline is not None:
        flat = flatten_pipeline(pipeline)
        if len(flat) > MAX_EXTRA_ATTRIBUTES:
            raise ConfigError(
                f"pipeline has {len(flat)} settings once flattened; at most "
                f"{MAX_EXTRA_ATTRIBUTES} fit on a span beside ragfunnel's own attributes"
            )
        return _scrubbed(flat)
    flat = flatten_pipeline(from_env(env.PIPELINE, parse_pipeline, {}, show_value=False))
    if len(flat) > MAX_EXTRA_ATTRIBUTES:
        logger.warning(
            "ignoring RAGFUNNEL_PIPELINE (%d settings once flattened, at most %d); "
            "recording no pipeline snapshot",
            len(flat),
            MAX_EXTRA_ATTRIBUTES,
        )
        return {}
    return _scrubbed(flat)


def _scrubbed(flat: dict[str, Any]) -> dict[str, Any]:
    # A credential-named setting (openai.api_key) is recorded as REDACTED, URLs without secrets.
    return scrub_attributes(flat, prefix=contract.PIPELINE_PREFIX)


class _Switch(SpanProcessor):
    """Registered once per provider; forwards to whatever processor ragfunnel currently uses.

    Providers cannot remove a processor, so reconfiguring swaps the inner one instead.
    """

    def __init__(self) -> None:
        self.inner: SpanProcessor | None = None

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        inner = self.inner
        if inner is not None:
            inner.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        inner = self.inner
        if inner is not None:
            inner.on_end(span)

    def shutdown(self) -> None:
        if self.inner is not None:
            self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.inner.force_flush(timeout_millis) if self.inner is not None else True


@dataclass
class State:
    """The active configuration, read by every decorated call (hot path: plain attributes)."""

    enabled: bool = True
    capture_content: bool = False
    """Some content is recorded (any kind below)."""
    capture_question: bool = False
    """Question text and retrieval query are recorded."""
    capture_chunks: bool = False
    """Chunk texts are recorded."""
    capture_answer: bool = False
    """Answer text is recorded."""
    capture_all: bool = False
    """Every kind: exception messages and stack traces are recorded too (they may hold any)."""
    redact: Redactor | None = None
    run_id: str = field(default_factory=_default_run_id)
    pipeline_attributes: dict[str, Any] = field(default_factory=dict)
    tracer: trace.Tracer | None = None
    processor: SpanProcessor | None = None
    switch: _Switch | None = None


_lock = threading.RLock()
_state: State | None = None
# Weakly keyed on the provider itself: an id() could be reused by a new provider after the old
# one is collected, which would hand back a switch that the new provider never registered.
_switches: weakref.WeakKeyDictionary[TracerProvider, _Switch] = weakref.WeakKeyDictionary()
_own_provider: TracerProvider | None = None


def _provider_for(
    service_name: str, tracer_provider: TracerProvider | None, *, explicit: bool
) -> TracerProvider:
    global _own_provider  # noqa: PLW0603 - one provider per process, like the SDK's global
    if tracer_provider is not None:
        return tracer_provider
    existing = trace.get_tracer_provider()
    if isinstance(existing, TracerProvider):
        current = existing.resource.attributes.get(contract.SERVICE_NAME)
        if explicit and current != service_name:
            logger.warning(
                "service_name=%r is not applied: the process already has a TracerProvider "
                "(service.name=%r); pass tracer_provider= to use another one",
                service_name,
                current,
            )
        return existing
    if _own_provider is None:
        _own_provider = TracerProvider(
            resource=Resource.create({contract.SERVICE_NAME: service_name})
        )
        trace.set_tracer_provider(_own_provider)
        atexit.register(_own_provider.shutdown)
    return _own_provider


def _switch_for(provider: TracerProvider) -> _Switch:
    switch = _switches.get(provider)
    if switch is None:
        switch = _Switch()
        provider.add_span_processor(switch)
        _switches[provider] = switch
    return switch


def configure(
    *,
    service_name: str | None = None,
    exporter: str | SpanExporter | None = None,
    capture_content: bool | str | Iterable[str] | None = None,
    redact: Redactor | None = None,
    run_id: str | None = None,
    pipeline: Mapping[str, Any] | None = None,
    enabled: bool | None = None,
    tracer_provider: TracerProvider | None = None,
    batch: bool = True,
    on_queue_full: str | None = None,
) -> State:
    """Configure ragfunnel; every argument falls back to its ``RAGFUNNEL_*`` variable.

    Args:
        service_name: ``service.name`` of a provider ragfunnel creates (``RAGFUNNEL_SERVICE_NAME``,
            then ``OTEL_SERVICE_NAME``; default ``ragfunnel-app``).
        exporter: ``"file:PATH"`` (OTLP-JSON lines; ``{pid}`` in PATH is replaced; the default is
            ``file:.ragfunnel/traces/spans-{pid}.jsonl``), ``"otlp"`` (the protocol of
            ``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`` / ``OTEL_EXPORTER_OTLP_PROTOCOL``; unset: gRPC
            with the ``ragfunnel[grpc]`` extra, ``http/protobuf`` without), ``"otlp+http"``,
            ``"otlp+grpc"`` (needs the extra), ``"none"`` (only the app's own processors), or a
            ``SpanExporter``. Env: ``RAGFUNNEL_EXPORTER`` (unusable: a warning, nothing exported).
        capture_content: record content: ``True`` question, query, chunk and answer text (and
            exception messages), ``False`` none (the default), or the kinds to record —
            ``"question"`` (question and query), ``"chunks"``, ``"answer"`` — as a
            comma-separated string or an iterable (``capture_content=("question", "answer")``
            keeps the corpus out of spans; ``ragfunnel judge --chunks`` supplies it).
            ``RAGFUNNEL_CAPTURE_CONTENT``: ``true``/``false`` or the kinds, ``question,answer``.
        redact: ``(attribute, text) -> text | None`` applied to every captured text first
            (``RAGFUNNEL_REDACT=package.module:function``; if that cannot be imported, content
            capture is turned off rather than recording unredacted text).
        run_id: groups the questions of one evaluation run (``RAGFUNNEL_RUN_ID``; default a fresh
            timestamped id per configure call).
        pipeline: snapshot of the pipeline's settings (index version, chunker, k, models, prompt
            version), recorded on every question as ``ragfunnel.pipeline.*``
            (``RAGFUNNEL_PIPELINE`` as a JSON object).
        enabled: ``False`` turns every decorator into a plain call (``RAGFUNNEL_ENABLED``).
        tracer_provider: use this provider instead of the global one.
        batch: export on a background thread (default); ``False`` exports synchronously (tests).
        on_queue_full: what a full export queue does with a finished span: ``"wait"`` (the
            thread that ended it waits for room, at most 10 s, then drops while the exporter
            stays stuck or failing; for batch runs: evaluation scripts) or ``"drop"`` (never
            wait; for services). ``RAGFUNNEL_ON_QUEUE_FULL``; default ``"wait"`` for a
            ``file:`` exporter, ``"drop"`` otherwise. Drops are counted in
            ``ragfunnel.dropped_counts()`` and printed at ``flush()`` and at exit.
    """
    global _state  # noqa: PLW0603 - the process-wide configuration
    if isinstance(capture_content, Iterable) and not isinstance(capture_content, (str, Mapping)):
        capture_content = tuple(capture_content)  # read once: a generator of kinds works too
    check_arguments(
        service_name=service_name,
        exporter=exporter,
        capture_content=capture_content,
        redact=redact,
        run_id=run_id,
        pipeline=pipeline,
        enabled=enabled,
        tracer_provider=tracer_provider,
        batch=batch,
        span_exporter_type=SpanExporter,
        provider_type=TracerProvider,
    )
    if on_queue_full is not None and on_queue_full not in QUEUE_FULL_CHOICES:
        raise ConfigError(f"on_queue_full must be 'wait' or 'drop', not {on_queue_full!r}")
    if enabled is None:
        enabled = from_env(env.ENABLED, parse_bool, True)
    if not enabled:  # before any hook import, provider, exporter or file
        return _disable()
    spec: str | SpanExporter = (
        exporter if exporter is not None else env.read(env.EXPORTER, "file:" + DEFAULT_TRACE_FILE)
    )
    hook_broken = False
    if redact is None and env.read(env.REDACT):
        redact = from_env(env.REDACT, parse_hook, None)
        hook_broken = redact is None
    with _lock:
        kinds = (
            content_kinds(capture_content)
            if capture_content is not None
            else from_env(env.CAPTURE_CONTENT, parse_capture, frozenset[str]())
        )
        if hook_broken and kinds:
            logger.warning("content capture is off: the RAGFUNNEL_REDACT hook could not be loaded")
            kinds = frozenset()
        state = State(
            enabled=True,
            capture_content=bool(kinds),
            capture_question="question" in kinds,
            capture_chunks="chunks" in kinds,
            capture_answer="answer" in kinds,
            capture_all=kinds == frozenset(CONTENT_KINDS),
            redact=redact,
            run_id=run_id or env.read(env.RUN_ID) or _default_run_id(),
            pipeline_attributes=_pipeline_attributes(pipeline),
        )
        name = (
            service_name
            or env.read(env.SERVICE_NAME)
            or env.read("OTEL_SERVICE_NAME", "ragfunnel-app")
        )
        explicit = bool(service_name or env.read(env.SERVICE_NAME))
        provider = _provider_for(name, tracer_provider, explicit=explicit)
        try:
            span_exporter = spec if isinstance(spec, SpanExporter) else make_exporter(spec)
        except ConfigError as exc:
            if exporter is not None:
                raise
            # The environment's (or the default) destination is unusable: the app keeps
            # running, its spans go nowhere, and the log says why.
            source = env.EXPORTER if env.is_set(env.EXPORTER) else "exporter"
            logger.warning("ignoring %s=%r (%s); exporting nothing", source, spec, exc)
            span_exporter = None
        switch = _switch_for(provider)
        old = switch.inner
        if span_exporter is not None:
            state.processor = (
                BoundedBatchProcessor(
                    span_exporter,
                    max_queue_size=from_env(
                        env.MAX_QUEUE_SIZE, positive_int, DEFAULT_MAX_QUEUE_SIZE
                    ),
                    schedule_delay_s=from_env(
                        env.EXPORT_DELAY_S, positive_seconds, DEFAULT_EXPORT_DELAY_S
                    ),
                    wait_when_full=_waits_when_full(on_queue_full, span_exporter),
                )
                if batch
                else SimpleSpanProcessor(span_exporter)
            )
        switch.inner = state.processor
        state.switch = switch
        state.tracer = provider.get_tracer(contract.INSTRUMENTATION_SCOPE, _version())
        if old is not None:
            old.shutdown()
        _state = state
        return state


def _waits_when_full(on_queue_full: str | None, exporter: SpanExporter) -> bool:
    """``on_queue_full``, else its variable, else wait for a local file and drop otherwise."""
    default = "wait" if isinstance(exporter, JsonLinesSpanExporter) else "drop"
    choice = on_queue_full or from_env(env.ON_QUEUE_FULL, parse_on_queue_full, default)
    return choice == "wait"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragfunnel")
    except PackageNotFoundError:
        return "0+unknown"


def state() -> State:
    """The active configuration; configures from the environment on first use."""
    current = _state
    if current is not None:
        return current
    with _lock:
        if _state is not None:
            return _state
        try:
            return configure()
        except Exception as exc:  # noqa: BLE001 - the first decorated call must not fail
            internal_error("configuring from the environment", exc)
            return _install(State(enabled=False))


def _disable() -> State:
    """Turn ragfunnel off before any provider, exporter or file exists (or stop the current one)."""
    with _lock:
        current = _state
        if current is not None and current.switch is not None:
            current.switch.inner = None
        if current is not None and current.processor is not None:
            current.processor.shutdown()
        return _install(State(enabled=False))


def _install(new: State) -> State:
    global _state  # noqa: PLW0603 - the process-wide configuration
    _state = new
    return new


def restore(previous: State | None) -> None:
    """Put a saved configuration back (``ragfunnel.testing`` uses this)."""
    global _state
    with _lock:
        current, _state = _state, previous
        if current is not None and current.switch is not None:
            current.switch.inner = None
        if previous is not None and previous.switch is not None:
            previous.switch.inner = previous.processor
        replaced = current.processor if current is not None else None
        if replaced is not None and (previous is None or replaced is not previous.processor):
            replaced.shutdown()


def current_state() -> State | None:
    """The active configuration, or ``None`` before the first configure."""
    return _state


def flush(timeout_millis: int = 30_000) -> bool:
    """Export every finished span now (call before a short-lived script exits).

    Spans dropped or failed since the last flush are logged (``ragfunnel.dropped_counts()``).
    """
    current = _state
    if current is None or current.processor is None:
        return True
    return current.processor.force_flush(timeout_millis)


def export_stats() -> ExportStats:
    """Spans queued, exported, failed and dropped by ragfunnel's processor."""
    current = _state
    if current is not None and isinstance(current.processor, BoundedBatchProcessor):
        return current.processor.stats
    return ExportStats()
