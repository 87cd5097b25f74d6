"""The offline judge: answers per second on one core, and AUROC against human labels.

Speed (target ≥ 2,000 answers/s on one core): answers of about three claims, each judged
against five chunks of about 100 words, German and English alike, built from templates with
random numbers, amounts, times, dates, codes and names. ``cold`` gives every answer chunk texts
never seen before (nothing is cached); ``warm`` draws chunks from a pool of 200, as real traffic
repeats chunks. The baseline, measured in the same run, is the naive "share of the claim's
content words found in the context" over the same answers and the same claim split.

Quality: on the labelled claim/evidence pairs the project ships
(``ragfunnel/analyzer/judges/data/claims_labelled.jsonl`` — written for this project, English
and German, with hard negatives: changed numbers, units, dates, bounds and codes, added
qualifiers, swapped entities, negations, and paraphrased positives), the AUROC of "supported vs
not" for the offline judge's confidence and for the naive word share.

    python bench/judge.py [--answers 3000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import time
from pathlib import Path

from ragfunnel.analyzer.judges.claims import split_claims
from ragfunnel.analyzer.judges.lexicon import STOPWORDS, fold
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim

DATA = Path(__file__).parents[1] / "ragfunnel/analyzer/judges/data/claims_labelled.jsonl"
_WORD = re.compile(r"[^\W_]+")

FILLER_DE = (
    "Die Regelung gilt für alle Standorte der Gesellschaft und wird jährlich überprüft. "
    "Rückfragen beantwortet die zuständige Fachabteilung im Intranet. Abweichungen bedürfen "
    "der vorherigen schriftlichen Zustimmung der Führungskraft. Die Angaben beziehen sich auf "
    "den aktuellen Stand der Richtlinie und ersetzen frühere Fassungen vollständig. "
)
FILLER_EN = (
    "This rule applies to every site of the company and is reviewed once a year. Questions "
    "are answered by the responsible department on the intranet. Exceptions need the prior "
    "written approval of your manager. The figures refer to the current version of the policy "
    "and fully replace earlier versions. "
)
CITIES = ["Berlin", "Hamburg", "München", "Köln", "Frankfurt", "Leipzig", "Dresden", "Bremen"]
MONTHS_DE = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August"]


def _fact_de(rng: random.Random) -> tuple[str, str]:
    kind = rng.randrange(4)
    city, amount = rng.choice(CITIES), rng.randrange(40, 400)
    if kind == 0:
        return (
            f"Die Hotelpauschale in {city} beträgt {amount} EUR pro Nacht.",
            f"Die Hotelpauschale in {city} beträgt {amount} Euro",
        )
    if kind == 1:
        hour = rng.randrange(17, 23)
        return (
            f"Ein Taxi ist in {city} ab {hour}:00 Uhr erlaubt.",
            f"Ein Taxi ist in {city} ab {hour} Uhr erlaubt",
        )
    if kind == 2:
        day, month = rng.randrange(1, 28), rng.randrange(8)
        code = f"POL-{rng.randrange(2020, 2026)}-{rng.randrange(1, 13):02d}"
        return (
            f"Die Richtlinie {code} gilt seit dem {day}. {MONTHS_DE[month]} 2024.",
            f"Seit dem {day}. {MONTHS_DE[month]} 2024 gilt die Richtlinie {code}",
        )
    days = rng.randrange(20, 35)
    return (f"Beschäftigte in {city} erhalten {days} Tage Urlaub im Jahr.",
            f"Beschäftigte in {city} bekommen {days} Tage Urlaub pro Jahr")  # fmt: skip


def _fact_en(rng: random.Random) -> tuple[str, str]:
    kind = rng.randrange(3)
    city = rng.choice(CITIES)
    if kind == 0:
        amount = rng.randrange(40, 120)
        return (
            f"The daily meal allowance in {city} is ${amount}.",
            f"The daily meal allowance in {city} is {amount} dollars",
        )
    if kind == 1:
        hours = rng.randrange(2, 48)
        return (
            f"Lost devices in {city} must be reported within {hours} hours.",
            f"Lost devices in {city} must be reported within {hours} hours",
        )
    version = f"{rng.randrange(1, 9)}.{rng.randrange(10)}.{rng.randrange(10)}"
    return (f"Firmware {version} needs a manual reset after updating in {city}.",
            f"Firmware {version} needs a manual reset after updating")  # fmt: skip


def _chunk(rng: random.Random, german: bool) -> tuple[str, str]:
    fact, claim = (_fact_de if german else _fact_en)(rng)
    filler = FILLER_DE if german else FILLER_EN
    words = filler.split()
    start = rng.randrange(len(words) // 2)
    return f"{fact} {' '.join(words[start:] + words[:start])} {filler}", claim


def workload(n: int, seed: int, pool: int | None) -> list[tuple[str, list[tuple[str, str]]]]:
    rng = random.Random(seed)
    shared = [_chunk(rng, i % 2 == 0) for i in range(pool)] if pool else []
    out = []
    for i in range(n):
        german = i % 2 == 0
        if shared:
            picks = [shared[rng.randrange(len(shared))] for _ in range(5)]
        else:
            picks = [_chunk(rng, german) for _ in range(5)]
        claims = [claim for _, claim in picks[:3]]
        if rng.random() < 0.3:  # an unsupported claim now and then: a changed number
            claims[2] = re.sub(r"\d+", lambda m: str(int(m.group(0)) + 1), claims[2], count=1)
        context = [(f"doc-{i}-{j}#c{j}", text) for j, (text, _) in enumerate(picks)]
        out.append(("; ".join(claims) + ".", context))
    return out


def word_share(claim: str, context: str) -> float:
    words = [w for w in _WORD.findall(fold(claim)) if w not in STOPWORDS]
    found = set(_WORD.findall(fold(context)))
    return sum(w in found for w in words) / len(words) if words else 1.0


def naive_answer(answer: str, context: list[tuple[str, str]]) -> float:
    text = " ".join(t for _, t in context)
    claims = split_claims(answer).claims
    return sum(word_share(c, text) for c in claims) / max(1, len(claims))


def answers_per_second(items: list[tuple[str, list[tuple[str, str]]]], fn: object) -> float:
    start = time.process_time()
    for answer, context in items:
        fn(answer, context)  # type: ignore[operator]
    return len(items) / (time.process_time() - start)


def auroc(scores: list[float], labels: list[bool]) -> float:
    """The probability that a supported claim scores above an unsupported one (ties count ½)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def quality() -> dict[str, float]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]
    labels = [r["label"] == "supported" for r in rows]
    verdicts = [judge_claim(r["claim"], [("e", r["evidence"])]) for r in rows]
    judge = [v.confidence or 0.0 for v in verdicts]
    base = [word_share(r["claim"], r["evidence"]) for r in rows]
    supported = [v.label == "supported" for v in verdicts]
    true_pos = sum(s and y for s, y in zip(supported, labels, strict=True))
    return {
        "pairs": len(rows),
        "supported": sum(labels),
        "de": sum(r["lang"] == "de" for r in rows),
        "auroc_offline": auroc(judge, labels),
        "auroc_offline_verdict": auroc([v.verdict for v in verdicts], labels),
        "auroc_word_share": auroc(base, labels),
        "precision_supported": true_pos / max(1, sum(supported)),
        "recall_supported": true_pos / max(1, sum(labels)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    judge = OfflineJudge()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")  # fmt: skip
    for name, pool in (("cold", None), ("warm", 200)):
        runs: dict[str, list[float]] = {"offline": [], "naive": []}
        for repeat in range(args.repeats):
            items = workload(args.answers, seed=repeat, pool=pool)
            if pool is None:
                from ragfunnel.analyzer.judges.context import prepare

                prepare.cache_clear()
            runs["offline"].append(answers_per_second(items, judge.judge))
            runs["naive"].append(answers_per_second(items, naive_answer))
        offline, naive = statistics.median(runs["offline"]), statistics.median(runs["naive"])
        print(f"{name}: offline judge {offline:,.0f} answers/s, naive word share "
              f"{naive:,.0f} answers/s (ratio {offline / naive:.2f}); "
              f"runs {[round(r) for r in runs['offline']]}")  # fmt: skip
    q = quality()
    print(f"labelled pairs: {q['pairs']} ({q['supported']} supported, {q['de']} German)")
    print(f"AUROC offline judge (confidence) {q['auroc_offline']:.3f}, "
          f"(verdict only) {q['auroc_offline_verdict']:.3f}; naive word share "
          f"{q['auroc_word_share']:.3f}")  # fmt: skip
    print(f"'supported': precision {q['precision_supported']:.3f}, "
          f"recall {q['recall_supported']:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
