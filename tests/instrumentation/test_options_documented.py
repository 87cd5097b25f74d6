"""Every option a decorator accepts is documented, and one that would do nothing is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.stages import allowed_options

ROOT = Path(__file__).resolve().parents[2]


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def _documented_rows() -> dict[str, set[str]]:
    """option → the stages its row in docs/span-contract.md names."""
    table = _section((ROOT / "docs" / "span-contract.md").read_text(), "Decorator options")
    rows: dict[str, set[str]] = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        stages = {s.strip() for s in cells[1].split(",")}
        if stages == {"all"}:
            stages = {s.value for s in c.Stage}
        for option in re.findall(r"`(\w+)=`", cells[0]):
            rows.setdefault(option, set()).update(stages)
    return rows


@pytest.mark.parametrize("stage", list(c.Stage), ids=lambda s: s.value)
def test_every_accepted_option_has_a_row_naming_its_stage(stage: c.Stage) -> None:
    rows = _documented_rows()
    for option in allowed_options(stage):
        assert stage.value in rows.get(option, set()), (option, stage.value)
    readme = (ROOT / "README.md").read_text()
    for option in allowed_options(stage) - {"text_of"}:
        assert f"`{option}=`" in readme, option


def test_no_documented_option_is_refused() -> None:
    for option, stages in _documented_rows().items():
        for stage in stages:
            # Outside a question, users spell the answer reader text=; it is stored as text_of.
            name = "text_of" if option == "text" and stage != "question" else option
            assert name in allowed_options(c.Stage(stage)), (option, stage)


@pytest.mark.parametrize(
    ("decorator", "option"),
    [("question", "ids"), ("generate", "scores"), ("ingest", "scores"), ("retrieve", "text")],
)
def test_an_option_that_would_do_nothing_is_refused(decorator: str, option: str) -> None:
    with pytest.raises(TypeError, match=f"unknown option.*{option}.*Decorator options"):
        getattr(ragfunnel, decorator)(**{option: lambda r: r})
