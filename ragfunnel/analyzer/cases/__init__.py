"""Evaluation cases: load, validate, and flatten them for the funnel (docs/funnel.md, "Cases").

A case names a question, the evidence a correct answer needs (``all_of`` / ``any_of`` groups,
nestable), and optionally a reference answer, the facts a correct answer must state, or
``answerable: false``. Cases come from YAML, JSON, JSON Lines or CSV; every problem is reported
with the file, the line where the format allows it, the case and the field, and all problems are
reported at once so a 500-case file is fixed in one pass.

Modules: ``evidence`` (the trees and their parser), ``model`` (``Case``), ``caseset``
(``CaseSet``), ``problems`` (``CaseProblem``, ``CaseError``), ``readers`` (one per format),
``validation`` (record → case), ``loading`` (``load_cases``). This package only reads files
and builds values: it never touches the store.
"""

from __future__ import annotations

from ragfunnel.analyzer.cases.case import Case
from ragfunnel.analyzer.cases.caseset import CaseSet
from ragfunnel.analyzer.cases.evidence import (
    AllOf,
    AnyOf,
    Evidence,
    Leaf,
    evidence_ids,
    evidence_to_data,
    parse_evidence,
)
from ragfunnel.analyzer.cases.loading import load_cases
from ragfunnel.analyzer.cases.problems import CaseError, CaseProblem, EvidenceError

__all__ = [
    "AllOf",
    "AnyOf",
    "Case",
    "CaseError",
    "CaseProblem",
    "CaseSet",
    "Evidence",
    "EvidenceError",
    "Leaf",
    "evidence_ids",
    "evidence_to_data",
    "load_cases",
    "parse_evidence",
]
