"""Suite-wide fixtures: ragfunnel's internal errors fail tests, and no span is left open."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragfunnel.instrumentation import config, safety


@pytest.fixture(autouse=True)
def _reraise_internal_errors() -> Iterator[None]:
    # Bugs inside ragfunnel must not hide behind the never-raise-into-the-app rule.
    safety.RERAISE = True
    safety.reset_internal_errors()
    yield
    safety.RERAISE = True


@pytest.fixture(autouse=True)
def _no_default_file_export(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    # A test that forgets capture_spans() must not litter the repository with trace files.
    monkeypatch.setenv("RAGFUNNEL_EXPORTER", "none")
    previous = config.current_state()
    yield
    config.restore(previous)
