"""Switch between the native converter (ragfunnel-native) and the pure-Python one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ragfunnel.analyzer.ingest import native as _native


@contextmanager
def converter_switch(*, native: bool) -> Iterator[None]:
    # Not monkeypatch: hypothesis runs many examples in one function-scoped fixture.
    before = os.environ.get(_native.NATIVE_ENV)
    os.environ[_native.NATIVE_ENV] = "1" if native else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[_native.NATIVE_ENV]
        else:
            os.environ[_native.NATIVE_ENV] = before
