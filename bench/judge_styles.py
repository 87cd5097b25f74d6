"""Answers as generators write them: is a correct answer ever blamed on generation?

Whole answers, judged by ``OfflineJudge().judge`` as ``ragfunnel judge`` does (claims split,
refusals and lead-ins set aside), against real contexts:

- **PubMedQA** (``pubmedqa-abstracts.jsonl``, bench/judge_data.py ``--pubmedqa``; never
  shipped): from each abstract two sentences of 8 to 60 words (bench/judge_abstracts.py's
  choice), written as an answer in the styles of :data:`STYLES` — verbatim, after a lead-in
  ("According to the context, …"), hedged ("The study suggests that …"), as a bulleted or a
  numbered list, and lightly paraphrased (:data:`PARAPHRASES`, common wordings swapped, none
  chosen for any abstract). Then errors planted in the lead-in style: the first sentence's
  first number +7, ``not`` after its first auxiliary (bench/judge_abstracts.py's planting).
- **German** (:data:`GERMAN`): a travel policy as the README's bilingual app has it, and answers
  to it the way a generator writes German: "10 pm" for "22:00", a lead-in, a list, a hedge.
  Written for this benchmark; a smoke set, not labelled data.

A correct answer is *blamed* when any of its claims is judged ``unsupported`` (``refuted``: the
verdict that fails it at generation); it may be ``uncertain`` (then it needs a judge). A planted
answer should be blamed.

    python bench/judge_styles.py [--data /work/judge-data] [--n 120] [--show 3]
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from judge_abstracts import (  # noqa: E402
    arguments,
    change_number,
    insert_negation,
    read_abstracts,
    sentences,
    variants,
)

from ragfunnel.analyzer.judges.offline import OfflineJudge  # noqa: E402
from ragfunnel.analyzer.judges.verdict_types import SUPPORTED, UNCERTAIN  # noqa: E402

PARAPHRASES = {
    "showed": "demonstrated", "show": "demonstrate", "patients": "participants",
    "increased": "rose", "decreased": "fell", "compared with": "relative to",
    "compared to": "relative to", "however": "nevertheless", "were": "were found to be",
    "used": "employed", "evaluated": "assessed", "examined": "investigated",
}  # fmt: skip
"""Common wordings swapped the way a generator rephrases; general, not fitted to any abstract."""

_PARAPHRASE = re.compile(r"\b(" + "|".join(map(re.escape, PARAPHRASES)) + r")\b", re.IGNORECASE)


def _lower_first(text: str) -> str:
    return text[0].lower() + text[1:] if text[:2].isalpha() and not text[:2].isupper() else text


def paraphrase(text: str) -> str:
    """``text`` with every wording of :data:`PARAPHRASES` swapped (case of a capital kept)."""

    def swap(m: re.Match[str]) -> str:
        new = PARAPHRASES[m.group(1).lower()]
        return new[0].upper() + new[1:] if m.group(1)[0].isupper() else new

    return _PARAPHRASE.sub(swap, text)


STYLES: dict[str, Callable[[str, str], str]] = {
    "verbatim": lambda a, b: f"{a} {b}",
    "lead-in": lambda a, b: f"According to the context, {_lower_first(a)} {b}",
    "hedged": lambda a, b: f"The study suggests that {_lower_first(a)} It also reports: {b}",
    "bulleted list": lambda a, b: f"Here is what the abstract says:\n- {a}\n- {b}",
    "numbered list": lambda a, b: f"1. {a}\n2. {b}",
    "paraphrase": lambda a, b: f"{paraphrase(a)} {paraphrase(b)}",
}
"""How a generator writes two correct sentences of its context."""

PLANTED: dict[str, Callable[[str], str | None]] = {
    "lead-in, number changed": change_number,
    "lead-in, 'not' inserted": insert_negation,
}
"""Errors planted in the first sentence of a lead-in answer: it should be blamed."""

GERMAN_CONTEXT = (
    "Reiserichtlinie (gültig ab Juli 2024). Die Hotelpauschale beträgt 120 Euro pro Nacht. "
    "Ein Taxi ist ab 22:00 Uhr erlaubt; vorher sind öffentliche Verkehrsmittel zu nutzen. "
    "Reisekostenabrechnungen sind innerhalb von 30 Tagen einzureichen."
)
GERMAN: dict[str, tuple[bool, str]] = {
    "Die Hotelpauschale beträgt 120 Euro pro Nacht.": (True, "verbatim"),
    "Laut der Richtlinie beträgt die Hotelpauschale 120 Euro pro Nacht.": (True, "lead-in"),
    "Ein Taxi ist ab 22 Uhr erlaubt.": (True, "22 Uhr for 22:00"),
    "Ein Taxi ist ab 10 Uhr abends erlaubt.": (True, "10 Uhr abends for 22:00"),
    "A taxi is allowed from 10 pm.": (True, "English answer, 10 pm"),
    "- Hotel: 120 Euro pro Nacht\n- Taxi: ab 22 Uhr": (True, "list"),
    "Soweit ich sehe, sind Abrechnungen innerhalb von dreißig Tagen einzureichen.": (
        True, "hedge, number in words"),
    "Die Hotelpauschale beträgt 150 Euro pro Nacht.": (False, "planted: 150 Euro"),
    "Ein Taxi ist ab 20 Uhr erlaubt.": (False, "planted: 20 Uhr"),
    "Ein Taxi ist jederzeit erlaubt.": (False, "planted: jederzeit"),
}  # fmt: skip
"""Answer → (correct?, what it tries). The README's German example, as generators vary it."""


