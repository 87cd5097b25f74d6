"""What one ingest did: spans read, inserted and duplicate, and every problem by file and line."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.nouns import count, plural

__all__ = ["IngestError", "IngestSummary", "Skip"]


class IngestError(AnalyzerError):
    """Ingest could not run at all (no input, an unreachable Jaeger, an unreadable path)."""


@dataclass(frozen=True)
class Skip:
    """One problem: what was skipped (or repaired, for a note), and where."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass
class IngestSummary:
    """The outcome of an ingest.

    Attributes:
        read: spans read from the input that could become rows (``inserted + duplicates``).
        inserted: rows added to the store.
        duplicates: spans already in the store, or repeated in the input (same TraceId and
            SpanId), which were not added again.
        skipped: lines, documents or spans that could not be read, each with its place.
        notes: repairs that kept a span: a value cut to size, a negative duration set to 0,
            bytes that were not UTF-8.
        files: input files (or Jaeger answers) that were read.
        unchanged: files passed over because an earlier ingest read them and they have not
            changed since (see ``rescan``).
    """

    read: int = 0
    inserted: int = 0
    duplicates: int = 0
    skipped: list[Skip] = field(default_factory=list)
    notes: list[Skip] = field(default_factory=list)
    files: int = 0
    unchanged: int = 0

    def merge(self, other: IngestSummary) -> None:
        """Add ``other``'s counts and messages to this summary."""
        self.read += other.read
        self.inserted += other.inserted
        self.duplicates += other.duplicates
        self.skipped.extend(other.skipped)
        self.notes.extend(other.notes)
        self.files += other.files
        self.unchanged += other.unchanged

    def describe(self) -> str:
        """One line for people: ``1,200 spans read: 1,000 inserted, 200 duplicates; 3 skipped``."""
        text = (
            f"{count(self.read, 'span')} read: "
            f"{self.inserted:,} inserted, {count(self.duplicates, 'duplicate')}"
        )
        if self.skipped:
            files = len({skip.file for skip in self.skipped})
            text += f"; {count(len(self.skipped), 'problem')} skipped in {count(files, 'file')}"
        if self.notes:
            text += f"; {len(self.notes):,} repaired"
        if self.unchanged:
            text += (
                f"; {count(self.unchanged, 'file')} {plural(self.unchanged, 'was')} "
                "already ingested and unchanged"
            )
        return text
