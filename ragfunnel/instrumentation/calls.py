"""One traced call: its span, the question it belongs to, and how it ends.

A :class:`Call` is started by :func:`begin` with the stage's input attributes, made current
while the app's code runs, and ended with the result's attributes, the app's exception or a
stream's partial output. Everything here is ragfunnel's own work on the request path: it must
never raise into the app (failures are counted by ``safety``) and never touch the app's values
beyond what ``stages``/``extract`` read.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation import stages
from ragfunnel.instrumentation.config import State
from ragfunnel.instrumentation.extract import Unread
from ragfunnel.instrumentation.question_scope import CURRENT_QUESTION, Question
from ragfunnel.instrumentation.redaction import exception_record
from ragfunnel.instrumentation.safety import internal_error, not_read
from ragfunnel.instrumentation.span_attributes import Attributes, stream_result

_attach, _detach, _in_context = otel_context.attach, otel_context.detach, trace.set_span_in_context
_QUESTION_ID, _SCHEMA, _SCHEMA_VERSION = c.QUESTION_ID, c.SCHEMA, c.SCHEMA_VERSION


class Call:
    """One traced call: its span, and the context tokens to undo when it ends."""

    __slots__ = ("__weakref__", "ended", "plan", "question", "span", "st", "tokens")

    def __init__(self, plan: stages.Plan, st: State, span: Span, question: Question | None):
        self.plan = plan
        self.st = st
        self.span = span
        self.question = question
        self.tokens: tuple[Any, ...] = ()
        self.ended = False

    def activate(self) -> None:
        """Make this call's span (and question) current in the running context."""
        ctx_token = _attach(_in_context(self.span))
        q_token = CURRENT_QUESTION.set(self.question) if self.plan.is_question else None
        self.tokens = (ctx_token, q_token)

    def deactivate(self) -> None:
        """Undo :meth:`activate` (same context, reverse order)."""
        ctx_token, q_token = self.tokens
        self.tokens = ()
        if q_token is not None:
            CURRENT_QUESTION.reset(q_token)
        _detach(ctx_token)

    def record(self, result: Any, attrs: Attributes, where: str) -> None:
        """Add ``result``'s attributes (and ``attrs``) to the span; never raises."""
        try:
            if self.span.is_recording():
                self.plan.on_result(self.plan, self.st, result, attrs)
                self.span.set_attributes(attrs)
        except Unread as unread:
            not_read(f"{self.plan.stage.value} result", unread)
            self._set_attributes(attrs)
        except Exception as exc:  # noqa: BLE001 - extraction must never reach the app
            internal_error(where, exc)

    def _set_attributes(self, attrs: Attributes) -> None:
        try:
            self.span.set_attributes(attrs)
        except Exception as exc:  # noqa: BLE001
            internal_error("setting attributes", exc)

    def finish(self, result: Any) -> None:
        """Record the result and end the span; never raises (:meth:`record`, then :meth:`end`)."""
        attrs: Attributes = {}
        span, plan = self.span, self.plan
        try:
            try:  # record(), inlined: this runs on every call
                if span.is_recording():
                    plan.on_result(plan, self.st, result, attrs)
                    span.set_attributes(attrs)
            except Unread as unread:
                not_read(f"{plan.stage.value} result", unread)
                self._set_attributes(attrs)
            except Exception as exc:  # noqa: BLE001 - extraction must never reach the app
                internal_error(plan.result_where, exc)
        finally:
            self.ended = True  # end(), inlined
            try:
                if self.tokens:
                    ctx_token, q_token = self.tokens
                    self.tokens = ()
                    if q_token is not None:
                        CURRENT_QUESTION.reset(q_token)
                    _detach(ctx_token)
                span.end()
            except Exception as exc:  # noqa: BLE001
                internal_error("ending a span", exc)

    def _streamed(self, items: list[Any], attrs: Attributes, where: str) -> None:
        if not self.span.is_recording():
            return
        try:
            result = stream_result(self.plan, items)
        except Exception as exc:  # noqa: BLE001 - extraction must never reach the app
            internal_error(where, exc)
        else:
            self.record(result, attrs, where)

    def finish_stream(self, items: list[Any]) -> None:
        """End a stream's span with what it yielded; never raises."""
        try:
            self._streamed(items, {}, self.plan.result_where)
        finally:
            self.end()

    def fail_stream(self, exc: BaseException, items: list[Any]) -> None:
        """End a stream's span on error, keeping the partial output already produced."""
        if items:
            self._streamed(items, {c.STREAM_PARTIAL: True}, "partial stream extraction")
        self.fail(exc)

    def fail(self, exc: BaseException) -> None:
        """Record the app's exception on the span and end it; never raises."""
        try:
            if isinstance(exc, Exception):
                status, attributes = exception_record(
                    exc, capture_content=self.st.capture_all, hook=self.st.redact
                )
                self.span.add_event("exception", attributes)
                self.span.set_status(Status(StatusCode.ERROR, status))
            else:  # cancellation, GeneratorExit: not an error of the step
                self.span.add_event("cancelled", {"exception.type": type(exc).__name__})
        except Exception as inner:  # noqa: BLE001
            internal_error("recording an exception", inner)
        finally:
            self.end()

    def end_if_open(self) -> None:
        """End the span unless it has ended (a relayed stream dropped unread); never raises."""
        if not self.ended:
            self.end()

    def end(self) -> None:
        """Leave the context and end the span; never raises."""
        self.ended = True
        try:
            if self.tokens:  # deactivate(), inlined
                ctx_token, q_token = self.tokens
                self.tokens = ()
                if q_token is not None:
                    CURRENT_QUESTION.reset(q_token)
                _detach(ctx_token)
            self.span.end()
        except Exception as exc:  # noqa: BLE001
            internal_error("ending a span", exc)


def begin(
    plan: stages.Plan,
    st: State,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    current: bool = False,
) -> Call | None:
    """Start a stage's span with its input attributes; ``None`` if ragfunnel itself failed.

    With ``current``, the call is also made current (:meth:`Call.activate`, without the call).
    """
    try:
        attrs = plan.static.copy()
        parent_question = CURRENT_QUESTION.get()
        question: Question | None = None
        if parent_question is not None and not plan.is_question:
            attrs[_QUESTION_ID] = parent_question.id
        else:
            # A stage span under a question is read with its root, which carries the version.
            attrs[_SCHEMA] = _SCHEMA_VERSION
        plan.on_call(plan, st, args, kwargs, attrs)
        tracer = st.tracer
        assert tracer is not None
        span = tracer.start_span(plan.span_name, attributes=attrs)
        if plan.is_question:
            if _QUESTION_ID not in attrs:  # neither id nor text: the trace identifies it
                attrs[_QUESTION_ID] = f"q-trace-{span.get_span_context().trace_id:032x}"
                span.set_attribute(_QUESTION_ID, attrs[_QUESTION_ID])
            question = Question(str(attrs[_QUESTION_ID]), span)
            call = Call(plan, st, span, question)
            if current:
                call.tokens = (_attach(_in_context(span)), CURRENT_QUESTION.set(question))
            return call
        call = Call(plan, st, span, None)
        if current:
            call.tokens = (_attach(_in_context(span)), None)
        return call
    except Exception as exc:  # noqa: BLE001
        internal_error(f"{plan.stage.value} span start", exc)
        return None
