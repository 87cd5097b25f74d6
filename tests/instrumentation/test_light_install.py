"""The base install goes into production services: OpenTelemetry only (README "Install")."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import requires

HEAVY = ("polars", "clickhouse_connect", "clickhouse-connect", "chdb", "typer", "pyarrow")


def test_base_requirements_are_opentelemetry_only() -> None:
    base = [r for r in requires("ragfunnel") or [] if "extra ==" not in r]
    assert base
    for requirement in base:
        assert requirement.startswith("opentelemetry-"), requirement


def test_import_ragfunnel_works_without_analyzer_dependencies_and_loads_none() -> None:
    # Block the heavy packages outright: importing them would raise ImportError.
    code = (
        "import sys\n"
        f"for name in {HEAVY!r}: sys.modules[name.replace('-', '_')] = None\n"
        "import ragfunnel, ragfunnel.testing\n"
        "@ragfunnel.retrieve\n"
        "def f(query): return ['a']\n"
        "ragfunnel.configure(exporter='none')\n"
        "assert f('q') == ['a']\n"
        f"loaded = [m for m in {HEAVY!r} if sys.modules.get(m.replace('-', '_')) is not None]\n"
        "assert not loaded, loaded\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
