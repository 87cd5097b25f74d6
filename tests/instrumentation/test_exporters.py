"""Exporter specs and the OTLP protocol, with and without the ``[grpc]`` extra (README, Install)."""

from __future__ import annotations

import logging
import sys

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter

import ragfunnel
from ragfunnel.instrumentation.exporters import make_exporter

GRPC_MODULE = "opentelemetry.exporter.otlp.proto.grpc.trace_exporter"


@pytest.fixture(autouse=True)
def _no_protocol_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")  # never contacted


@pytest.fixture
def without_grpc(monkeypatch: pytest.MonkeyPatch) -> None:
    """The base install: importing the gRPC exporter fails."""
    monkeypatch.setitem(sys.modules, GRPC_MODULE, None)


def _kind(spec: str) -> type:
    exporter = make_exporter(spec)
    assert exporter is not None
    exporter.shutdown()
    return type(exporter)


def test_with_the_extra_otlp_defaults_to_grpc_like_the_python_sdk() -> None:
    assert _kind("otlp") is GrpcExporter
    assert _kind("otlp+grpc") is GrpcExporter
    assert _kind("otlp+http") is HttpExporter


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, HttpExporter),
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": " grpc "}, GrpcExporter),
        (
            {
                "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
                "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
            },
            HttpExporter,
        ),
    ],
)
def test_the_standard_protocol_variables_choose(
    variables: dict[str, str], expected: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert _kind("otlp") is expected


def test_an_unsupported_protocol_variable_warns_and_uses_the_default(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        assert _kind("otlp") is GrpcExporter
    assert "ignoring OTEL_EXPORTER_OTLP_PROTOCOL='http/json'" in caplog.text


def test_without_the_extra_otlp_uses_http(without_grpc: None) -> None:
    assert _kind("otlp") is HttpExporter
    assert _kind("otlp+http") is HttpExporter


def test_without_the_extra_an_explicit_grpc_exporter_is_a_config_error(without_grpc: None) -> None:
    with pytest.raises(ragfunnel.ConfigError, match=r"pip install 'ragfunnel\[grpc\]'"):
        ragfunnel.configure(exporter="otlp+grpc")


def test_without_the_extra_a_grpc_protocol_variable_warns_and_uses_http(
    without_grpc: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        assert _kind("otlp") is HttpExporter
    assert "ignoring OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in caplog.text
    assert "ragfunnel[grpc]" in caplog.text


def test_without_the_extra_a_grpc_exporter_variable_warns_and_exports_nothing(
    without_grpc: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("RAGFUNNEL_EXPORTER", "otlp+grpc")
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        st = ragfunnel.configure()
    assert st.enabled and st.processor is None
    assert "ignoring RAGFUNNEL_EXPORTER='otlp+grpc'" in caplog.text
    assert "ragfunnel[grpc]" in caplog.text


def test_a_bad_protocol_in_the_spec_is_a_config_error() -> None:
    with pytest.raises(ragfunnel.ConfigError, match="unsupported OTLP protocol 'carrier'"):
        ragfunnel.configure(exporter="otlp+carrier")
