"""Keeping secrets out of spans, logs and links: credential names, URLs, the user's hook.

The one home of ragfunnel's redaction rules (the analyzer imports them from here, never the
reverse):

- a *credential name* (``api_key``, ``token``, ``password``, ``authorization`` … as whole
  words) marks a value that is never recorded: an argument is never read, a pipeline setting or
  an ``attributes=`` entry is recorded as ``REDACTED``;
- a *URL* is recorded the way the OpenTelemetry URL semantic conventions ask for ``url.full``:
  ``user:pass@`` becomes ``REDACTED:REDACTED@`` and the value of a signature query parameter
  (``AWSAccessKeyId``, ``Signature``, ``sig``, ``X-Goog-Signature``, ``X-Amz-Signature``, and
  any parameter whose name is a credential name) becomes ``REDACTED``; everything else is kept
  byte for byte, so two ids that differed only in a secret stay told apart by the rest;
- *content* (question, chunk, answer text) passes the user's hook ``(attribute, text) -> text |
  None`` before it is recorded.
"""

from __future__ import annotations

import itertools
import re
import traceback
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote, unquote_plus

from ragfunnel.instrumentation.safety import internal_error

REDACTED = "REDACTED"
"""What replaces a secret (the OpenTelemetry semantic conventions' word)."""

