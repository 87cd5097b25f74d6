"""Span conventions as data: how spans of each source become stage rows.

One declaration per source (:data:`RAGFUNNEL`, :data:`OPENINFERENCE`, :data:`GENAI`) says how
its spans are recognised and where each stage column comes from (``vocabulary.py`` holds the
vocabulary); :func:`stage_select_sql` assembles them into the SELECT that the stage table's
materialized view and the read-time path both run. This package sits below the store: it
imports only the span contract, the analyzer's error root and the standard library, and it
never talks to a store.
"""

from __future__ import annotations

from ragfunnel.analyzer.conventions.assemble import (
    BUCKETS,
    STAGE_COLUMN_NAMES,
    ConventionError,
    stage_select_sql,
)
from ragfunnel.analyzer.conventions.catalog import CONVENTIONS
from ragfunnel.analyzer.conventions.genai import GENAI
from ragfunnel.analyzer.conventions.openinference import OPENINFERENCE
from ragfunnel.analyzer.conventions.ragfunnel import RAGFUNNEL
from ragfunnel.analyzer.conventions.vocabulary import (
    AllOf,
    Attr,
    Condition,
    Convention,
    Documents,
    FirstOf,
    FlatDocuments,
    Has,
    JsonDocuments,
    JsonList,
    JsonText,
    OneOf,
    RunSettings,
    SpanName,
    SpanNamed,
    StageFields,
    StageRule,
    Text,
)

__all__ = [
    "BUCKETS",
    "CONVENTIONS",
    "GENAI",
    "OPENINFERENCE",
    "RAGFUNNEL",
    "STAGE_COLUMN_NAMES",
    "AllOf",
    "Attr",
    "Condition",
    "Convention",
    "ConventionError",
    "Documents",
    "FirstOf",
    "FlatDocuments",
    "Has",
    "JsonDocuments",
    "JsonList",
    "JsonText",
    "OneOf",
    "RunSettings",
    "SpanName",
    "SpanNamed",
    "StageFields",
    "StageRule",
    "Text",
    "stage_select_sql",
]
