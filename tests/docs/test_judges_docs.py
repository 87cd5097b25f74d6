"""docs/judges.md shows the prompts the code sends, verbatim, with their versions."""

from __future__ import annotations

from pathlib import Path

from ragfunnel.analyzer.judges.llm import prompts

DOCS = (Path(__file__).parents[2] / "docs" / "judges.md").read_text(encoding="utf-8")


def test_every_prompt_is_documented_verbatim() -> None:
    for version, messages in (
        (prompts.CLAIMS_VERSION, prompts.claims_messages("a", None)),
        (prompts.VERDICTS_VERSION, prompts.verdicts_messages(["c"], [])),
        (prompts.FACTCHECK_VERSION, prompts.factcheck_messages("c", [])),
        (prompts.CORRECTNESS_VERSION, prompts.correctness_messages("q", "a", "r")),
    ):
        assert f"`{version}`" in DOCS
        assert messages[0]["content"] in DOCS, f"the {version} system prompt drifted from the docs"
