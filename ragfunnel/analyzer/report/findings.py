"""The diagnosis: what each failing stage's questions have in common, phrased for people.

Reasons are the exact texts docs/funnel.md §3–4 documents. Reasons that differ only in their
numbers are grouped, and the numbers become ranges ("rank 20–50 > prompt cut at 10"); the
commonest shapes get plainer wording ("found at ranks 20–50 while only the top 10 reach the
prompt"). This module only reads per-stage reason counts; it must never query a store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from ragfunnel.analyzer.funnel.records.answer_checks import CAPTURE_FIX
from ragfunnel.analyzer.report import wording
from ragfunnel.analyzer.report.contents import FAILED_STAGES, UPSTREAM, Finding

__all__ = [
    "CUT_PARTS",
    "DETAIL_PREFIXES",
    "DROPPED_BY_CUT",
    "STAGE_ORDER",
    "cut_part",
    "diagnosis_text",
    "group_reasons",
    "work_order",
]

_SINGLE_RANK = re.compile(r"ranks (≥?\d+)(?![–\d])")
_NUMBER = re.compile(r"≥?\d+(?:\.\d+)?")
DETAIL_PREFIXES = (
    "answer misses fact",
    "generate failed",
    "retrieve failed",
    "rerank failed",
    "cut failed",
    "answer wrong",
    "answer incomplete",
    "unsupported claim",
    "faithfulness",
)
_PLAIN: dict[str, str] = {
    "rank # > prompt cut at #": "found at ranks {0} while only the top {1} reach the prompt",
    "rank # beyond rerank depth #": "found at ranks {0}, beyond the {1} candidates the reranker is given",
    "not retrieved (top_k = #)": "not retrieved in the top {0}",
    "kept at rank # > # by the reranker": "kept by the reranker at ranks {0}, below the cut at {1}",
    "not retrieved (# candidates)": "not among the {0} candidates",
    "moved from rank # to # > #": "moved by the reranker from ranks {0} to {1}, below the cut at {2}",
    "dropped by the reranker (was rank # of # given)": "dropped by the reranker from ranks {0} of {1}",
    "score # below threshold #": "scored {0}, below the gate's threshold {1}",
    "never indexed (parser, connector, scope)": "chunks never indexed: a parser, connector or scope gap",
    "the confidence gate abstained (top score #, threshold #)": (
        "abstained at the confidence gate, top score {0} against threshold {1}"
    ),
    "answered an unanswerable question (no confidence gate to stop it)": (
        "answered an unanswerable question with no confidence gate to stop it"
    ),
    "the confidence gate let an unanswerable question through (top score #, threshold #)": (
        "unanswerable, let through by the confidence gate, top score {0} against threshold {1}"
    ),
    "abstained although the evidence was in the prompt": "abstained although the evidence was in the prompt",
    "answer misses fact(s)": "answers miss facts the case lists",
    "generate failed": "generate steps failed",
    "answer wrong": "answers judged wrong",
    "unsupported claim": "answers with an unsupported claim, quoted in the drill-down",
    "faithfulness # below #": "faithfulness {0}, below {1}: claims only partly supported",
    "answer incomplete": "answers judged incomplete",
}
_PLAIN_ONE: dict[str, str] = {
    "answer misses fact(s)": "answer misses facts the case lists",
    "generate failed": "generate step failed",
    "answer wrong": "answer judged wrong",
    "unsupported claim": "answer with an unsupported claim, quoted in the drill-down",
    "answer incomplete": "answer judged incomplete",
}
"""The plain wordings that count the group's answers, for a group of one."""
_ONE_CANDIDATE = re.compile(r"(?<![\d.–])1 candidates\b")
_CANDIDATE_KEY = re.compile(r"# candidate\b")


def _numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def _head(reason: str) -> str:
    """The part of a reason that groups.

    Before the colon for reasons naming a fact, a claim or an error message, else all of it.
    """
    if reason.startswith(DETAIL_PREFIXES):
        return reason.split(":", 1)[0]
    return reason


