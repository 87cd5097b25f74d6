"""Configuration can never break the app: bad environment warns and falls back, bad arguments
raise ConfigError, and a disabled ragfunnel leaves no trace of itself (docs/reliability.md)."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ragfunnel
from ragfunnel.instrumentation import config


@ragfunnel.retrieve(name="bm25")
def search(query: str) -> list[str]:
    return ["a"]


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a fresh process: the first decorated call configures from the environment."""
    monkeypatch.setattr(config, "_state", None)


def test_an_unwritable_exporter_path_in_the_environment_never_reaches_the_app(
    unconfigured: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("RAGFUNNEL_EXPORTER", "file:/proc/nope/s.jsonl")
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        assert search("q") == ["a"]
    st = config.current_state()
    assert st is not None and st.enabled and st.processor is None
    assert "RAGFUNNEL_EXPORTER='file:/proc/nope/s.jsonl'" in caplog.text
    assert "cannot write traces to /proc/nope/s.jsonl" in caplog.text


def test_a_read_only_working_directory_with_the_default_exporter(
    unconfigured: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("RAGFUNNEL_EXPORTER")
    monkeypatch.chdir("/proc")  # not writable, even for root
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        assert search("q") == ["a"]
    assert "cannot write traces to .ragfunnel/traces/spans-" in caplog.text


def test_an_explicit_unwritable_path_is_a_config_error() -> None:
    with pytest.raises(ragfunnel.ConfigError, match=r"cannot write traces to /proc/nope/s\.jsonl"):
        ragfunnel.configure(exporter="file:/proc/nope/s.jsonl")


def test_an_unexpected_failure_of_the_first_configure_is_counted_not_raised(
    unconfigured: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragfunnel.instrumentation import safety

    def broken(**_: object) -> None:
        raise RuntimeError("a bug in configure")

    monkeypatch.setattr(config, "configure", broken)
    safety.RERAISE = False
    assert search("q") == ["a"]
    assert search("q") == ["a"]
    assert ragfunnel.internal_error_counts() == {"configuring from the environment": 1}
    st = config.current_state()
    assert st is not None and not st.enabled


def _run(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    import os

    full_env = {k: v for k, v in os.environ.items() if not k.startswith("RAGFUNNEL_")}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_disabled_leaves_no_file_and_no_provider_behind(tmp_path: Path) -> None:
    out = _run(
        """
        import logging, warnings
        from pathlib import Path
        import ragfunnel
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider

        @ragfunnel.retrieve
        def search(query):
            return ["a"]

        assert search("q") == ["a"]
        assert not Path(".ragfunnel").exists(), "a trace file was created"
        assert not isinstance(trace.get_tracer_provider(), TracerProvider)
        mine = TracerProvider()
        trace.set_tracer_provider(mine)  # the app sets up OpenTelemetry afterwards
        assert trace.get_tracer_provider() is mine
        print("ok")
        """,
        tmp_path,
        RAGFUNNEL_ENABLED="false",
        RAGFUNNEL_REDACT="module_that_does_not_exist:hook",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert "Overriding" not in out.stderr
    assert "RAGFUNNEL_REDACT" not in out.stderr  # not even imported when disabled
    assert list(tmp_path.iterdir()) == []


def test_disabling_stops_the_current_exporter() -> None:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    ragfunnel.configure(exporter=exporter, batch=False)
    search("q")
    ragfunnel.configure(enabled=False)
    search("q")
    assert len(exporter.get_finished_spans()) == 1
    st = config.current_state()
    assert st is not None and st.processor is None and st.tracer is None
