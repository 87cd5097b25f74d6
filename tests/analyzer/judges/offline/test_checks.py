"""checks.py: the offline judge's contradiction checks, listed in one place and run in order."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from ragfunnel.analyzer.judges.offline import checks
from ragfunnel.analyzer.judges.offline.align import align
from ragfunnel.analyzer.judges.offline.checks import CHECKS, AlignedClaim, Findings, run_checks
from ragfunnel.analyzer.judges.offline.hard import FactCheck
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.verdict_types import Chunk

OFFLINE = Path(checks.__file__).parent


def _findings(claim: str, context: str) -> Findings:
    return align(claim, ContextIndex.of([Chunk("c1", context)], paraphrase=False)).findings


def test_every_check_fills_the_findings_field_of_its_name_in_order() -> None:
    assert [c.name for c in CHECKS] == [f.name for f in dataclasses.fields(Findings)]
    assert len({c.find for c in CHECKS}) == len(CHECKS)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.name)
def test_every_check_says_in_one_line_what_it_catches_and_where_its_rules_are(
    check: checks.Check[object],
) -> None:
    doc = check.find.__doc__ or ""
    assert doc.strip() and "\n" not in doc.strip(), check.name
    module = re.search(r"``(\w+\.py)``", check.catches)
    assert module is not None, check.catches
    assert (OFFLINE / module.group(1)).is_file(), module.group(1)


@pytest.mark.parametrize(
    ("claim", "context", "field", "told"),
    [
        ("The hotel allowance is 150 EUR a night.", "The hotel allowance is 120 EUR a night.",
         "facts", "150 EUR a night (context: 120 EUR a night)"),
        ("Employees can always work from home.", "Employees can work from home on Fridays.",
         "qualifiers", "always"),
        ("The Munich office opens at 8:00.", "The Berlin office opens at 8:00.",
         "swapped", "munich (context: Berlin)"),
        ("Alcohol is reimbursed at client dinners.", "Alcohol is not reimbursed at client dinners.",
         "negation", "the context negates it ('not')"),
        ("The room can be booked even if another member has reserved it.",
         "The room can be booked unless another member has reserved it.",
         "exception", "condition 'even if another member has reserved it' (the context: 'unless')"),
    ],
)  # fmt: skip
def test_each_check_finds_its_own_contradiction_and_no_other(
    claim: str, context: str, field: str, told: str
) -> None:
    found = _findings(claim, context)
    assert found.hard == [told]
    for check in CHECKS:
        said = check.told(getattr(found, check.name))
        assert said == ([told] if check.name == field else []), check.name


def test_a_claim_the_context_states_has_no_finding() -> None:
    found = _findings(
        "The Berlin office opens at 8:00 on weekdays.",
        "The Berlin office opens at 8:00 on weekdays.",
    )
    assert found.hard == []
    assert found.facts.absent == []


def test_findings_are_told_in_the_order_of_the_checks() -> None:
    found = _findings(
        "Employees can always claim 150 EUR a night at the Munich office.",
        "Employees can claim 120 EUR a night at the Berlin office.",
    )
    assert found.hard == [
        "150 EUR a night (context: 120 EUR a night)",
        "always",
        "munich (context: Berlin)",
    ]
    made = Findings(FactCheck(hard=["4.2.2"]), ["never"], ["x (context: Y)"], "negated", "except")
    assert made.hard == ["4.2.2", "never", "x (context: Y)", "negated", "except"]


def test_run_checks_reads_only_the_aligned_claim() -> None:
    """The checks see what the claim object holds: another window is another finding."""
    index = ContextIndex.of(
        [Chunk("a", "The Berlin office opens at 8:00."), Chunk("b", "Parking is free.")],
        paraphrase=False,
    )
    claim = AlignedClaim(
        content="The Munich office opens at 8:00.",
        folded="the munich office opens at 8:00.",
        facts=[],
        tokens=frozenset({"the", "munich", "office", "opens", "at", "8", "00"}),
        roots=["munich", "offic", "open"],
        missing=["munich"],
        names=["munich"],
        window=[0],
        copied=True,
        coverage=2 / 3,
        index=index,
    )
    assert run_checks(claim).swapped == ["munich (context: Berlin)"]
    assert run_checks(dataclasses.replace(claim, window=[1])).swapped == []
    assert run_checks(dataclasses.replace(claim, window=[0, 1])).swapped == []
