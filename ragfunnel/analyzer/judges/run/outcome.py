"""What one ``judge_store`` call did: the run's counts, rows, usage and warnings.

``JudgeRun`` is what ``ragfunnel judge`` prints and writes as ``--json``; ``count_textless``
counts the answers that could not be judged for lack of text, with the fix for each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragfunnel.analyzer.judges.answers import ANSWER_TEXT_FIX, CHUNK_TEXT_FIX
from ragfunnel.analyzer.nouns import count
from ragfunnel.analyzer.stats import Estimate
from ragfunnel.analyzer.store.tables.verdicts import VerdictRow, deciding_rows

__all__ = ["MAX_FAILED_SHARE", "JudgeRun", "SameModelWarning", "count_textless"]

MAX_FAILED_SHARE = 0.1
"""More than this share of failed LLM calls fails the run (``ragfunnel judge`` exits 1)."""


class SameModelWarning(UserWarning):
    """The judge model also generated the answers it judges."""


@dataclass
class JudgeRun:
    """What one ``judge_store`` call did.

    Attributes:
        policy: the policy used.
        answers: answers found; judged: answers with a verdict; abstained: answers without
            claims; without_content: answers not judged for lack of recorded text, of which
            without_answer_text had no answer text and without_chunk_text had the answer but
            no text for some chunk of its prompt (nor ids to find it by).
        filled_chunks, filled_answers: the chunks whose text the chunk file gave (missing, or
            recorded equal to the chunk's id), and the answers whose prompt held one.
        not_judged: per answer not judged for lack of text, what is missing and the fix.
        sent_to_llm: answers the tiered policy escalated (flagged or sampled), and why.
        rows: the verdict rows written (or that would be, with ``write=False``); empty when
            ``judge_store`` was asked not to keep them (``keep_rows=False``, the CLI's way to
            judge any number of answers in bounded memory).
        row_count: the verdict rows made (written unless ``write=False``), kept or not.
        usage: calls, tokens and cost of the LLM or fact-checking judge.
        estimates: the tiered policy's rates from its random sample.
        errors: answers the endpoint could not judge, with the reason.
        warnings: e.g. the judge model equals the generator's.
    """

    policy: str
    answers: int = 0
    judged: int = 0
    abstained: int = 0
    without_content: int = 0
    without_answer_text: int = 0
    without_chunk_text: int = 0
    filled_chunks: int = 0
    filled_answers: int = 0
    not_judged: list[str] = field(default_factory=list)
    sent_to_llm: dict[str, int] = field(default_factory=dict)
    rows: list[VerdictRow] = field(default_factory=list)
    row_count: int = 0
    usage: dict[str, Any] = field(default_factory=dict)
    estimates: dict[str, Estimate] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    _sums: dict[str, list[float]] = field(default_factory=dict, repr=False, compare=False)

    def add_rows(self, rows: list[VerdictRow], *, keep: bool = True) -> None:
        """Count a page's verdict rows (every row of an answer in one page), keeping them or not.

        The means of :attr:`faithfulness` and :attr:`confidence` are summed page by page, so
        they hold when the rows are not kept.
        """
        self.row_count += len(rows)
        for row in deciding_rows(rows):
            for name in ("Faithfulness", "Confidence"):
                if row[name] is not None:
                    total = self._sums.setdefault(name, [0.0, 0])
                    total[0] += row[name]
                    total[1] += 1
        if keep:
            self.rows.extend(rows)

    def _mean(self, name: str) -> float | None:
        if self.rows or not self.row_count:  # kept (or made by hand): from the rows
            values = [r[name] for r in deciding_rows(self.rows) if r[name] is not None]
            return sum(values) / len(values) if values else None
        total, count = self._sums.get(name, [0.0, 0])
        return total / count if count else None

    @property
    def failure(self) -> str | None:
        """Why this run failed, or ``None``: the reason ``ragfunnel judge`` exits 1.

        It failed when there were answers and none was judged, or when more than
        :data:`MAX_FAILED_SHARE` of the LLM calls failed (or were refused by the breaker).
        """
        if self.answers and not self.judged:
            head = (f"judged none of the {self.answers:,} answers" if self.answers > 1
                    else "did not judge the 1 answer")  # fmt: skip
            return head + self._missing_text()
        if self.usage:
            calls = self.usage["calls"] + self.usage["refused"]
            bad = self.usage["failed"] + self.usage["refused"]
            if calls and bad / calls > MAX_FAILED_SHARE:
                return (f"{bad:,} of {count(calls, 'judge call')} failed, more than "
                        f"{MAX_FAILED_SHARE:.0%}")  # fmt: skip
        return None

    def _missing_text(self) -> str:
        """Whose text the answers not judged lack, the answers' or their chunks', and the fix.

        The count alone when the run did not say which (a ``JudgeRun`` made by hand).
        """
        parts = []
        if self.without_answer_text:
            parts.append(f"{self.without_answer_text:,} without answer text (record it: "
                         '`configure(capture_content=("question", "answer"))`)')  # fmt: skip
        if self.without_chunk_text:
            parts.append(f"{self.without_chunk_text:,} without chunk text (pass --chunks FILE, "
                         "or record it)")  # fmt: skip
        if parts:
            return (f": {', '.join(parts)}; see docs/judges.md, "
                    '"Where the answers and chunk texts come from"')  # fmt: skip
        return f" ({self.without_content:,} without text)" if self.without_content else ""

    @property
    def faithfulness(self) -> float | None:
        """The mean faithfulness of the rows of the deciding judge (LLM over offline)."""
        return self._mean("Faithfulness")

    @property
    def confidence(self) -> float | None:
        """The mean confidence of the rows of the deciding judge; ``None`` if none has one.

        docs/judges.md, "Scores to rank answers by": the score to rank answers by.
        """
        return self._mean("Confidence")


def count_textless(
    result: JudgeRun, answers: list[dict[str, Any]], filled_ids: set[str] | None = None
) -> None:
    """Count the answers not judged for lack of text, and the chunk texts the file filled in.

    Each answer not judged is listed with what is missing and the fix. Called page by page,
    the counts add up; ``filled_ids`` holds the filled chunk ids seen so far (one set per run).
    """
    filled = [r["filled_texts"] for r in answers if r["filled_texts"]]
    seen = set() if filled_ids is None else filled_ids
    seen.update(chunk for chunks in filled for chunk in chunks)
    result.filled_chunks = len(seen)
    result.filled_answers += len(filled)
    for r in answers:
        where = f"{r['trace_id']} ({r['question_key']})"
        if not r["has_answer"]:
            result.without_answer_text += 1
            result.not_judged.append(f"{where}: no answer text: {ANSWER_TEXT_FIX}")
        elif not r["has_context"]:
            result.without_chunk_text += 1
            missing = r["missing_texts"] or []
            what = (
                f"no text for chunk(s) {', '.join(missing[:5])}"
                + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                if missing
                else "no chunk ids or texts recorded for its prompt"
            )
            result.not_judged.append(f"{where}: {what}: {CHUNK_TEXT_FIX}")
    result.without_content = result.without_answer_text + result.without_chunk_text
