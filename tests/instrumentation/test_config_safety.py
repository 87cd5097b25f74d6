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


@pytest.mark.parametrize(
    ("variable", "raw"),
    [
        ("RAGFUNNEL_EXPORT_DELAY_S", "0"),
        ("RAGFUNNEL_EXPORT_DELAY_S", "-1"),
        ("RAGFUNNEL_EXPORT_DELAY_S", "nan"),
        ("RAGFUNNEL_EXPORT_DELAY_S", "inf"),
        ("RAGFUNNEL_EXPORT_DELAY_S", "soon"),
        ("RAGFUNNEL_MAX_QUEUE_SIZE", "0"),
        ("RAGFUNNEL_MAX_QUEUE_SIZE", "-5"),
        ("RAGFUNNEL_MAX_QUEUE_SIZE", "1.5"),
    ],
)
def test_bad_export_settings_in_the_environment_warn_and_fall_back(
    variable: str, raw: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from ragfunnel.instrumentation.export import BoundedBatchProcessor

    monkeypatch.setenv(variable, raw)
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        st = ragfunnel.configure(exporter=InMemorySpanExporter())
    processor = st.processor
    assert isinstance(processor, BoundedBatchProcessor)
    assert processor._delay == 1.0 and processor._max_queue == 2048
    assert f"ignoring {variable}={raw!r}" in caplog.text


def test_the_export_worker_sleeps_between_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    monkeypatch.setenv("RAGFUNNEL_EXPORT_DELAY_S", "0")  # used to busy-loop the worker
    ragfunnel.configure(exporter=InMemorySpanExporter())
    (worker,) = [t for t in threading.enumerate() if t.name == "ragfunnel-export" and t.is_alive()]
    assert worker.native_id is not None
    clock = time.pthread_getcpuclockid(worker.ident or 0)
    before = time.clock_gettime(clock)
    time.sleep(0.5)
    assert time.clock_gettime(clock) - before < 0.05  # idle: well under a tenth of a core


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"enabled": "false"}, "enabled must be True or False"),
        ({"capture_content": "yes"}, "capture_content must be True, False or content kinds"),
        ({"capture_content": "answers"}, "unknown content kind .answers."),
        ({"capture_content": 1}, "capture_content must be True, False or content kinds"),
        ({"batch": 0}, "batch must be True or False"),
        ({"run_id": ""}, "run_id must be a non-empty string"),
        ({"service_name": 42}, "service_name must be a non-empty string"),
        ({"tracer_provider": object()}, "tracer_provider must be an opentelemetry"),
        ({"exporter": 3}, "exporter must be a string or a SpanExporter"),
        ({"exporter": "kafka:topic"}, "unknown exporter 'kafka:topic'"),
        ({"pipeline": ["k", 10]}, "pipeline must be a mapping"),
        ({"redact": "my.module:hook"}, "redact must be a callable"),
    ],
)
def test_bad_explicit_arguments_raise_config_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ragfunnel.ConfigError, match=message):
        ragfunnel.configure(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_queue_size": 0},
        {"max_batch_size": 0},
        {"schedule_delay_s": 0},
        {"schedule_delay_s": -1},
    ],
)
def test_the_processor_refuses_what_the_sdk_refuses(kwargs: dict[str, float]) -> None:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from ragfunnel.instrumentation.export import BoundedBatchProcessor

    with pytest.raises(ValueError, match="must be"):
        BoundedBatchProcessor(InMemorySpanExporter(), **kwargs)  # type: ignore[arg-type]


def test_a_pipeline_too_big_for_a_span_is_refused(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # The SDK keeps 128 attributes per span and evicts the oldest: ragfunnel's own.
    huge = {f"setting_{i}": i for i in range(65)}
    with pytest.raises(ragfunnel.ConfigError, match="pipeline has 65 settings"):
        ragfunnel.configure(exporter="none", pipeline=huge)
    import json

    monkeypatch.setenv("RAGFUNNEL_PIPELINE", json.dumps(huge))
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        st = ragfunnel.configure(exporter="none")
    assert st.pipeline_attributes == {}
    assert "ignoring RAGFUNNEL_PIPELINE (65 settings" in caplog.text
    with pytest.raises(TypeError, match="at most 64 attributes"):
        ragfunnel.retrieve(attributes={f"a{i}": i for i in range(65)})(search.__wrapped__)
