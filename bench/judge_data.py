"""Extract the public labelled sets the offline judge is fitted and measured on (not shipped).

Reads git snapshots of the source repositories (``git clone`` them, or any bare mirror) and
writes JSON lines to ``OUT`` (default ``/work/judge-data``; never inside this repository):

- ``wice-dev.jsonl`` / ``wice-test.jsonl`` — ryokamoi/wice (CC BY-SA, Wikipedia claims against
  the sentences of the cited web page, "oracle chunks" of the claim-level split): one row per
  claim, ``label`` ``supported`` / ``partially_supported`` / ``not_supported``.
- ``qags-cnndm.jsonl`` / ``qags-xsum.jsonl`` — W4ngatang/qags (MIT): one row per summary
  sentence with the article and the three workers' yes/no; ``label`` is the majority (the
  texts are tokenised: split numbers and hyphens are joined again).
- ``aggrefact-cliff.jsonl`` / ``aggrefact-goyal21.jsonl`` — Liyan06/AggreFact's
  ``data/error_type_mapping`` (the underlying sets' licences; AggreFact itself has none stated):
  one row per summary with its article; ``label`` is ``correct`` (no annotated error) or not.
- ``xsumhallu-val.jsonl`` / ``xsumhallu-test.jsonl`` —
  google-research-datasets/xsum_hallucination_annotations (Maynez et al. 2020, CC BY 4.0):
  one-sentence XSum summaries of five systems (the reference among them) with the hallucinated
  spans three workers marked; ``label`` is ``supported`` unless at least two of the three
  marked one. The articles are not in that repository: those of the 150 documents CLIFF also
  annotated come from AggreFact's CLIFF file, and the split follows CLIFF's cut (``val``
  documents to fit, ``test`` documents to measure), so no article is in both.

- ``begin-dev.jsonl`` / ``begin-test-wow.jsonl`` — google/BEGIN-dataset (Dziri et al. 2022; the
  licences of its sources: Wizard of Wikipedia, CMU DoG, Topical-Chat): dialogue responses of
  four systems against the short knowledge passage they were given; ``label`` ``supported``
  (BEGIN's "Fully attributable") or ``not_supported`` ("Not fully attributable"); "Generic"
  responses ("I love that!") state nothing and are left out. The dev file holds the three
  sources' dev splits, the test file Wizard of Wikipedia's test split (the others' are too
  large for the snapshots this project fetches).
- ``pubmedqa-abstracts.jsonl`` — pubmedqa/pubmedqa (MIT), ``data/ori_pqal.json``: the 1,000
  expert-annotated PubMed abstracts (their context sections, joined), one row each with
  ``evidence`` and no label: ``bench/judge_abstracts.py`` plants errors in their sentences.
- ``stsb-xl-dev.jsonl`` / ``stsb-xl-test.jsonl`` — PhilipMay/stsb-multi-mt (STS benchmark
  machine-translated, the original's licences: scores CC BY-SA 4.0, texts per source): the
  sentence pairs across languages, English ``sentence1`` against the German ``sentence2`` of the
  same row and German ``sentence1`` against English ``sentence2``; ``label`` ``supported`` for an
  STS score of at least 4, ``not_supported`` for at most 2, the pairs between left out.
  ``bench/judge_crosslingual.py`` fits the cross-language thresholds on dev and reports on test.

Each row has ``claim`` (or ``summary``), ``evidence`` (the context text), ``label`` and
``source``. Which sets fit the judge and which measure it is bench/judge_fit.py's business.

    python bench/judge_data.py --wice DIR --qags DIR --aggrefact DIR [--xsum-hallucination DIR]
        [--begin DIR] [--pubmedqa DIR] [--out /work/judge-data]
    python bench/judge_data.py --stsb DIR [--out /work/judge-data]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import subprocess
from pathlib import Path
from typing import Any

OUT = Path("/work/judge-data")


def _show(repo: Path, path: str) -> str:
    """A file of a git repository's HEAD, work tree or not."""
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, check=True
    )
    return done.stdout.decode("utf-8")


