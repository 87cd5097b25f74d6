"""Which case gets which fault, and the truth each fault leaves: the injection log.

The plan starts from the clean run's own outcomes (:class:`~.pipeline.Outcome`): only a case the
clean pipeline got right can carry a fault, so whatever goes wrong afterwards is the fault's
doing. After the faulty run, each fault's effect on its case decides the stage the analyzer must
name: the fault's stage when it changed what reached the prompt or what was answered, ``ok``
when it happened to change nothing. Reads outcomes and cases; writes only the log file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import polars as pl

from ragfunnel.analyzer.cases import AllOf, Case, Evidence, Leaf, Quote, Span
from ragfunnel.analyzer.cases.fact_text import normalize_texts
from ragfunnel.demo.corpus import Chunk, Document, chunk_id, split_sections
from ragfunnel.demo.faults import (
    ALWAYS_WORDS,
    DROPPED_DOCUMENTS,
    FAULTS,
    INDEX_FAULTS,
    SMALL_K,
    STALE_DOCUMENT,
    Injection,
)
from ragfunnel.demo.pipeline import Outcome, Settings

PER_FAULT = 3
"""How many cases each question fault is given (fewer when fewer are eligible)."""


def holds(node: Evidence | None, alive: Callable[[str], bool]) -> bool:
    """Whether the evidence tree is satisfied when exactly the ``alive`` chunk ids survive."""
    if node is None:
        return True
    if isinstance(node, (Leaf, Quote, Span)):  # a document leaf by its label
        return alive(node.id)
    children = (holds(child, alive) for child in node.children)
    return all(children) if isinstance(node, AllOf) else any(children)


def facts_present(case: Case, answer: str) -> bool:
    """Every fact of ``case`` appears in ``answer`` (the analyzer's containment rule)."""
    if not case.facts:
        return True
    normal = normalize_texts(pl.Series([answer, *case.facts])).to_list()
    return all(fact.strip() in normal[0] for fact in normal[1:])


def healthy(case: Case, outcome: Outcome | None) -> bool:
    """The clean pipeline got this case right.

    Evidence in the prompt and every fact said, or an abstention on an unanswerable question.
    """
    if outcome is None:
        return False
    if not case.answerable:
        return outcome.abstained
    in_prompt = set(outcome.prompt)
    return (
        not outcome.abstained
        and holds(case.evidence, in_prompt.__contains__)
        and facts_present(case, outcome.answer)
    )


@dataclass(frozen=True)
class Planned:
    """One case's fault, and what the plan already knows about it."""

    case_id: str
    fault: str
    documents: tuple[str, ...] = ()


def plan_faults(
    cases: Sequence[Case],
    clean: dict[str, Outcome],
    documents: Sequence[Document],
    faults: Iterable[str],
    settings: Settings,
) -> tuple[Injection, list[Planned]]:
    """Give the chosen faults to healthy cases; index faults to every case they break."""
    chosen = set(faults)
    fine = [c for c in cases if healthy(c, clean.get(c.id))]
    planned: list[Planned] = []
    taken: set[str] = set()
    injection = Injection()

    lost_docs: dict[str, tuple[str, ...]] = {}
    if "dropped_document" in chosen:
        lost_docs["dropped_document"] = DROPPED_DOCUMENTS
        injection.dropped_documents = frozenset(DROPPED_DOCUMENTS)
    if "empty_ocr" in chosen:
        lost_docs["empty_ocr"] = tuple(d.id for d in documents if d.scanned)
        injection.empty_ocr = True
    for fault, doc_ids in lost_docs.items():
        gone = {c.id for d in documents if d.id in doc_ids for c in split_sections(d, d.body)}
        survives = _outside(gone)
        for case in cases:  # every case these documents break, healthy or not
            if case.answerable and not holds(case.evidence, survives):
                planned.append(Planned(case.id, fault, doc_ids))
                taken.add(case.id)

    stale_twins = _stale_twins(documents)
    texts = {c.id: c.text.lower() for d in documents for c in split_sections(d, d.body)}

    def says_always(outcome: Outcome) -> bool:
        return any(w in texts.get(cid, "") for cid in outcome.prompt for w in ALWAYS_WORDS)

    eligible: dict[str, Callable[[Case, Outcome], bool]] = {
        "small_k": lambda c, o: (
            c.answerable
            and not holds(
                c.evidence, {cid for r in o.retrieved.values() for cid in r[:SMALL_K]}.__contains__
            )
        ),
        "inverted_reranker": lambda c, o: c.answerable and len(o.candidates) >= 2 * settings.k,
        "shuffled_reranker": lambda c, o: c.answerable and len(o.candidates) >= 2 * settings.k,
        "threshold_high": lambda c, o: c.answerable,
        "threshold_low": lambda c, o: not c.answerable,
        "changed_numbers": lambda c, o: (
            c.answerable and any(ch.isdigit() for f in c.facts for ch in f)
        ),
        # Only where the prompt never says "at any time": then the added words are unsupported.
        "added_qualifier": lambda c, o: c.answerable and not says_always(o),
        "stale_version": lambda c, o: (
            c.answerable and isinstance(c.evidence, Leaf) and c.evidence.id in stale_twins
        ),
    }
    # Round robin, the fault with the fewest candidates choosing first, so each gets its share.
    pools = {
        f: [c for c in fine if eligible[f](c, clean[c.id])]
        for f in FAULTS
        if f in chosen and f not in INDEX_FAULTS
    }
    order = sorted(pools, key=lambda f: len(pools[f]))
    for _round in range(PER_FAULT):
        for fault in order:
            pick = next((c for c in pools[fault] if c.id not in taken), None)
            if pick is not None:
                planned.append(Planned(pick.id, fault))
                taken.add(pick.id)
                injection.questions[pick.id] = fault
    return injection, planned


def _outside(gone: set[str]) -> Callable[[str], bool]:
    return lambda chunk: chunk not in gone


def _stale_twins(documents: Sequence[Document]) -> dict[str, str]:
    """Current chunk id → the superseded version's chunk id of the same section."""
    doc_id, version = STALE_DOCUMENT
    stale = [d for d in documents if (d.id, d.version) == (doc_id, version)]
    current = [d for d in documents if d.id == doc_id and d.version != version]
    if not stale or not current:
        return {}
    newest = max(current, key=lambda d: d.version)
    old: list[Chunk] = split_sections(stale[0], stale[0].body)
    return {chunk_id(doc_id, newest.version, c.heading): c.id for c in old}


@dataclass(frozen=True)
class Truth:
    """One line of the injection log."""

    run_id: str
    case_id: str
    fault: str
    stage: str
    """The first_failure the analyzer must give this case."""
    effect: str
    what: str
    flag: str | None = None
    documents: tuple[str, ...] = ()


def truths(
    planned: Sequence[Planned],
    cases: Sequence[Case],
    clean: dict[str, Outcome],
    faulty: dict[str, Outcome],
    run_id: str,
) -> list[Truth]:
    """What each planned fault did in the faulty run, and so where it must be attributed."""
    by_id = {c.id: c for c in cases}
    found: list[Truth] = []
    for plan in planned:
        case, before, after = by_id[plan.case_id], clean.get(plan.case_id), faulty.get(plan.case_id)
        fault = FAULTS[plan.fault]
        stage, effect = _effect(plan.fault, fault.stage, case, before, after)
        flag = fault.flag if plan.fault == "stale_version" and _both_versions(after) else None
        found.append(
            Truth(run_id, case.id, plan.fault, stage, effect, fault.what, flag, plan.documents)
        )
    return found


def _effect(
    name: str, stage: str, case: Case, before: Outcome | None, after: Outcome | None
) -> tuple[str, str]:
    if after is None:
        return "incomplete_trace", "the faulty run did not ask this case"
    prompt = set(after.prompt)
    if name in INDEX_FAULTS:
        return stage, "required evidence never reached the index"
    if name == "threshold_low":
        if after.abstained:
            return "ok", "the gate abstained anyway"
        return stage, "the gate let the unanswerable question through"
    if after.abstained:
        return (
            (stage, "the gate abstained")
            if name == "threshold_high"
            else ("cut", "the gate abstained")
        )
    if name == "stale_version":
        if any("@" + STALE_DOCUMENT[1] + "#" in q for q in after.quoted):
            return stage, "the answer quoted the superseded version"
        if not holds(case.evidence, prompt.__contains__):
            return "rerank", "the superseded chunks pushed the evidence out of the prompt"
        return "ok", "the answer quoted the current version"
    if not holds(case.evidence, prompt.__contains__):
        if facts_present(case, after.answer):  # another chunk said it: the table's own verdict
            return "ok_without_evidence", "evidence lost, yet the answer states every fact"
        return stage, "required evidence did not reach the prompt"
    if name == "added_qualifier":
        if before is not None and after.answer != before.answer:
            # Every fact is still said: only a faithfulness judge sees the added words.
            return stage, "the answer adds a qualifier the sources do not state"
        return "ok", "the generator quoted nothing the qualifier could join"
    if (
        before is not None
        and after.answer != before.answer
        and not facts_present(case, after.answer)
    ):
        # The evidence survived to the prompt: whatever upset the answer, the answer decides.
        return "generation", "the evidence reached the prompt but the answer lost a fact"
    return "ok", "the fault changed nothing the case depends on"


def _both_versions(outcome: Outcome | None) -> bool:
    if outcome is None:
        return False
    doc_id = STALE_DOCUMENT[0]
    versions = {cid.split("#")[0] for cid in outcome.prompt if cid.startswith(doc_id + "@")}
    return len(versions) > 1


def write_log(path: Path, found: Iterable[Truth]) -> None:
    """The injection log: one JSON object a line."""
    lines = [json.dumps(asdict(t), ensure_ascii=False) for t in found]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def read_log(path: Path) -> list[Truth]:
    """Read an injection log back."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [Truth(**{**r, "documents": tuple(r.get("documents", ()))}) for r in rows]
