"""Every shipped collector and Jaeger configuration passes the real binaries' ``validate``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.collector import CONFIG, binaries

CONFIGS = sorted(p.name for p in CONFIG.glob("*.yaml") if p.name.startswith(("otelcol", "jaeger")))


def test_every_config_is_covered() -> None:
    assert CONFIGS == ["jaeger.yaml", "otelcol-nodb.yaml", "otelcol.yaml"]


@pytest.mark.parametrize("name", CONFIGS)
def test_validate(name: str) -> None:
    otelcol, jaeger = binaries()
    binary = jaeger if name.startswith("jaeger") else otelcol
    env = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    out = subprocess.run(
        [binary, "validate", f"--config={CONFIG / name}"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]


def test_validate_rejects_a_broken_config(tmp_path: Path) -> None:
    otelcol, _ = binaries()
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        (CONFIG / "otelcol-nodb.yaml")
        .read_text()
        .replace("memory_limiter, batch", "memory_limiter, nonesuch")
    )
    out = subprocess.run(
        [otelcol, "validate", f"--config={broken}"], capture_output=True, text=True, check=False
    )
    assert out.returncode != 0
    assert "nonesuch" in out.stderr
