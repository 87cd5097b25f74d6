"""The offline judge against the naive baseline: speed, and agreement with human labels.

Speed: answers of five claims, each judged against five chunks of about 300 words (about 1,500
words of context), German and English alike, built from templates with random numbers,
amounts, times, dates, codes and names; every answer gets chunk texts never seen before, so no
cache helps. The baseline, measured in the same run over the same answers and the same claim
split, is the naive "share of the claim's content words found in the context".

Quality, on public labelled sets extracted by bench/judge_data.py (not shipped; ``--data`` or
``$RAGFUNNEL_JUDGE_DATA``) that bench/judge_fit.py did NOT fit on:

- WiCE test (ryokamoi/wice): claim level; supported vs partially or not supported, and
  supported vs not supported alone;
- QAGS XSum (W4ngatang/qags): summary sentences, majority of three workers;
- CLIFF test cut (Liyan06/AggreFact): summary level, a summary's score being the judge's
  ``AnswerVerdict.confidence`` (the mean claim confidence: the score to rank answers by), its
  faithfulness and its lowest claim confidence, the baseline's its mean word share;
- XSum hallucination test (google-research-datasets/xsum_hallucination_annotations, the
  summaries of CLIFF's test articles): one-sentence summaries with annotated hallucinated
  spans, at summary level as CLIFF and with each summary as one claim;
- BEGIN Wizard of Wikipedia test (google/BEGIN-dataset, when extracted): dialogue responses
  against the knowledge sentence they were given, "fully attributable" or not.

The judge is measured twice when ``ragfunnel[paraphrase]`` is installed: with the paraphrase
embedding (``judge``) and without it (``judge-plain``, the default install).

For each: the AUROC of the judge's confidence and of the baseline, the balanced accuracy of
"supported" vs the rest, the precision of ``unsupported`` and the share of supported claims the
judge left ``uncertain`` or ``unsupported``, each with its count. Also the project's own
labelled pairs (``ragfunnel/analyzer/judges/data/claims_labelled.jsonl``).

    python bench/judge.py [--data /work/judge-data] [--answers 400] [--repeats 5]
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
from typing import Any

from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.judges.offline.embed import load
from ragfunnel.analyzer.judges.verdict_types import SUPPORTED, UNSUPPORTED, ClaimVerdict
from ragfunnel.analyzer.language.claims import split_claims
from ragfunnel.analyzer.language.lexicon import STOPWORDS, fold

SHIPPED = Path(__file__).parents[1] / "ragfunnel/analyzer/judges/data/claims_labelled.jsonl"
DATA = Path(os.environ.get("RAGFUNNEL_JUDGE_DATA", "/work/judge-data"))
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
    body: list[str] = []
    while len(body) < 280:
        start = rng.randrange(len(words))
        body.extend(words[start:] + words[:start])
    return f"{' '.join(body[:140])} {fact} {' '.join(body[140:280])}", claim


def workload(n: int, seed: int) -> list[tuple[str, list[tuple[str, str]]]]:
    """Answers of five claims against five fresh chunks of about 300 words each."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        german = i % 2 == 0
        picks = [_chunk(rng, german) for _ in range(5)]
        claims = [claim for _, claim in picks]
        if rng.random() < 0.3:  # an unsupported claim now and then: a changed number
            claims[2] = re.sub(r"\d+", lambda m: str(int(m.group(0)) + 1), claims[2], count=1)
        context = [(f"doc-{i}-{j}#c{j}", text) for j, (text, _) in enumerate(picks)]
        out.append((". ".join(claims) + ".", context))
    return out


def word_share(claim: str, context: str) -> float:
    """The naive baseline: the share of the claim's non-stopwords found in the context."""
    words = [w for w in _WORD.findall(fold(claim)) if w not in STOPWORDS]
    found = set(_WORD.findall(fold(context)))
    return sum(w in found for w in words) / len(words) if words else 1.0


def naive_answer(answer: str, context: list[tuple[str, str]]) -> list[float]:
    text = " ".join(t for _, t in context)
    return [word_share(c, text) for c in split_claims(answer).claims]


def claims_per_second(items: list[tuple[str, list[tuple[str, str]]]], fn: Any) -> float:
    start = time.process_time()
    claims = 0
    for answer, context in items:
        claims += len(split_claims(answer).claims)
        fn(answer, context)
    return claims / (time.process_time() - start)


def auroc(scores: list[float], labels: list[bool]) -> float:
    """The probability that a supported item scores above an unsupported one (ties count ½)."""
    pairs = sorted(zip(scores, labels, strict=True))
    pos = sum(labels)
    neg = len(labels) - pos
    if not pos or not neg:
        return float("nan")
    # Rank-sum with ties averaged: O(n log n).
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        mean_rank = (i + 1 + j) / 2
        rank_sum += mean_rank * sum(y for _, y in pairs[i:j])
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        raise SystemExit(f"{path}: missing; run bench/judge_data.py first (see its docstring)")
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path}:{n}: not JSON ({exc.msg})") from exc
    return rows


