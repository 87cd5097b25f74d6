"""environment_variables.py: the one reader of the environment, and the one writer."""

from __future__ import annotations

import pytest

from ragfunnel.environment_variables import defaults_for_children, is_set, read, turned_off


def test_defaults_for_children_set_only_what_the_user_left_unset_and_leave_nothing_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "8")
    monkeypatch.delenv("RAYON_NUM_THREADS", raising=False)
    with defaults_for_children({"OMP_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1"}):
        assert read("OMP_NUM_THREADS") == "8"  # the user's own stays
        assert read("RAYON_NUM_THREADS") == "1"
    assert read("OMP_NUM_THREADS") == "8" and not is_set("RAYON_NUM_THREADS")
    with pytest.raises(RuntimeError), defaults_for_children({"RAYON_NUM_THREADS": "1"}):
        raise RuntimeError
    assert not is_set("RAYON_NUM_THREADS")


@pytest.mark.parametrize(
    ("value", "off"),
    [("0", True), (" OFF ", True), ("False", True), ("no", True), ("1", False), ("", False)],
)
def test_turned_off_reads_the_switch_words_in_any_case(
    monkeypatch: pytest.MonkeyPatch, value: str, off: bool
) -> None:
    monkeypatch.setenv("RAGFUNNEL_NATIVE", value)
    assert turned_off("RAGFUNNEL_NATIVE") is off
    monkeypatch.delenv("RAGFUNNEL_NATIVE")
    assert turned_off("RAGFUNNEL_NATIVE") is False