def _write(out: Path, name: str, rows: list[dict[str, Any]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / name).open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    labels: dict[str, int] = {}
    for row in rows:
        labels[str(row["label"])] = labels.get(str(row["label"]), 0) + 1
    print(f"{out / name}: {len(rows)} rows {labels}")


def wice(repo: Path, out: Path) -> None:
    base = "code_and_resources/entailment_inputs/oracle_chunks/claim"
    for split in ("dev", "test"):
        rows = []
        for n, line in enumerate(_show(repo, f"{base}/{split}.jsonl").splitlines(), start=1):
            if not line.strip():
                continue
            item = json.loads(line)
            rows.append({
                "claim": item["claim"],
                "evidence": " ".join(item["evidence"]),
                "label": item["label"],
                "source": f"wice/{split}:{n}",
            })  # fmt: skip
        _write(out, f"wice-{split}.jsonl", rows)


_SPLIT_NUMBER = re.compile(r"(\d)([.,]) (\d)")
_SPLIT_HYPHEN = re.compile(r"(\w) - (?=\w)")


def _detokenise(text: str) -> str:
    """QAGS texts are tokenised ("1, 056", "27 - year - old"): written as a writer would."""
    return _SPLIT_HYPHEN.sub(r"\1-", _SPLIT_NUMBER.sub(r"\1\2\3", text))


def qags(repo: Path, out: Path) -> None:
    for origin in ("cnndm", "xsum"):
        rows = []
        text = _show(repo, f"data/mturk_{origin}.jsonl")
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            item = json.loads(line)
            for k, sentence in enumerate(item["summary_sentences"]):
                votes = [r["response"] == "yes" for r in sentence["responses"]]
                rows.append({
                    "claim": _detokenise(sentence["sentence"]),
                    "evidence": _detokenise(item["article"]),
                    "label": "supported" if sum(votes) * 2 > len(votes) else "not_supported",
                    "summary": n,
                    "source": f"qags/{origin}:{n}.{k}",
                })  # fmt: skip
        _write(out, f"qags-{origin}.jsonl", rows)


def aggrefact(repo: Path, out: Path) -> None:
    for name in ("CLIFF", "Goyal21"):
        text = _show(repo, f"data/error_type_mapping/{name}_error_types.csv")
        rows = []
        for n, item in enumerate(csv.DictReader(io.StringIO(text)), start=2):
            rows.append({
                "summary": item["summ"],
                "evidence": item["doc"],
                "label": "supported" if item["error_type"] == "correct" else "not_supported",
                "origin": item["origin"],
                "cut": item["cut"],
                "source": f"aggrefact/{name}:{n}",
            })  # fmt: skip
        _write(out, f"aggrefact-{name.lower()}.jsonl", rows)


def _cliff_articles(aggrefact: Path) -> dict[str, tuple[str, str]]:
    """CLIFF's XSum articles by BBC id, with the cut (``val``/``test``) they belong to."""
    text = _show(aggrefact, "data/error_type_mapping/CLIFF_error_types.csv")
    return {
        item["id"]: (item["doc"], item["cut"])
        for item in csv.DictReader(io.StringIO(text))
        if item["origin"] == "xsum"
    }


def xsum_hallucination(repo: Path, aggrefact: Path, out: Path) -> None:
    articles = _cliff_articles(aggrefact)
    text = _show(repo, "hallucination_annotations_xsum_summaries.csv")
    marks: dict[tuple[str, str], dict[str, bool]] = {}
    summaries: dict[tuple[str, str], tuple[str, int]] = {}
    for n, item in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        key = (item["bbcid"], item["system"])
        if item["bbcid"] not in articles:
            continue
        summaries.setdefault(key, (item["summary"].replace("\\'", "'"), n))
        worker = marks.setdefault(key, {})
        worker[item["worker_id"]] = worker.get(item["worker_id"], False) or (
            item["hallucinated_span"] != "NULL"
        )
    for cut in ("val", "test"):
        rows = []
        for key, (summary, n) in summaries.items():
            doc, doc_cut = articles[key[0]]
            if doc_cut != cut:
                continue
            votes = list(marks[key].values())
            rows.append({
                "summary": summary,
                "evidence": doc,
                "label": "not_supported" if sum(votes) * 2 > len(votes) else "supported",
                "system": key[1],
                "source": f"xsum_hallucination/{key[0]}/{key[1]}:{n}",
            })  # fmt: skip
        _write(out, f"xsumhallu-{cut}.jsonl", rows)


_BEGIN = {"Fully attributable": "supported", "Not fully attributable": "not_supported"}
_BEGIN_FILES = {
    "begin-dev.jsonl": ("wow/begin_dev_wow.tsv", "cmu-dog/begin_dev_cmu.tsv",
                        "topicalchat/begin_dev_tc.tsv"),
    "begin-test-wow.jsonl": ("wow/begin_test_wow.tsv",),
}  # fmt: skip


def begin(repo: Path, out: Path) -> None:
    for name, paths in _BEGIN_FILES.items():
        rows = []
        for path in paths:
            text = _show(repo, path)
            reader = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
            for n, item in enumerate(reader, start=2):
                label = _BEGIN.get(item["begin_label"])
                if label is None:
                    continue  # "Generic": states nothing to attribute
                rows.append({
                    "claim": item["response"],
                    "evidence": item["knowledge"],
                    "label": label,
                    "system": item["model_name"],
                    "source": f"begin/{path}:{n}",
                })  # fmt: skip
        _write(out, name, rows)


def pubmedqa(repo: Path, out: Path) -> None:
    items = json.loads(_show(repo, "data/ori_pqal.json"))
    rows = [
        {"evidence": " ".join(item["CONTEXTS"]), "label": "", "source": f"pubmedqa/{pmid}"}
        for pmid, item in items.items()
    ]
    _write(out, "pubmedqa-abstracts.jsonl", rows)


STSB_SUPPORTED = 4.0
"""An STS score of at least this is a pair that says the same ("supported")."""
STSB_NOT = 2.0
"""An STS score of at most this is a pair that does not ("not_supported")."""


def _stsb_rows(repo: Path, language: str, split: str) -> list[list[str]]:
    path = f"data/stsb-{language}-{split}.csv"
    return [[*row, path] for row in csv.reader(io.StringIO(_show(repo, path)))]


def stsb(repo: Path, out: Path) -> None:
    for split in ("dev", "test"):
        english, german = _stsb_rows(repo, "en", split), _stsb_rows(repo, "de", split)
        if len(english) != len(german):
            raise SystemExit(f"stsb {split}: {len(english)} English rows, {len(german)} German")
        rows = []
        for n, (en, de) in enumerate(zip(english, german, strict=True), start=1):
            score = float(en[2])
            if score >= STSB_SUPPORTED:
                label = "supported"
            elif score <= STSB_NOT:
                label = "not_supported"
            else:
                continue
            for claim, evidence, direction in ((en[0], de[1], "en-de"), (de[0], en[1], "de-en")):
                rows.append({
                    "claim": claim,
                    "evidence": evidence,
                    "label": label,
                    "score": score,
                    "direction": direction,
                    "source": f"stsb-multi-mt/{split}:{n}",
                })  # fmt: skip
        _write(out, f"stsb-xl-{split}.jsonl", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wice", type=Path)
    parser.add_argument("--qags", type=Path)
    parser.add_argument("--aggrefact", type=Path)
    parser.add_argument("--xsum-hallucination", type=Path,
                        help="google-research-datasets/xsum_hallucination_annotations")  # fmt: skip
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--begin", type=Path, help="google/BEGIN-dataset")
    parser.add_argument("--pubmedqa", type=Path, help="pubmedqa/pubmedqa")
    parser.add_argument(
        "--stsb", type=Path, help="PhilipMay/stsb-multi-mt (alone, or with the rest)"
    )
    args = parser.parse_args()
    core = (args.wice, args.qags, args.aggrefact)
    if args.stsb is not None:
        stsb(args.stsb, args.out)
        if all(c is None for c in core):
            return
    if any(c is None for c in core):
        parser.error("--wice, --qags and --aggrefact are required (unless --stsb is given alone)")
    wice(args.wice, args.out)
    qags(args.qags, args.out)
    aggrefact(args.aggrefact, args.out)
    if args.xsum_hallucination is not None:
        xsum_hallucination(args.xsum_hallucination, args.aggrefact, args.out)
    if args.begin is not None:
        begin(args.begin, args.out)
    if args.pubmedqa is not None:
        pubmedqa(args.pubmedqa, args.out)


if __name__ == "__main__":
    main()
