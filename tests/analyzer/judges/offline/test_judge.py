"""judge.py: the offline judge on whole answers — the worked example, verdicts, shapes users pass.

A correct answer — with a lead-in, a hedge, an attribution, in other words, as a list, in
German — must never come out ``unsupported``; a contradicted number, date or negation must
(issue 18's reproductions). Each check's own rules are tested beside its module
(``test_hard.py``, ``test_negation.py``, ``test_exception.py``, ``test_names.py``).
"""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.judges.offline.score import SUPPORTED_AT
from ragfunnel.analyzer.judges.verdict_types import UNCERTAIN
from ragfunnel.analyzer.language.claims import split_claims

POLICY = [
    (
        "travel",
        "The hotel allowance is 120 EUR per night. Taxis are allowed from 22:00; before that, "
        "use public transport.",
    ),
    ("meals", "Meals are reimbursed up to 60 EUR a day. Alcohol is not reimbursed."),
]
RICHTLINIE = [
    (
        "reise",
        "Die Hotelpauschale beträgt 120 EUR pro Nacht. Ein Taxi ist ab 22:00 Uhr erlaubt; "
        "vorher gilt der ÖPNV.",
    ),
    ("essen", "Alkohol wird nicht erstattet."),
]


def test_a_lead_in_is_no_claim_content() -> None:
    verdict = judge_claim(
        "According to the study, the role of AMPK in fibrosis is unclear.",
        ["However, the role of AMPK in fibrosis is unclear."],
    )
    assert verdict.label == "supported", verdict.missing


def test_a_verbatim_copy_is_fully_supported() -> None:
    text = "Press Ctrl+K to search all notes and Ctrl+Shift+N to create a new notebook."
    verdict = OfflineJudge().judge(text, [("c", text)])
    assert verdict.faithfulness == 1.0, verdict.claims


def test_a_month_before_a_number_that_is_no_day_or_year_does_not_raise() -> None:
    verdict = OfflineJudge().judge("Profits rose.", ["The Company File, 15 Jun 99"])
    assert len(verdict.claims) == 1
    assert verdict.claims[0].label == "unsupported"


@pytest.mark.parametrize(
    "announcement",
    [
        "Here is a concise summary of the passage:",
        "Sure! Here are the key points:",
        "Based on the context, here is the answer:",
        "Hier ist eine kurze Zusammenfassung:",
    ],
)
def test_an_announcement_is_not_a_claim(announcement: str) -> None:
    assert split_claims(announcement).claims == ()
    listed = split_claims(f"{announcement}\n- Taxis are allowed from 22:00.")
    assert listed.claims == ("Taxis are allowed from 22:00",)
    inline = split_claims(f"{announcement} Taxis are allowed from 22:00.")
    assert inline.claims == ("Taxis are allowed from 22:00",)


def test_died_from_is_died_of() -> None:
    verdict = OfflineJudge().judge(
        "Many people died from COVID-19.", ["Many people died of COVID-19 last year."]
    )
    assert [c.label for c in verdict.claims] == ["supported"]


@pytest.mark.parametrize(
    "answer",
    [
        "Based on the provided context, the hotel allowance is 120 EUR per night.",
        "The document states that taxis are allowed from 10 pm.",
        "It seems that alcohol is not reimbursed.",
        "In summary, hotels are covered up to 120 EUR a night, and taxis are allowed after 22:00.",
        "Here are the rules:\n- Hotel: 120 EUR per night\n- Taxi: from 22:00\n- Meals: up to "
        "60 EUR a day",
        "You can get up to 60 EUR per day for meals, but alcohol isn't reimbursed.",
        "Generally, meal expenses are reimbursed up to 60 EUR daily.",
        "Reportedly, the hotel allowance is probably 120 EUR per night [1].",
    ],
)
def test_correct_english_answers_are_never_unsupported(answer: str) -> None:
    verdict = OfflineJudge().judge(answer, POLICY)
    assert verdict.claims
    assert all(c.label != "unsupported" for c in verdict.claims), verdict.claims


@pytest.mark.parametrize(
    "answer",
    [
        "Laut den Unterlagen beträgt die Hotelpauschale 120 Euro pro Nacht.",
        "Ein Taxi darf ab 22 Uhr genutzt werden.",
        "Alkohol wird nicht erstattet, Taxis sind ab 22 Uhr erlaubt.",
        "Die Hotelpauschale liegt bei 120 EUR je Nacht.",
        "Zusammengefasst:\n- Hotel: 120 EUR pro Nacht\n- Taxi: ab 22 Uhr",
    ],
)
def test_correct_german_answers_are_never_unsupported(answer: str) -> None:
    verdict = OfflineJudge().judge(answer, RICHTLINIE)
    assert verdict.claims
    assert all(c.label != "unsupported" for c in verdict.claims), verdict.claims