def _key(reason: str) -> str:
    """The reason's shape: numbers as ``#``, ``1 candidate`` grouped with ``5 candidates``."""
    return _CANDIDATE_KEY.sub("# candidates", _NUMBER.sub("#", _head(reason)))


def _span(values: Sequence[str]) -> str:
    def as_float(v: str) -> float:
        return float(v.lstrip("≥"))

    low, high = min(values, key=as_float), max(values, key=as_float)
    if any("." in v for v in values):  # one precision for both ends: 0.212–0.722, not 0.2115–0.722
        low, high = (_decimal(v) for v in (low, high))
    return low if low == high else f"{low}–{high}"


def _decimal(value: str) -> str:
    """A number of a reason's text to 3 significant digits, rounded as written (0.2115 → 0.212)."""
    exact = Decimal(value.lstrip("≥"))
    if exact:
        exact = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 2), rounding=ROUND_HALF_UP)
    return ("≥" if value.startswith("≥") else "") + wording.ratio(float(exact))


@dataclass(frozen=True)
class _Group:
    key: str
    count: int
    numbers: tuple[str, ...]

    def text(self) -> str:
        plain = (_PLAIN_ONE if self.count == 1 else {}).get(self.key) or _PLAIN.get(self.key)
        if plain is not None:
            out = _SINGLE_RANK.sub(r"rank \1", plain.format(*self.numbers))
        else:
            out = self.key
            for number in self.numbers:
                out = out.replace("#", number, 1)
        return _ONE_CANDIDATE.sub(wording.count(1, "candidate"), out)


def group_reasons(reasons: Mapping[str, int]) -> list[str]:
    """Reason counts grouped by shape, commonest first: ``"7 found at ranks 20–50 while …"``."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for reason, count in reasons.items():
        groups.setdefault(_key(reason or "(no reason)"), []).append((reason or "", count))
    out: list[_Group] = []
    for key, members in groups.items():
        columns = [_numbers(_head(r)) for r, _ in members]
        width = min(len(c) for c in columns)
        spans = tuple(_span([c[i] for c in columns]) for i in range(width))
        out.append(_Group(key, sum(n for _, n in members), spans))
    out.sort(key=lambda g: (-g.count, g.key))
    if len(out) == 1:  # the stage's count already says how many
        return [out[0].text()]
    return [f"{g.count} {g.text()}" for g in out]


LET_THROUGH = "let through by the gate"
STOPPED = "stopped by the gate"
DROPPED_BY_CUT = "dropped by the cut"
CUT_PARTS = (DROPPED_BY_CUT, LET_THROUGH, STOPPED)
"""The cut's kinds of work, in the order a tie lists them."""


def cut_part(reason: str) -> str:
    """Which work a cut failure's reason asks for: the gate's or the cut's (docs/report.md)."""
    if "unanswerable" in reason:
        return LET_THROUGH  # an unanswerable question answered, with or without a gate
    if reason.startswith("the confidence gate abstained"):
        return STOPPED
    return DROPPED_BY_CUT


def work_order(findings: Sequence[Finding]) -> list[Finding]:
    """Upstream work by size, then generation; generation first when it outweighs it all.

    Upstream losses come first because the prompt cannot use evidence it never receives, and
    fixing them changes which questions reach generation at all. A stage holding different
    work (the cut: evidence it dropped, questions the gate let through) is one item per part,
    named by the part (its ``stage``).
    """
    items = [
        Finding(name, n, ()) if f.parts else f
        for f in findings
        for name, n in (f.parts or ((f.stage, f.count),))
    ]
    upstream = sorted(
        (f for f in items if f.stage not in FAILED_STAGES or f.stage in UPSTREAM),
        key=lambda f: -f.count,
    )
    generation = [f for f in items if f.stage == "generation"]
    if generation and generation[0].count > sum(f.count for f in upstream):
        return generation + upstream
    return upstream + generation


