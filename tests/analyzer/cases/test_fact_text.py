"""One rule for facts: the funnel's facts check and the judges' correctness agree, on German too."""

from __future__ import annotations

import polars as pl
import pytest

from ragfunnel.analyzer.cases.fact_text import (
    fact_stated,
    normalize_text,
    normalize_texts,
    normalized,
    states_fact,
)
from ragfunnel.analyzer.funnel.records.answer_checks import judge_answers, prepare_cases
from ragfunnel.analyzer.judges.correctness import facts_correctness

# (answer, fact, stated)
PAIRS = [
    ("Die Adresse lautet HAUPTSTRASSE 5.", "Hauptstraße 5", True),
    ("Die Adresse lautet Hauptstraße 5.", "HAUPTSTRASSE 5", True),
    ("Sie wohnt in der Hauptstraße 15.", "Hauptstraße 5", False),
    ("Der Termin ist in MÜNCHEN.", "München", True),
    ("Der Termin ist in Muenchen.", "München", True),
    ("Herr Müller zahlt.", "MUELLER", True),
    ("Das Büro schließt um 18 Uhr.", "BÜRO SCHLIESST", True),
    # A decomposed umlaut (u + combining diaeresis) is the same text after NFKC.
    ("Die Gru\u0308ße", "Grüße", True),
    ("Die Pauschale beträgt €120.", "120 EUR", True),
    ("Die Pauschale beträgt 120 Euro.", "120 EUR", True),
    ("Die Pauschale beträgt 150 Euro.", "120 EUR", False),
    ("Firmware 4.2.0. needs a reset.", "4.2.0", True),
    ("Firmware 4.2.01 needs a reset.", "4.2.0", False),
    ("It costs $1,200 a year.", "$1,200", True),
    # Not literally (whole tokens), but by meaning: both read USD 1200 (cases/fact_meaning.py).
    ("It costs 1200 dollars.", "$1,200", True),
    ("It costs 1300 dollars.", "$1,200", False),
    ("The FIRMWARE must be Version 7", "firmware must be version 7", True),
    ("The firmwares must be updated", "firmware", False),
    # Without accents, either side: the English spelling of a name states it.
    ("The office is in Zurich.", "Zürich", True),
    ("Das Büro ist in ZÜRICH.", "Zurich", True),
    ("The capital is Sao Paulo.", "São Paulo", True),
    ("The ferry leaves from Tromso.", "Tromsø", True),
    ("The plant is in Lodz.", "Łódź", True),
    ("The office is in Zurich.", "Zürichsee", False),
    ("The office is in Geneva.", "Zürich", False),
]


@pytest.mark.parametrize(("answer", "fact", "stated"), PAIRS)
def test_states_fact(answer: str, fact: str, stated: bool) -> None:
    assert states_fact(answer, fact) is stated


def test_scalar_series_and_expression_normalise_alike() -> None:
    texts = [t for answer, fact, _ in PAIRS for t in (answer, fact)] + ["", "ẞ", "ﬁle"]
    series = normalize_texts(pl.Series("t", texts)).to_list()
    expr = pl.DataFrame({"t": texts}).select(normalized(pl.col("t"))).to_series().to_list()
    assert series == expr == [normalize_text(t) for t in texts]
    assert normalize_text("Hauptstraße 5") == normalize_text("HAUPTSTRASSE 5") == " hauptstrasse 5 "
    assert normalize_text("ẞ") == " ss "
    assert normalize_texts(pl.Series([None], dtype=pl.String)).to_list() == [None]


NOT_LITERAL = {
    ("It costs 1200 dollars.", "$1,200"),
    ("The office is in Zurich.", "Zürich"),
    ("Das Büro ist in ZÜRICH.", "Zurich"),
    ("The capital is Sao Paulo.", "São Paulo"),
    ("The ferry leaves from Tromso.", "Tromsø"),
    ("The plant is in Lodz.", "Łódź"),
}
"""Pairs stated by meaning or without accents only: the expression form is the literal rule."""


def test_expression_form() -> None:
    frame = pl.DataFrame({"answer": [a for a, _, _ in PAIRS], "fact": [f for _, f, _ in PAIRS]})
    got = frame.select(fact_stated(pl.col("answer"), pl.col("fact"))).to_series().to_list()
    assert got == [s and (a, f) not in NOT_LITERAL for a, f, s in PAIRS]


def test_funnel_and_judges_agree() -> None:
    cases = prepare_cases(
        pl.DataFrame(
            {
                "case_idx": list(range(len(PAIRS))),
                "facts": [[f] for _, f, _ in PAIRS],
                "reference": [None] * len(PAIRS),
            },
            schema={"case_idx": pl.Int64, "facts": pl.List(pl.String), "reference": pl.String},
        )
    )
    answers = pl.DataFrame(
        {
            "row": list(range(len(PAIRS))),
            "case_idx": list(range(len(PAIRS))),
            "has_answer": [True] * len(PAIRS),
            "answer": [a for a, _, _ in PAIRS],
        }
    )
    funnel = judge_answers(answers, cases).sort("row").get_column("verdict").to_list()
    judges = []
    for answer, fact, _ in PAIRS:
        verdict = facts_correctness(answer, [fact])
        assert verdict is not None
        judges.append(verdict.label)
    assert funnel == ["correct" if s else "incorrect" for _, _, s in PAIRS]
    assert judges == ["correct" if s else "wrong" for _, _, s in PAIRS]