@pytest.mark.parametrize(
    ("answer", "context", "missing"),
    [
        ("According to the policy, the hotel allowance is 150 EUR per night.", POLICY, "150 EUR"),
        ("Taxis are allowed from 20:00.", POLICY, "20:00"),
        ("Alcohol is reimbursed.", POLICY, "negates"),
        ("Meals are not reimbursed.", POLICY, "negation 'not'"),
        ("Laut Richtlinie beträgt die Hotelpauschale 150 Euro pro Nacht.", RICHTLINIE, "150"),
        ("Alkohol wird erstattet.", RICHTLINIE, "negates"),
        ("The policy applies since 1 June 2024.", ["The policy applies since 1 July 2024."],
         "1 June 2024"),
        # The same amount for another period is another rate.
        ("Meals are reimbursed up to 60 EUR a week.", POLICY,
         "60 EUR a week (context: up to 60 EUR a day)"),
        ("The hotel allowance is 120 EUR a month.", POLICY, "120 EUR a month (context:"),
        ("Die Hotelpauschale beträgt 120 Euro im Jahr.", RICHTLINIE, "120 Euro im Jahr"),
        # A number's scale is part of it: billion is not million (2026-12-07).
        ("Revenue was $2.5 billion in 2023.", ["Revenue was $2.5 million in 2023."],
         "$2.5 billion"),
        # A rounded value is found within 5 %, no further (2026-12-07).
        ("Response rates were about 45% in the treatment group.",
         ["Response rates were 39.8% in the treatment group."], "about 45% (context: 39.8%)"),
        ("Der Umsatz lag 2023 bei 3 Milliarden Euro.", ["Der Umsatz lag 2023 bei 3 Millionen Euro."],
         "3 Milliarden Euro (context: 3 Millionen Euro)"),
    ],
)  # fmt: skip
def test_contradicted_numbers_dates_and_negations_are_unsupported(
    answer: str, context: list[tuple[str, str]] | list[str], missing: str
) -> None:
    (claim,) = OfflineJudge().judge(answer, context).claims
    assert claim.label == "unsupported"
    assert missing in claim.missing
    assert claim.confidence is not None and claim.confidence < SUPPORTED_AT


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("Revenue was 2,500,000 dollars in 2023.", "Revenue was $2.5 million in 2023."),
        ("The city has 3.5 million inhabitants.", "The city has 3,500,000 inhabitants."),
        ("Die Stadt hat 12 tausend Einwohner.", "Die Stadt hat 12.000 Einwohner."),
    ],
)
def test_a_number_with_its_scale_written_out_is_the_same_number(answer: str, context: str) -> None:
    (claim,) = OfflineJudge().judge(answer, [context]).claims
    assert claim.label == "supported", claim


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("Response rates were about 40% in the treatment group.",
         "Response rates were 39.8% in the treatment group."),
        ("Response rates were nearly 40 percent in the treatment group.",
         "Response rates were 39.8% in the treatment group."),
        ("The trial enrolled approximately 1,200 patients.", "The trial enrolled 1,204 patients."),
        ("Die Quote lag bei rund 40 Prozent.", "Die Quote lag bei 39,8 Prozent."),
        ("Response rates were about 40% in the treatment group.",
         "Response rates were 40% in the treatment group."),
    ],
)  # fmt: skip
def test_a_rounded_value_is_found_in_the_exact_one(answer: str, context: str) -> None:
    (claim,) = OfflineJudge().judge(answer, [context]).claims
    assert claim.label == "supported", claim


def test_confidence_is_a_probability_and_uncertain_sits_between() -> None:
    verdicts = [
        judge_claim(c, POLICY)
        for c in (
            "The hotel allowance is 120 EUR per night",
            "Hotel stays are covered and breakfast is usually included",
            "Profits rose sharply in Asia",
        )
    ]
    assert all(0.0 <= (v.confidence or 0.0) <= 1.0 for v in verdicts)
    assert verdicts[0].label == "supported"
    high, middle, low = (v.confidence or 0.0 for v in verdicts)
    assert high > middle > low
    assert verdicts[2].label == "unsupported"
    assert UNCERTAIN == "uncertain"


