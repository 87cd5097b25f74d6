"""The conventions the analyzer reads, in precedence order.

A span belongs to the first whose marker it carries. Adding a convention is adding its
declaration here (and its tests), plus a store revision that replaces the stage view so that
existing stores pick up the new SELECT (docs/funnel.md, "Adding a span convention"). Data
only.
"""

from __future__ import annotations

from ragfunnel.analyzer.conventions.genai import GENAI
from ragfunnel.analyzer.conventions.openinference import OPENINFERENCE
from ragfunnel.analyzer.conventions.ragfunnel import RAGFUNNEL
from ragfunnel.analyzer.conventions.vocabulary import Convention

__all__ = ["CONVENTIONS"]

CONVENTIONS: tuple[Convention, ...] = (RAGFUNNEL, OPENINFERENCE, GENAI)
