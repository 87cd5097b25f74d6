"""``tests/support/collector.py``: the e2e stack starts again on new ports when one it picked free
was taken before the binary bound it (CI saw the collector's health port taken so)."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from tests.support import collector


def test_the_ports_picked_are_distinct() -> None:
    assert len(set(collector.free_ports(collector.PORTS).values())) == len(collector.PORTS)


def test_a_port_taken_before_the_collector_binds_it_is_picked_again(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    picked: list[dict[str, int]] = []
    pick = collector.free_ports

    def first_taken(names: tuple[str, ...]) -> dict[str, int]:
        ports = pick(names)
        if not picked:  # the first start finds its health port taken
            ports["health"] = taken.getsockname()[1]
        picked.append(ports)
        return ports

    monkeypatch.setattr(collector, "free_ports", first_taken)
    started = collector.running_stack(tmp_path_factory)
    try:
        stack = next(started)
        assert len(picked) == 2  # tried again only because the log said the port was taken
        assert stack.ports == picked[1]
        health = f"http://127.0.0.1:{stack.ports['health']}/"
        with urllib.request.urlopen(health, timeout=5) as answer:  # loopback only
            assert answer.status == 200
    finally:
        started.close()
        taken.close()