def test_the_offline_judge_never_says_partial() -> None:
    answers = [
        "The hotel allowance is 120 EUR per night in the city centre, with breakfast.",
        "Taxis are allowed from 22:00 and meals up to 60 EUR.",
    ]
    labels = {c.label for a in answers for c in OfflineJudge().judge(a, POLICY).claims}
    assert labels <= {"supported", "uncertain", "unsupported"}


def test_context_as_a_generator_is_read_once() -> None:
    verdict = OfflineJudge().judge(
        "The hotel allowance is 120 EUR per night. Alcohol is not reimbursed.",
        (pair for pair in POLICY),
    )
    assert [c.label for c in verdict.claims] == ["supported", "supported"]
    assert [c.supporting_ids for c in verdict.claims] == [("travel",), ("meals",)]


def test_an_answers_confidence_ranks_where_its_faithfulness_ties() -> None:
    # Two answers of one supported and one unsupported claim share faithfulness 0.5; the one
    # whose unsupported claim the context largely states (but for the amount) ranks higher
    # than the one whose claim the context has nothing of.
    near = OfflineJudge().judge(
        "The hotel allowance is 120 EUR per night. Meals are reimbursed up to 90 EUR a day.",
        POLICY,
    )
    far = OfflineJudge().judge(
        "The hotel allowance is 120 EUR per night. Profits rose sharply in Asia.", POLICY
    )
    assert near.faithfulness == far.faithfulness == 0.5
    for verdict in (near, far):
        scores = [c.confidence for c in verdict.claims]
        assert all(s is not None for s in scores)
        assert verdict.confidence == pytest.approx(sum(s or 0.0 for s in scores) / len(scores))
    assert (near.confidence or 0.0) > (far.confidence or 0.0)


def test_an_answers_confidence_counts_a_verdict_without_one_and_is_none_when_abstaining() -> None:
    from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict, ClaimVerdict

    mixed = AnswerVerdict(
        (ClaimVerdict("a", "supported", confidence=0.9), ClaimVerdict("b", "partial"))
    )
    assert mixed.confidence == pytest.approx((0.9 + 0.5) / 2)
    assert AnswerVerdict(()).confidence is None
    refusal = OfflineJudge().judge("Dazu liegen mir keine Informationen vor.", RICHTLINIE)
    assert refusal.abstained and refusal.confidence is None


HOTEL_TAXI = [
    Chunk("access-rights", "Zugriffsrechte für das Reiseportal beantragt man im IT-Ticketsystem."),
    Chunk("hotel-allowance", "Die Hotelpauschale beträgt 120 EUR pro Nacht."),
    Chunk("taxi", "Ein Taxi ist ab 22:00 Uhr erlaubt; vorher gilt der ÖPNV."),
]


def test_worked_example_both_facts_score_one() -> None:
    verdict = OfflineJudge().judge(
        "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist ab 22 Uhr erlaubt.", HOTEL_TAXI
    )
    assert verdict.faithfulness == 1.0
    assert [c.supporting_ids for c in verdict.claims] == [("hotel-allowance",), ("taxi",)]


def test_worked_example_any_time_scores_half_and_quotes_the_taxi_claim() -> None:
    verdict = OfflineJudge().judge(
        "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist jederzeit erlaubt.", HOTEL_TAXI
    )
    assert verdict.faithfulness == 0.5
    (bad,) = verdict.refuted
    assert bad.text == "Ein Taxi ist jederzeit erlaubt"
    assert bad.label == "unsupported"
    assert bad.missing == "jederzeit"


def test_context_order_does_not_matter() -> None:
    answer = "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist ab 22 Uhr erlaubt."
    forward = OfflineJudge().judge(answer, HOTEL_TAXI)
    backward = OfflineJudge().judge(answer, list(reversed(HOTEL_TAXI)))
    assert [c.label for c in forward.claims] == [c.label for c in backward.claims]


def test_missing_key_words_lower_the_score_and_there_is_no_partial() -> None:
    # The old judge called this "partial"; the calibrated judge has three outcomes, and a claim
    # with words the context lacks scores lower than one fully found.
    context = ["Die Hotelpauschale beträgt 120 EUR pro Nacht."]
    full = judge_claim("Die Hotelpauschale beträgt 120 Euro pro Nacht", context)
    extra = judge_claim("Die Hotelpauschale beträgt 120 Euro pro Nacht im Stadtzentrum", context)
    assert full.label == "supported"
    assert extra.label in ("supported", "uncertain")
    assert (extra.confidence or 0) < (full.confidence or 0)
    mostly_new = judge_claim("Die Hotelpauschale deckt Frühstück, Parkplatz und Minibar", context)
    assert mostly_new.label != "supported"
    assert "fruhstuck" in mostly_new.missing
    unrelated = judge_claim("Profits rose sharply in Asia.", context)
    assert unrelated.label == "unsupported"


