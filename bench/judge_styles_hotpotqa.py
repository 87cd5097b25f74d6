"""bench/judge_styles.py's answers against HotpotQA prompts: is a correct answer ever blamed?

Each of the shared HotpotQA sample's questions (``../shared/data/hotpotqa``, bench/_hotpotqa.py;
never shipped) is a prompt of its ~10 Wikipedia paragraphs, the two supporting ones among them.
The answer is the first sentence of 8 to 60 words of each supporting paragraph, written in each
style of :data:`judge_styles.STYLES` (correct: should not be blamed), and with an error planted
in the first (:data:`judge_styles.PLANTED`: should be blamed). Wikipedia's text differs from
PubMedQA's: names everywhere, abbreviations ("U.S. state"), dates of birth in brackets.

    python bench/judge_styles_hotpotqa.py [--n 300] [--show 3]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _hotpotqa import default_data_path  # noqa: E402
from judge_abstracts import sentences  # noqa: E402
from judge_styles import PLANTED, STYLES, row  # noqa: E402

from ragfunnel.analyzer.judges.offline import OfflineJudge  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="the HotpotQA sample's folder")
    parser.add_argument("--n", type=int, default=300, help="questions")
    parser.add_argument("--show", type=int, default=0, help="print this many misjudged answers")
    args = parser.parse_args()
    source = (args.data or default_data_path()) / "dev_subsampled.jsonl"
    questions = [json.loads(line) for line in source.open()][: args.n]
    judge = OfflineJudge()
    rows: dict[str, list[tuple[bool, bool, str, str]]] = {}
    for q in questions:
        chunks = [(c["title"], c["paragraph_text"]) for c in q["contexts"]]
        found = [sentences(c["paragraph_text"]) for c in q["contexts"] if c["is_supporting"]]
        if len(found) < 2 or not found[0] or not found[1]:
            continue
        a, b = found[0][0], found[1][0]
        cases = {style: (write(a, b), True) for style, write in STYLES.items()}
        for form, plant in PLANTED.items():
            changed = plant(a)
            if changed is not None:
                cases[form] = (STYLES["lead-in"](changed, b), False)
        for label, (answer, correct) in cases.items():
            blamed, _, why = row(judge, answer, chunks)
            rows.setdefault(label, []).append((blamed, correct, answer, why))
    print(f"{source}: {len(questions)} questions")
    for label, found_rows in rows.items():
        print(f"{label}: {len(found_rows)} answers; blamed {sum(r[0] for r in found_rows)}")
        wrong = [r for r in found_rows if r[0] == r[1]]
        for _, _, answer, why in wrong[: args.show]:
            print(f"    {answer[:160]!r} — {why[:240]}")


if __name__ == "__main__":
    main()
