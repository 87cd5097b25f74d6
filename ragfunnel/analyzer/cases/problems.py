"""How a bad cases file is reported: one located problem each, all of them in one error.

A problem names the file, the line where the format has one, the case and the field; the error
carries every problem found so a 500-case file is fixed in one pass. This module holds values
only: it never reads a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.nouns import count

__all__ = ["MAX_PROBLEMS_SHOWN", "CaseError", "CaseProblem", "EvidenceError"]

MAX_PROBLEMS_SHOWN = 25


@dataclass(frozen=True)
class CaseProblem:
    """One validation problem, located as precisely as the format allows.

    ``column`` (1-based) is set for syntax errors, whose parsers know it: ``cases.yaml:4:13``.
    """

    file: str
    line: int | None
    case: str | None
    field: str | None
    message: str
    column: int | None = None

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        where += f":{self.column}" if self.line and self.column else ""
        parts = [where]
        if self.case is not None:
            parts.append(f"case {self.case!r}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return ": ".join(parts) + ": " + self.message


# ValueError stays a base so callers that caught the old ValueError keep working.
class CaseError(AnalyzerError, ValueError):
    """The cases file is unreadable or invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[CaseProblem]):
        self.problems = tuple(problems)
        shown = [str(p) for p in self.problems[:MAX_PROBLEMS_SHOWN]]
        more = len(self.problems) - len(shown)
        if more > 0:
            shown.append(f"... and {count(more, 'more problem')}")
        super().__init__(
            f"{count(len(self.problems), 'problem')} in cases:\n  " + "\n  ".join(shown)
        )


class EvidenceError(AnalyzerError, ValueError):
    """An ``evidence`` value is malformed; the message names the offending part."""