def _pairs(abstracts: list[str], n: int, seed: int) -> list[tuple[str, str, str]]:
    """Up to ``n`` (first sentence, second sentence, abstract), one pair per abstract."""
    rng = random.Random(seed)
    out = []
    for abstract in abstracts:
        found = sentences(abstract)
        if len(found) >= 2:
            a, b = rng.sample(found, 2)
            out.append((a, b, abstract))
        if len(out) >= n:
            break
    return out


def row(judge: OfflineJudge, answer: str, chunks: list[Any]) -> tuple[bool, bool, str]:
    """(blamed, uncertain, what the verdict found) for one answer against its prompt's chunks."""
    verdict = judge.judge(answer, chunks)
    blamed = bool(verdict.refuted)
    uncertain = any(c.label == UNCERTAIN for c in verdict.claims)
    found = "; ".join(f"{c.label}: {c.text!r} {c.missing}" for c in verdict.claims
                      if c.label != SUPPORTED)  # fmt: skip
    return blamed, uncertain, found


def main() -> None:
    args = arguments(__doc__ or "", 120, "abstracts")
    pairs = _pairs(read_abstracts(args.data), args.n, args.seed)
    for name, vectors in variants().items():
        judge = OfflineJudge(paraphrase=vectors)
        cases: dict[str, list[tuple[str, str, bool]]] = {style: [] for style in STYLES}
        cases.update({form: [] for form in PLANTED})
        for a, b, abstract in pairs:
            for style, write in STYLES.items():
                cases[style].append((write(a, b), abstract, True))
            for form, plant in PLANTED.items():
                changed = plant(a)
                if changed is not None:
                    cases[form].append((STYLES["lead-in"](changed, b), abstract, False))
        for label, items in cases.items():
            rows = [(row(judge, answer, [("context", context)]), answer, correct)
                    for answer, context, correct in items]  # fmt: skip
            blamed = sum(r[0][0] for r in rows)
            uncertain = sum(1 for r in rows if r[0][1] and not r[0][0])
            print(f"[{name}] {label}: {len(rows)} answers; blamed {blamed}, uncertain (not "
                  f"blamed) {uncertain}, supported {len(rows) - blamed - uncertain}")  # fmt: skip
            wrong = [r for r in rows if r[0][0] != (not r[2])]
            for (_, _, found), answer, _ in wrong[: args.show]:
                print(f"    {answer[:160]!r} — {found[:240]}")
        for answer, (correct, what) in GERMAN.items():
            blamed, uncertain, found = row(judge, answer, [("context", GERMAN_CONTEXT)])
            outcome = "blamed" if blamed else "uncertain" if uncertain else "supported"
            ok = blamed != correct
            print(
                f"[{name}] German, {what}: {outcome}{'' if ok else '  <-- WRONG'}"
                f"{f' ({found[:160]})' if found and (not ok or args.show) else ''}"
            )


if __name__ == "__main__":
    main()