def _stage_name(stage: str) -> str:
    return "ingestion or search" if stage == "ingestion_or_search" else stage


def _clause(finding: Finding) -> str:
    head = f"{finding.count} at {_stage_name(finding.stage)}"
    return f"{head} ({'; '.join(finding.details)})" if finding.details else head


def diagnosis_text(
    *,
    questions: int,
    findings: Sequence[Finding],
    ok_without_evidence: int = 0,
    unjudged: int = 0,
    incomplete: int = 0,
    needs_judge: int = 0,
    without_text: int = 0,
    stale_case: int = 0,
) -> str:
    """The paragraph a good engineer would write about one run (the issue's example shape)."""
    failed = sum(f.count for f in findings)
    if questions == 0:
        return "No questions of this run were analyzed."
    was = "was" if failed == 1 else "were"
    parts = [
        f"Of {wording.count(questions, 'question')}, {failed:,} {was} answered wrongly or "
        "incompletely."
    ]
    by_stage = {f.stage: f for f in findings}
    upstream = [by_stage[s] for s in UPSTREAM if s in by_stage]
    generation = by_stage.get("generation")
    n_up = sum(f.count for f in upstream)
    n_gen = generation.count if generation else 0
    if failed:
        clauses = ", ".join(_clause(f) for f in upstream)
        if upstream and generation:
            parts.append(
                f"{n_up:,} of the {failed:,} failures arise before generation — {clauses} — "
                f"and {_clause(generation)}."
            )
        elif upstream:
            every = "The one failure arises" if failed == 1 else f"All {failed:,} failures arise"
            parts.append(f"{every} before generation: {clauses}.")
        elif generation:
            every = "The one failure arises" if failed == 1 else f"All {failed:,} failures arise"
            parts.append(f"{every} at generation: {_clause(generation)}.")
        if n_up > n_gen:
            parts.append(
                f"Changing the answer prompt can fix at most {n_gen:,}: work upstream first."
                if n_gen
                else "Changing the answer prompt can fix none of them: work upstream first."
            )
        elif n_gen:
            parts.append(
                f"Generation holds {n_gen:,} of the {failed:,}: start with the prompt and model."
            )
        order = " → ".join(f"{_stage_name(f.stage)} ({f.count:,})" for f in work_order(findings))
        parts.append(f"Order of work: {order}.")
        if "ingestion_or_search" in by_stage:
            parts.append("Without index truth, losses at ingestion and at search count together.")
    if ok_without_evidence:
        parts.append(
            f"{ok_without_evidence:,} answered correctly although evidence was lost: check "
            "their gold labels (or the model knew)."
        )
    if needs_judge:
        parts.append(
            f"{needs_judge:,} {wording.plural(needs_judge, 'needs', 'need')} a stronger judge "
            "(claims the offline judge could not decide, "
            "not blamed on generation): `ragfunnel judge --policy tiered` sends them to an LLM."
        )
    if without_text:
        were = wording.plural(without_text, "was", "were")
        parts.append(f"{without_text:,} {were} recorded without answer text, so nothing could "
                     f"judge them: {CAPTURE_FIX}.")  # fmt: skip
    if unjudged > without_text:
        parts.append(f"{unjudged - without_text:,} could not be judged (no answer text or no "
                     "facts to check).")  # fmt: skip
    if stale_case:
        parts.append(
            f"{stale_case:,} {wording.plural(stale_case, 'case names', 'cases name')} evidence "
            "this run's index does not hold (stale labels, not ingestion failures: "
            "`ragfunnel cases rebase` rewrites them as document + quote)."
        )
    if incomplete:
        verbs = "is incomplete and blames" if incomplete == 1 else "are incomplete and blame"
        parts.append(f"{wording.count(incomplete, 'trace')} {verbs} no stage.")
    return " ".join(parts)


STAGE_ORDER = {stage: i for i, stage in enumerate(FAILED_STAGES)}