_SECRET_WORDS = frozenset(
    {
        "pass", "password", "passwd", "passphrase", "pwd", "secret", "secrets", "token",
        "apikey", "auth", "authorization", "credential", "credentials", "cookie", "cookies",
        "bearer", "signature", "jwt", "privatekey", "accesskey", "secretkey", "sessionid",
        "authtoken", "accesstoken", "refreshtoken", "clientsecret",
    }
)  # fmt: skip
_SECRET_PAIRS = frozenset(
    {("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key"), ("session", "id")}
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")


def name_words(name: str) -> list[str]:
    """``x-api-key`` / ``apiKey`` / ``API_Key`` → ``["x", "api", "key"]``-style lower-case words."""
    return [w for w in _SEPARATORS.split(_CAMEL.sub("_", name).lower()) if w]


def is_secret_name(name: str) -> bool:
    """True if a parameter or key name looks like it holds a credential.

    Whole words only (split at ``_``, ``-``, ``.`` and camelCase), so ``passages`` or
    ``max_tokens`` are ordinary names while ``password``, ``api_key``, ``apiKey``,
    ``auth_token`` and ``x-api-key`` are secrets.
    """
    words = name_words(name)
    return any(w in _SECRET_WORDS for w in words) or any(
        pair in _SECRET_PAIRS for pair in itertools.pairwise(words)
    )


# The OpenTelemetry semantic conventions' list for url.full / url.query, and AWS SigV4's own.
SIGNATURE_PARAMETERS = frozenset(
    {"awsaccesskeyid", "signature", "sig", "x-goog-signature", "x-amz-signature"}
)

# scheme://authority[path][?query][#fragment], up to whitespace, a quote or an angle bracket.
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>`]+")
_AUTHORITY_END = re.compile(r"[/?#]")


def _secret_parameter(raw_name: str) -> bool:
    name = unquote_plus(raw_name)
    return name.lower() in SIGNATURE_PARAMETERS or is_secret_name(name)


def _redact_query(query: str) -> str:
    parts = []
    for part in query.split("&"):
        name, eq, value = part.partition("=")
        parts.append(f"{name}={REDACTED}" if eq and value and _secret_parameter(name) else part)
    return "&".join(parts)


def redact_url(url: str) -> str:
    """``url`` with its credentials and signature parameters replaced by ``REDACTED``.

    Not a URL (no ``scheme://``): returned unchanged. Only the secret parts change; the rest is
    kept byte for byte (no normalisation).
    """
    start = url.find("://")
    if start < 0:
        return url
    start += 3
    end_match = _AUTHORITY_END.search(url, start)
    end = end_match.start() if end_match else len(url)
    authority = url[start:end]
    at = authority.rfind("@")
    if at >= 0:
        authority = f"{REDACTED}:{REDACTED}@{authority[at + 1 :]}"
    rest = url[end:]
    question = rest.find("?")
    if question >= 0:
        hash_at = rest.find("#", question)
        query_end = hash_at if hash_at >= 0 else len(rest)
        query = rest[question + 1 : query_end]
        rest = rest[: question + 1] + _redact_query(query) + rest[query_end:]
    return url[:start] + authority + rest


def redact_urls(text: str) -> str:
    """Every URL inside ``text`` (an error message, a document id) passed through :func:`redact_url`."""
    if "://" not in text:
        return text
    return _URL.sub(lambda m: redact_url(m.group(0)), text)


def redact_ids(ids: list[str]) -> list[str]:
    """Document ids with any URL in them redacted; the same list when none holds one.

    One C-level join and one substring search when no id holds ``://`` (the usual case): this
    runs on every ranked span. (The join can find ``://`` across two ids; those lists take the
    per-id path, which only changes ids that really hold a URL.)
    """
    if "://" not in "".join(ids):
        return ids
    return [redact_urls(i) for i in ids]


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """``http://user:pass@host/x`` → (``http://host/x``, (``user``, ``pass``)), percent-decoded.

    A URL without ``user@`` comes back unchanged with ``None``.
    """
    start = url.find("://")
    if start < 0:
        return url, None
    start += 3
    end_match = _AUTHORITY_END.search(url, start)
    end = end_match.start() if end_match else len(url)
    at = url.rfind("@", start, end)
    if at < 0:
        return url, None
    user, _, password = url[start:at].partition(":")
    return url[:start] + url[at + 1 :], (unquote(user), unquote(password))


def scrub_value(key: str, value: Any) -> Any:
    """A recorded setting's value: ``REDACTED`` under a credential name, URLs redacted in text."""
    if is_secret_name(key):
        return REDACTED
    if isinstance(value, str):
        return redact_urls(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return [redact_urls(v) for v in value]
    return value


def scrub_attributes(attributes: Mapping[str, Any], *, prefix: str = "") -> dict[str, Any]:
    """``attributes`` with :func:`scrub_value` applied; a dotted key is a secret if any part is.

    ``prefix`` is left out of the name check (``ragfunnel.pipeline.`` is not a word of a key).
    """
    return {
        key: scrub_value(key[len(prefix) :] if key.startswith(prefix) else key, value)
        for key, value in attributes.items()
    }


def scrub_json(value: Any) -> Any:
    """A JSON-like value with credential-named keys at any depth ``REDACTED`` and URLs redacted."""
    if isinstance(value, Mapping):
        return {
            k: REDACTED if isinstance(k, str) and is_secret_name(k) else scrub_json(v)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [scrub_json(v) for v in value]
    if isinstance(value, str):
        return redact_urls(value)
    return value


def exception_type(exc: BaseException) -> str:
    """The ``exception.type`` of the semantic conventions (module-qualified, as the SDK writes it)."""
    module, name = type(exc).__module__, type(exc).__qualname__
    return f"{module}.{name}" if module and module != "builtins" else name


def exception_record(
    exc: BaseException, *, capture_content: bool, hook: Redactor | None
) -> tuple[str, dict[str, str]]:
    """A failed step's status description and ``exception`` event attributes.

    Content capture off: the type only (``RerankerDown``), since an exception's message and
    stack trace routinely hold the user's question, a document's text or a URL with a key.
    On: ``"{Type}: {message}"`` and the message and stack trace, URLs redacted, through the
    user's hook (attributes ``exception.message`` / ``exception.stacktrace``; ``None`` drops).
    """
    attributes = {"exception.type": exception_type(exc)}
    status = type(exc).__name__
    if not capture_content:
        return status, attributes
    try:
        message: str | None = redact_urls(str(exc))
    except Exception:  # noqa: BLE001 - a __str__ that raises: the type is all there is
        message = None
    if message is not None:
        message = redact(hook, "exception.message", message)
    if message is not None:
        attributes["exception.message"] = message
        status = f"{status}: {message}"
    try:
        stack: str | None = redact_urls("".join(traceback.format_exception(exc)))
    except Exception:  # noqa: BLE001
        stack = None
    if stack is not None and (stack := redact(hook, "exception.stacktrace", stack)) is not None:
        attributes["exception.stacktrace"] = stack
    return status, attributes


Redactor = Callable[[str, str], str | None]
"""A user hook ``(attribute_name, text) -> text | None``; ``None`` drops the value."""


def redact(hook: Redactor | None, attribute: str, text: str) -> str | None:
    """Pass content through the user's redaction hook; a failing hook drops the value."""
    if hook is None:
        return text
    try:
        out = hook(attribute, text)
    except Exception as exc:  # noqa: BLE001 - a broken hook must not leak unredacted text
        internal_error("redaction hook", exc)
        return None
    if out is None or isinstance(out, str):
        return out
    # Hooks are user code: a wrong return type is dropped, never recorded unredacted.
    internal_error("redaction hook", TypeError(f"hook returned {type(out).__name__}"))  # type: ignore[unreachable]
    return None