def test_refusal_is_an_abstention_not_a_score() -> None:
    verdict = OfflineJudge().judge("Dazu habe ich keine Informationen.", HOTEL_TAXI)
    assert verdict.abstained
    assert verdict.faithfulness is None
    assert verdict.claims == ()


def test_context_shapes_users_pass() -> None:
    answer = "The allowance is 120 EUR."
    as_pairs = OfflineJudge().judge(answer, iter([("a", "The allowance is 120 EUR.")]))
    as_texts = OfflineJudge().judge(answer, (t for t in ["The allowance is 120 EUR."]))
    assert as_pairs.claims[0].supporting_ids == ("a",)
    assert as_texts.claims[0].supporting_ids == ("1",)


def test_deterministic() -> None:
    answer = "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist jederzeit erlaubt."
    assert OfflineJudge().judge(answer, HOTEL_TAXI) == OfflineJudge().judge(answer, HOTEL_TAXI)


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        # A number word is a fact: none of its letters is left over as a key word.
        (
            "The update is rolled out in rings over four weeks.",
            "Firmware 4.2 adds TLS 1.3. The update is rolled out in rings over four weeks.",
        ),
        (
            "Die erste Klasse ist bei Fahrten über vier Stunden erlaubt.",
            "Die erste Klasse ist bei Fahrten über vier Stunden erlaubt.",
        ),
        # Words in code spans count: `gw logs --purge` holds "purge".
        (
            "Delete old log archives with `gw logs --purge` and run a soft reset.",
            "FW-E2210 means the partition is full: delete old log archives with "
            "`gw logs --purge` and run a soft reset.",
        ),
        # A negation's scope ends at the colon: the negated part is found as a sentence.
        (
            "Do not run a factory reset: reflash the firmware image over USB with the stick.",
            "FW-E1742 means a checksum mismatch. Do not run a factory reset: reflash the "
            "firmware image over USB with the stick.",
        ),
        # "and the last error code" continues a noun phrase: no claim of its own.
        (
            "If it does not, open a ticket with the serial number and the last error code.",
            "Check the dashboard; if it does not, open a ticket with the serial number and the "
            "last error code.",
        ),
    ],
)
def test_verbatim_quotes_are_supported(claim: str, context: str) -> None:
    verdict = OfflineJudge().judge(claim, [("c", context)])
    assert verdict.faithfulness == 1.0, verdict.claims


def test_refuted_and_doubted_name_what_they_hold_and_unsupported_is_deprecated() -> None:
    """Issue 33: ``unsupported`` returned every claim below supported, doubts included."""
    from ragfunnel.analyzer.judges import AnswerVerdict, ClaimVerdict

    claims = (
        ClaimVerdict("a", "unsupported"),
        ClaimVerdict("b", "uncertain"),
        ClaimVerdict("c", "supported"),
    )
    verdict = AnswerVerdict(claims)
    assert [c.text for c in verdict.refuted] == ["a"]
    assert [c.text for c in verdict.doubted] == ["a", "b"]
    with pytest.warns(DeprecationWarning, match=r"use \.doubted .* or \.refuted"):
        assert verdict.unsupported == verdict.doubted


def test_in_a_prompt_of_both_languages_meaning_may_support_what_the_words_could_not() -> None:
    """A README-style gym app: an English answer from the German chunk beside English ones was
    left uncertain ("included, plan" not in the context); a negated claim is not judged so."""
    prompt = [
        ("gym-de#sauna", "Die Sauna ist im Tarif Premium enthalten und kostet sonst 5 EUR pro Besuch."),
        ("gym-en#fee", "The monthly fee is 45 EUR; the contract runs for at least 12 months."),
        ("gym-en#hours", "The studio is open daily from 6 am to 10 pm."),
    ]  # fmt: skip
    judge = OfflineJudge(paraphrase=False)
    included = judge.judge("The sauna is included in the Premium plan.", prompt).claims[0]
    assert included.label == "supported" and included.supporting_ids == ("gym-de#sauna",)
    other = judge.judge("The sauna is included in the Basic plan.", prompt).claims[0]
    assert other.label != "supported"  # a missing name is never overruled by meaning
