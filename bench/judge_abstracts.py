"""Planted errors in real scientific abstracts: is a copied sentence with one change unsupported?

Reads ``pubmedqa-abstracts.jsonl`` (bench/judge_data.py ``--pubmedqa``: the 1,000
expert-annotated PubMed abstracts of pubmedqa/pubmedqa, MIT). From each abstract one sentence
is taken and judged against the whole abstract in four forms:

- **verbatim**: the sentence as the abstract has it (should be supported: at most 1 %
  unsupported);
- **number**: the first number of the sentence changed by +7 (``19 %`` → ``26 %``, ``1.32`` →
  ``8.32``): the aligned sentence says another number in the same place, a contradiction
  (should be unsupported: at least 90 %);
- **negation**: ``not`` inserted after the sentence's first auxiliary (``were depression`` →
  ``were not depression``; should be unsupported: at least 90 %);
- **exception**: an exception clause appended (``…, except in patients over 80 years of age.``,
  one of :data:`EXCEPTION_CLAUSES` in turn): the abstract does not restrict its statement so, new
  content (should be unsupported: at least 90 %; a context about patients of that age may make
  the clause read as stated).

Sentences of 8 to 60 words only (a heading or a table row is no claim), one per abstract and
form, chosen with a fixed seed. The judge is measured with and without the paraphrase
embedding when ``ragfunnel[paraphrase]`` is installed.

    python bench/judge_abstracts.py [--data /work/judge-data] [--n 300]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from ragfunnel.analyzer.judges.offline import judge_claim
from ragfunnel.analyzer.judges.offline.embed import load
from ragfunnel.analyzer.judges.verdict_types import SUPPORTED, UNCERTAIN, UNSUPPORTED

DATA = Path(os.environ.get("RAGFUNNEL_JUDGE_DATA", "/work/judge-data"))
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_NUMBER = re.compile(r"(?<![\w.,·/-])(\d+)((?:[.,·]\d+)?)(?![\w]|[.,·]\d)")
_AUXILIARY = re.compile(
    r"\b(was|were|is|are|did|does|do|has|have|had|could|can|may|might|will|would|should)"
    r"\s+(?!not\b|no\b|n't)(?=[a-z])"
)


def sentences(abstract: str) -> list[str]:
    """The abstract's sentences of 8 to 60 words."""
    return [s for s in _SENTENCE.split(abstract) if 8 <= len(s.split()) <= 60]


def change_number(sentence: str) -> str | None:
    """The first number's integer part +7 (``19`` → ``26``, ``1.32`` → ``8.32``), or None."""
    m = _NUMBER.search(sentence)
    if m is None:
        return None
    changed = f"{int(m.group(1)) + 7}{m.group(2)}"
    return sentence[: m.start()] + changed + sentence[m.end() :]


EXCEPTION_CLAUSES = (
    "except in patients over 80 years of age",
    "except in children under 12 years",
    "unless the patients had received prior chemotherapy",
    "other than in women with diabetes",
    "excluding patients with renal failure",
)
"""Exceptions a generator might add to a copied sentence, none tuned to any abstract."""


def append_exception(sentence: str) -> str:
    """The sentence with one of :data:`EXCEPTION_CLAUSES` (by its length) before its full stop."""
    clause = EXCEPTION_CLAUSES[len(sentence) % len(EXCEPTION_CLAUSES)]
    return f"{sentence.rstrip().rstrip('.')}, {clause}."


def insert_negation(sentence: str) -> str | None:
    """``not`` after the first auxiliary (``were depression`` → ``were not depression``)."""
    m = _AUXILIARY.search(sentence)
    if m is None:
        return None
    return sentence[: m.end(1)] + " not" + sentence[m.end(1) :]


FORMS: dict[str, Callable[[str], str | None]] = {
    "verbatim": lambda s: s,
    "number": change_number,
    "negation": insert_negation,
    "exception": append_exception,
}


def planted(abstracts: list[str], n: int, seed: int) -> dict[str, list[tuple[str, str]]]:
    """Up to ``n`` (claim, abstract) pairs per form, one sentence per abstract and form."""
    rng = random.Random(seed)
    out: dict[str, list[tuple[str, str]]] = {form: [] for form in FORMS}
    for abstract in abstracts:
        candidates = sentences(abstract)
        rng.shuffle(candidates)
        for form, plant in FORMS.items():
            if len(out[form]) >= n:
                continue
            for sentence in candidates:
                claim = plant(sentence)
                if claim is not None:
                    out[form].append((claim, abstract))
                    break
    return out


def read_abstracts(data: Path) -> list[str]:
    """The abstracts of ``data``/pubmedqa-abstracts.jsonl; exits saying how to make the file."""
    path = data / "pubmedqa-abstracts.jsonl"
    if not path.exists():
        raise SystemExit(f"{path}: missing; run bench/judge_data.py --pubmedqa DIR first")
    return [
        json.loads(line)["evidence"]
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def arguments(doc: str, n: int, counted: str) -> argparse.Namespace:
    """The options these judge benchmarks share: ``--data``, ``--n`` (of ``counted``), ``--seed``
    and ``--show``; ``doc``: the script's docstring."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--n", type=int, default=n, help=counted)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=0, help="print this many misjudged ones")
    return parser.parse_args()


def variants() -> dict[str, bool]:
    """The judge's variants to run: with the paraphrase vectors when installed, and without."""
    return {"paraphrase": True, "plain": False} if load() is not None else {"plain": False}


def main() -> None:
    args = arguments(__doc__ or "", 300, "claims per form")
    pairs = planted(read_abstracts(args.data), args.n, args.seed)
    for name, paraphrase in variants().items():
        for form, items in pairs.items():
            labels: Counter[str] = Counter()
            wrong = []
            for claim, abstract in items:
                verdict = judge_claim(claim, [("abstract", abstract)], paraphrase)
                labels[verdict.label] += 1
                if (verdict.label == UNSUPPORTED) == (form == "verbatim"):
                    wrong.append((claim, verdict.label, verdict.missing))
            total = max(1, len(items))
            print(
                f"[{name}] {form}: {len(items)} sentences; unsupported "
                f"{labels[UNSUPPORTED]} ({labels[UNSUPPORTED] / total:.1%}), uncertain "
                f"{labels[UNCERTAIN]}, supported {labels[SUPPORTED]}"
            )
            for claim, label, missing in wrong[: args.show]:
                print(f"    {label}: {claim!r} — {missing}")


if __name__ == "__main__":
    main()
