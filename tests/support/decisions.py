"""The firmware question of the decision-table tests: its ids, answers, cases and a runner."""

from __future__ import annotations

from typing import Any

from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence
from ragfunnel.analyzer.funnel import FunnelResult, analyze
from ragfunnel.analyzer.store import Store
from tests.support.traces import TraceBuilder

Q = "Which firmware versions need a manual reset?"
A_ID = "release-notes-4.2#known-issues"
B_ID = "runbook-reset#scope"


def filler(n: int, start: int = 1) -> list[str]:
    return [f"f{i}" for i in range(start, start + n)]


def ranked(n: int, **at: int) -> list[str]:
    """n filler ids with the given ids placed at 1-based ranks: ranked(50, a=3)."""
    ids = filler(n)
    for item, rank in at.items():
        ids[rank - 1] = item
    return ids


def case(evidence: Any = None, *, facts: tuple[str, ...] = ("4.2.0", "4.2.1"), **kw: Any) -> Case:
    if evidence is None and kw.get("answerable", True):
        evidence = {"all_of": [A_ID, B_ID]}
    parsed = parse_evidence(evidence) if evidence is not None else None
    return Case(kw.pop("id", "q-017"), kw.pop("question", Q), parsed,
                facts=facts if kw.get("answerable", True) else (), **kw)  # fmt: skip


def run(store: Store, b: TraceBuilder, *cases: Case, **kw: Any) -> FunnelResult:
    b.into(store)
    return analyze(store, CaseSet.of(cases or [case()]), **kw)


def one(result: FunnelResult) -> dict[str, Any]:
    assert result.records.height == 1, result.records
    return result.records.row(0, named=True)


RIGHT = "Firmware 4.2.0 and 4.2.1 need a manual reset."
WRONG = "Firmware 4.2.0 needs a manual reset."
