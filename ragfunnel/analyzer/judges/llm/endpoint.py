"""Where an LLM judge sends its requests, and what each call cost.

Settings come from arguments, else the environment (``RAGFUNNEL_JUDGE_BASE_URL``,
``RAGFUNNEL_JUDGE_MODEL``, ``RAGFUNNEL_JUDGE_API_KEY``, each falling back to the ``OPENAI_*``
variable of the same role), else defaults. Any OpenAI-compatible server works — hosted APIs,
vLLM, Ollama, llama.cpp — through the ``openai`` client. This module never logs or shows an
API key.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ragfunnel.environment_variables as env
from ragfunnel.analyzer.judges.verdict_types import JudgeError

__all__ = ["BREAKER_FAILURES", "ENV", "Breaker", "Endpoint", "Usage"]

ENV = {
    "base_url": (env.JUDGE_BASE_URL, "OPENAI_BASE_URL"),
    "model": (env.JUDGE_MODEL, "OPENAI_MODEL"),
    "api_key": (env.JUDGE_API_KEY, "OPENAI_API_KEY"),
}
DEFAULT_BASE_URL = "https://api.openai.com/v1"
RESPONSE_STYLES = ("json_schema", "json_object", "none")


def _env(role: str) -> str | None:
    for name in ENV[role]:
        value = env.read(name)
        if value:
            return value
    return None


@dataclass
class Usage:
    """Requests, tokens and cost of one judging run (thread-safe counters).

    Attributes:
        calls: requests the judge made (re-asks included), each one chat completion.
        retries: requests re-sent because a reply was malformed.
        requests: HTTP requests sent, counted on the wire (an httpx event hook on the client),
            so the openai client's own transport retries are included; 0 for a client the
            caller made.
        failed: calls that failed (the endpoint erred, or no valid reply in every attempt).
        refused: calls not sent because the circuit breaker was open (:class:`Breaker`).
        input_tokens / output_tokens: as the server reported them.
        cost: ``input_tokens`` and ``output_tokens`` at the endpoint's prices.
        cached: verdicts and claim splits served from the cache instead of a call.
    """

    calls: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    cached: int = 0
    requests: int = 0
    failed: int = 0
    refused: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, *, calls: int = 0, retries: int = 0, input_tokens: int = 0,
            output_tokens: int = 0, cost: float = 0.0, cached: int = 0, requests: int = 0,
            failed: int = 0, refused: int = 0) -> None:  # fmt: skip
        """Add to the counters."""
        with self._lock:
            self.calls += calls
            self.retries += retries
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens
            self.cost += cost
            self.cached += cached
            self.requests += requests
            self.failed += failed
            self.refused += refused

    def as_dict(self) -> dict[str, Any]:
        """The counters as a plain dict (for JSON output)."""
        return {
            "calls": self.calls,
            "retries": self.retries,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost": round(self.cost, 6),
            "cached": self.cached,
            "requests": self.requests,
            "failed": self.failed,
            "refused": self.refused,
        }

    @property
    def failed_share(self) -> float:
        """The share of calls that failed or were refused (0 without calls)."""
        attempted = self.calls + self.refused
        return (self.failed + self.refused) / attempted if attempted else 0.0


BREAKER_FAILURES = 3
"""Consecutive failed calls after which the breaker opens (docs/judges.md)."""


class Breaker:
    """A circuit breaker for one endpoint.

    After ``limit`` consecutive failed calls it opens, and every later call fails at once,
    without a request, for the rest of the run.

    A dead endpoint then costs ``limit`` timeouts (plus the calls already in flight), not two
    per answer. Any successful call resets the count. Thread-safe.
    """

    def __init__(self, limit: int = BREAKER_FAILURES) -> None:
        if limit < 1:
            raise JudgeError(f"the breaker's limit must be at least 1, got {limit!r}")
        self.limit = limit
        self.consecutive = 0
        self.last_error = ""
        self._lock = threading.Lock()

    @property
    def open(self) -> bool:
        """Whether calls are refused."""
        return self.consecutive >= self.limit

    def check(self, endpoint: Endpoint, usage: Usage) -> None:
        """Raise :class:`JudgeError` (counted as refused) when the breaker is open."""
        if self.open:
            usage.add(refused=1)
            raise JudgeError(
                f"not called: the judge endpoint {endpoint.base_url} failed {self.limit} times "
                f"in a row (circuit breaker open; last error: {self.last_error})"
            )

    def record(self, ok: bool, error: str = "") -> None:
        """Count one call's outcome."""
        with self._lock:
            if ok:
                self.consecutive = 0
            else:
                self.consecutive += 1
                self.last_error = error


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible chat-completions endpoint and how to call it.

    Attributes:
        model: the judge model's name as the server knows it.
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1``.
        api_key: sent as a bearer token (local servers accept any).
        timeout: seconds per request.
        max_concurrency: answers judged at the same time.
        max_retries: re-asks after a malformed reply (then the answer is left unjudged).
        seed: sent with every request, for servers that honour it.
        input_price / output_price: cost per million input / output tokens.
        response_style: ``json_schema`` (structured output), ``json_object`` or ``none``.
    """

    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key: str = field(default="", repr=False)
    timeout: float = 60.0
    max_concurrency: int = 4
    max_retries: int = 2
    seed: int = 0
    input_price: float = 0.0
    output_price: float = 0.0
    response_style: str = "json_schema"

    @classmethod
    def from_env(cls, *, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, **options: Any) -> Endpoint:  # fmt: skip
        """Arguments first, then the environment, then defaults.

        Raises:
            JudgeError: no model anywhere, or an option out of range.
        """
        chosen = model or _env("model")
        if not chosen:
            raise JudgeError(
                "no judge model: pass model= (--judge-model) or set RAGFUNNEL_JUDGE_MODEL "
                "(or OPENAI_MODEL)"
            )
        endpoint = cls(
            model=chosen,
            base_url=base_url or _env("base_url") or DEFAULT_BASE_URL,
            api_key=api_key or _env("api_key") or "unused",
            **options,
        )
        endpoint.check()
        return endpoint

    def check(self) -> None:
        """Raise :class:`JudgeError` for an option out of range."""
        if self.timeout <= 0:
            raise JudgeError(f"timeout must be positive, got {self.timeout!r}")
        if self.max_concurrency < 1:
            raise JudgeError(f"max_concurrency must be at least 1, got {self.max_concurrency!r}")
        if self.max_retries < 0:
            raise JudgeError(f"max_retries must be 0 or more, got {self.max_retries!r}")
        if self.input_price < 0 or self.output_price < 0:
            raise JudgeError("prices must not be negative")
        if self.response_style not in RESPONSE_STYLES:
            raise JudgeError(
                f"response_style must be one of {', '.join(RESPONSE_STYLES)}, "
                f"got {self.response_style!r}"
            )

    def client(self, on_request: Callable[[], None] | None = None) -> Any:
        """An ``openai.OpenAI`` client for this endpoint.

        The client retries a failed transport once by itself; ``on_request`` is called for
        every HTTP request it sends (an httpx event hook), those retries included.
        """
        try:
            import openai
        except ImportError:
            raise JudgeError(
                "the LLM judge needs the openai package: pip install 'ragfunnel[judge]'"
            ) from None
        options: dict[str, Any] = {}
        if on_request is not None:
            hook = on_request

            def counted(_request: Any) -> None:
                hook()

            options["http_client"] = openai.DefaultHttpxClient(
                event_hooks={"request": [counted]}, timeout=self.timeout
            )
        return openai.OpenAI(
            base_url=self.base_url,
            api_key=self.api_key,
            timeout=self.timeout,
            max_retries=1,
            **options,
        )

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """What the tokens cost at this endpoint's prices."""
        return (input_tokens * self.input_price + output_tokens * self.output_price) / 1e6
