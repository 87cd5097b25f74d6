"""Evaluation cases: load, validate, and flatten them for the funnel (docs/funnel.md, "Cases").

A case names a question, the evidence a correct answer needs (``all_of`` / ``any_of`` groups,
nestable, of chunk ids or of document leaves: a quote or a character span), and optionally a reference answer, the facts a correct answer must state, or
``answerable: false``. Cases come from YAML, JSON, JSON Lines or CSV; every problem is reported
with the file, the line where the format allows it, the case and the field, and all problems are
reported at once so a 500-case file is fixed in one pass.

Modules: ``evidence`` (the trees and their parser), ``model`` (``Case``), ``caseset``
(``CaseSet``), ``problems`` (``CaseProblem``, ``CaseError``), ``readers`` (one per format),
``validation`` (record → case), ``loading`` (``load_cases``), ``resolution`` (document leaves →
chunk ids of one index version), ``rebase`` (chunk ids → document leaves, for ``cases rebase``), ``writing`` (cases back to a
file). This package reads and writes
files and builds values: it never touches the store.
"""

from __future__ import annotations

from ragfunnel.analyzer.cases.case import Case
from ragfunnel.analyzer.cases.caseset import CaseSet
from ragfunnel.analyzer.cases.evidence import (
    AllOf,
    AnyOf,
    DocumentLeaf,
    Evidence,
    Leaf,
    Quote,
    Span,
    evidence_ids,
    evidence_to_data,
    has_document_leaves,
    parse_evidence,
)
from ragfunnel.analyzer.cases.loading import load_cases
from ragfunnel.analyzer.cases.problems import CaseError, CaseProblem, EvidenceError
from ragfunnel.analyzer.cases.rebase import ChunkSource, Rebased, RebaseProblem, rebase_cases
from ragfunnel.analyzer.cases.resolution import DocumentChunks, Resolution, Resolver, fold_text
from ragfunnel.analyzer.cases.writing import case_to_data, cases_text, write_cases

__all__ = [
    "AllOf",
    "AnyOf",
    "Case",
    "CaseError",
    "CaseProblem",
    "CaseSet",
    "ChunkSource",
    "DocumentChunks",
    "DocumentLeaf",
    "Evidence",
    "EvidenceError",
    "Leaf",
    "Quote",
    "RebaseProblem",
    "Rebased",
    "Resolution",
    "Resolver",
    "Span",
    "case_to_data",
    "cases_text",
    "evidence_ids",
    "evidence_to_data",
    "fold_text",
    "has_document_leaves",
    "load_cases",
    "parse_evidence",
    "rebase_cases",
    "write_cases",
]