def agreement(verdicts: list[ClaimVerdict], base: list[float], labels: list[bool]) -> str:
    """AUROC of judge and baseline, balanced accuracy, precision of unsupported, doubts."""
    judge = [v.confidence or 0.0 for v in verdicts]
    said = [v.label == SUPPORTED for v in verdicts]
    pos, neg = sum(labels), len(labels) - sum(labels)
    tpr = sum(s and y for s, y in zip(said, labels, strict=True)) / max(1, pos)
    tnr = sum(not s and not y for s, y in zip(said, labels, strict=True)) / max(1, neg)
    unsupported = [y for v, y in zip(verdicts, labels, strict=True) if v.label == UNSUPPORTED]
    right = len(unsupported) - sum(unsupported)
    doubted = sum(not s and y for s, y in zip(said, labels, strict=True))
    return (
        f"AUROC judge {auroc(judge, labels):.3f}, baseline {auroc(base, labels):.3f}; "
        f"balanced accuracy {(tpr + tnr) / 2:.3f}; unsupported precision "
        f"{right / max(1, len(unsupported)):.3f} ({right}/{len(unsupported)}); supported left "
        f"uncertain or unsupported {doubted / max(1, pos):.3f} ({doubted}/{pos})"
    )


VARIANTS: dict[str, bool] = {"plain": False}
"""The judge variants measured: name -> paraphrase embedding on (set in main)."""


def claim_set(rows: list[dict[str, Any]], keep: Any = None) -> str:
    rows = [r for r in rows if keep is None or keep(r)]
    labels = [r["label"] == "supported" for r in rows]
    base = [word_share(r["claim"], r["evidence"]) for r in rows]
    out = [f"{len(rows)} claims, {sum(labels)} supported:"]
    for name, paraphrase in VARIANTS.items():
        verdicts = [judge_claim(r["claim"], [("e", r["evidence"])], paraphrase) for r in rows]
        out.append(f"  [{name}] " + agreement(verdicts, base, labels))
    return "\n".join(out)


def summary_set(rows: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"  [{name}] " + _summary_set(rows, paraphrase) for name, paraphrase in VARIANTS.items()
    )


def _summary_set(rows: list[dict[str, Any]], paraphrase: bool) -> str:
    labels = [r["label"] == "supported" for r in rows]
    judge = OfflineJudge(paraphrase)
    faith, mean, low, base = [], [], [], []
    for r in rows:
        verdict = judge.judge(r["summary"], [("e", r["evidence"])])
        conf = [c.score for c in verdict.claims]
        conf = conf or [1.0]
        faith.append(1.0 if verdict.faithfulness is None else verdict.faithfulness)
        mean.append(1.0 if verdict.confidence is None else verdict.confidence)
        low.append(min(conf))
        shares = naive_answer(r["summary"], [("e", r["evidence"])]) or [1.0]
        base.append(sum(shares) / len(shares))
    return (
        f"{len(rows)} summaries, {sum(labels)} consistent: AUROC faithfulness "
        f"{auroc(faith, labels):.3f}, answer confidence (mean claim) {auroc(mean, labels):.3f}, lowest "
        f"confidence {auroc(low, labels):.3f}; baseline (mean word share) "
        f"{auroc(base, labels):.3f}"
    )


def quality(data: Path) -> None:
    wice = _read(data / "wice-test.jsonl")
    print("WiCE test, supported vs partially/not supported:", claim_set(wice))
    print("WiCE test, supported vs not supported:",
          claim_set(wice, lambda r: r["label"] != "partially_supported"))  # fmt: skip
    print("QAGS XSum sentences:", claim_set(_read(data / "qags-xsum.jsonl")))
    cliff = [r for r in _read(data / "aggrefact-cliff.jsonl") if r["cut"] == "test"]
    print("CLIFF test summaries:", summary_set(cliff))
    for origin in ("cnndm", "xsum"):
        print(f"  {origin}:", summary_set([r for r in cliff if r["origin"] == origin]))
    hallucinated = _read(data / "xsumhallu-test.jsonl")
    print("XSum hallucination test summaries:", summary_set(hallucinated))
    print("XSum hallucination test, each summary as one claim:", claim_set(
        [{**r, "claim": r["summary"]} for r in hallucinated]))  # fmt: skip
    begin = data / "begin-test-wow.jsonl"
    if begin.exists():
        print("BEGIN Wizard of Wikipedia test, dialogue responses against their knowledge:",
              claim_set(_read(begin)))  # fmt: skip
    shipped = [
        {"claim": r["claim"], "evidence": r["evidence"], "label": r["label"]}
        for r in _read(SHIPPED)
    ]
    print("Shipped labelled pairs (written for this project):", claim_set(shipped))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--answers", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-quality", action="store_true", help="speed only")
    parser.add_argument("--no-paraphrase", action="store_true",
                        help="measure the judge without the paraphrase embedding only")  # fmt: skip
    args = parser.parse_args()
    if not args.no_paraphrase and load() is not None:
        VARIANTS.clear()
        VARIANTS.update({"paraphrase": True, "plain": False})
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; judge variants {list(VARIANTS)}")  # fmt: skip
    judges = {name: OfflineJudge(paraphrase).judge for name, paraphrase in VARIANTS.items()}
    runs: dict[str, list[float]] = {name: [] for name in [*judges, "naive"]}
    for repeat in range(args.repeats):
        items = workload(args.answers, seed=repeat)
        for name, fn in judges.items():
            runs[name].append(claims_per_second(items, fn))
        runs["naive"].append(claims_per_second(items, naive_answer))
    words = statistics.mean(len(" ".join(t for _, t in c).split()) for _, c in workload(50, 99))
    speeds = ", ".join(
        f"{name} {statistics.median(r):,.0f} claims/s (runs {[round(x) for x in r]})"
        for name, r in runs.items()
    )
    print(f"speed ({words:,.0f}-word contexts, 5 claims an answer, one core): {speeds}")
    if not args.no_quality:
        quality(args.data)


if __name__ == "__main__":
    main()
