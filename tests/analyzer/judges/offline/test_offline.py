from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.language.lexicon import fold
from ragfunnel.analyzer.language.terms import key_words

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


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The allowance is 120 Euro", "The allowance is €120."),
        ("The allowance is 120 EUR", "The allowance is 120 Euro."),
        ("Die Gebühr beträgt 120,50 €", "Die Gebühr beträgt EUR 120,50."),
        ("Taxis are allowed from 22:00", "Taxis are allowed from 10 p.m."),
        ("Ein Taxi ist ab 22 Uhr erlaubt", "Ein Taxi ist ab 22:00 erlaubt."),
        ("The policy has applied since 1 July 2024", "The policy has applied since 2024-07-01."),
        ("Die Richtlinie gilt seit dem 01.07.2024", "Die Richtlinie gilt seit dem 1. Juli 2024."),
        ("Policy POL-2024-07 applies", "Under policy POL-2024-07, the following applies."),
        ("Firmware 4.2.1 needs a reset", "Firmware 4.2.0 and 4.2.1 need a reset."),
        (
            "Mobiles Arbeiten ist an bis zu 3 Tagen möglich",
            "Mobiles Arbeiten ist an bis zu drei Tagen möglich.",
        ),
        ("The company has 1,200 employees", "The company has 1200 employees."),
        ("Alcohol is not reimbursed", "Alcohol is not reimbursed."),
        ("Die Hotelpauschale gilt", "Die Hotel-Pauschale gilt."),
    ],
)
def test_normalised_terms_are_found(claim: str, context: str) -> None:
    verdict = judge_claim(claim, [context])
    assert verdict.label == "supported", verdict.missing


@pytest.mark.parametrize(
    ("claim", "context", "missing"),
    [
        ("The allowance is 150 EUR", "The allowance is 120 EUR.", "150 EUR (context: 120 EUR)"),
        ("The allowance is 120 USD", "The allowance is 120 EUR.", "120 USD"),
        (
            "Ein Taxi ist bis 22 Uhr erlaubt",
            "Ein Taxi ist ab 22:00 Uhr erlaubt.",
            "bis 22 Uhr (context: ab 22:00 Uhr)",
        ),
        ("Policy POL-2024-08 applies", "Policy POL-2024-07 applies.", "POL-2024-08"),
        ("Firmware 4.2.2 needs a reset", "Firmware 4.2.1 needs a reset.", "4.2.2"),
        ("The office is always open", "The office is open from 8:00 to 18:00.", "always"),
        ("Taxis are allowed at any time", "Taxis are allowed from 22:00.", "at any time"),
        ("Daten werden nie gelöscht", "Daten werden nach 10 Jahren gelöscht.", "nie"),
        ("The Munich office opens at 8:00", "The Berlin office opens at 8:00.", "munich"),
        (
            "The policy applies since 1 June 2024",
            "The policy applies since 1 July 2024.",
            "1 June 2024",
        ),
    ],
)
def test_hard_terms_must_be_found(claim: str, context: str, missing: str) -> None:
    verdict = judge_claim(claim, [context])
    assert verdict.label == "unsupported"
    assert missing in verdict.missing


def test_negations_must_agree() -> None:
    context = ["Alcohol is not reimbursed. Meals are reimbursed up to 60 EUR."]
    assert judge_claim("Alcohol is reimbursed", context).missing.startswith("the context negates")
    negated = judge_claim("Meals are not reimbursed", ["Meals are reimbursed up to 60 EUR."])
    assert negated.label == "unsupported"
    assert "negation 'not'" in negated.missing


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


def test_an_english_name_missing_from_the_context_is_never_supported() -> None:
    verdict = judge_claim(
        "The hotel allowance is 120 EUR per night in Hamburg",
        ["The hotel allowance is 120 EUR per night."],
    )
    assert verdict.label != "supported"
    assert "hamburg" in verdict.missing


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


def test_a_changed_number_word_is_still_caught() -> None:
    verdict = OfflineJudge().judge(
        "The update is rolled out over five weeks.", [("c", "It is rolled out over four weeks.")]
    )
    assert verdict.faithfulness == 0.0
    assert verdict.claims[0].missing.startswith("over five weeks (context: over four weeks)")


def test_a_negated_claim_without_a_negated_context_stays_unsupported() -> None:
    verdict = OfflineJudge().judge(
        "Do not run a factory reset: reflash the image.",
        [("c", "Run a factory reset: reflash the image.")],
    )
    assert "negation 'not'" in verdict.claims[0].missing


@pytest.mark.parametrize(
    ("claim", "context", "missing"),
    [
        ("Taxis are allowed from 20:00.", "Taxis are allowed from 22:00.", "(context: from 22:00)"),
        (
            "The policy applies since 1 June 2024.",
            "The policy applies since 1 July 2024.",
            "(context: since 1 July 2024)",
        ),
        # An amount, quantity or time the context never states is a hard finding by itself.
        ("The fee is 150 EUR.", "The fee is charged once per night.", "150 EUR"),
        ("The course takes 30 days.", "The course is held online.", "30 days"),
    ],
)
def test_a_contradicted_or_unstated_amount_date_or_time_is_unsupported(
    claim: str, context: str, missing: str
) -> None:
    for paraphrase in (False, None):
        verdict = judge_claim(claim, [context], paraphrase)
        assert verdict.label == "unsupported", verdict
        assert missing in verdict.missing


def test_an_unstated_year_is_no_contradiction_but_no_support_either() -> None:
    # A year the evidence does not repeat: the rest of the claim is there word for word. It
    # must not be supported (the year is unchecked), nor blamed as a contradiction.
    claim = "The school opened in 2016 with 400 students."
    context = ["The school opened its doors with 400 students and 30 teachers."]
    for paraphrase in (False, None):
        verdict = judge_claim(claim, context, paraphrase)
        assert verdict.label == "uncertain", verdict
        assert "not in the context: 2016" in verdict.missing
        stated = judge_claim("The school opened with 400 students.", context, paraphrase)
        assert stated.label == "supported"
        assert (verdict.confidence or 0) < (stated.confidence or 0)


def test_a_negation_negates_only_the_words_beside_it() -> None:
    # "didn't" negates "think twice", not "she was feared to have drowned".
    kept = judge_claim(
        "She was feared to have drowned.",
        ["They didn't think twice about giving her the kiss of life after she was feared to "
         "have drowned."],
    )  # fmt: skip
    assert "negates" not in kept.missing
    assert kept.label != "unsupported"
    # "does not want to retire" agrees with "did not want to retire", whatever else the claim
    # adds; "is not reimbursed" still contradicts "is reimbursed".
    agreed = judge_claim(
        "The former prime minister said he did not want to retire until he was 91 years old.",
        ["Tony Blair, the former prime minister, has said he does not want to retire until he "
         "is 91 years old."],
    )  # fmt: skip
    assert "negation" not in agreed.missing
    assert judge_claim("Alcohol is reimbursed", ["Alcohol is not reimbursed."]).label == (
        "unsupported"
    )


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("Taxikosten werden bis 50 EUR je Fahrt erstattet.", "Taxikosten werden bis zu 50 EUR pro Fahrt erstattet."),
        ("Tickets cost from 20 EUR.", "Tickets cost at least 20 EUR."),
    ],
)  # fmt: skip
def test_until_and_from_before_a_size_are_its_limits(claim: str, context: str) -> None:
    """A correct answer was blamed: "bis 50 EUR" read as a time bound against "bis zu 50 EUR"."""
    verdict = OfflineJudge().judge(claim, [("c", context)])
    assert [c.label for c in verdict.claims] == ["supported"], verdict.claims[0].missing


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("Arsenal will beat Chelsea for the first time since 2011.", "Arsenal have not beaten Chelsea since October 2011."),
        ("Die Regel gilt seit 2019.", "Die Regel gilt seit Mai 2019."),
        ("The offer runs until 2025.", "The offer runs until March 2025."),
    ],
)  # fmt: skip
def test_a_year_since_or_until_is_found_in_a_date_of_that_year(claim: str, context: str) -> None:
    """A supported QAGS summary sentence was unsupported: "since 2011" (a year, a plain number,
    its "since" read as a lower limit) against "since October 2011" (a date, "from")."""
    verdict = OfflineJudge().judge(claim, [("c", context)]).claims[0]
    assert "(context:" not in verdict.missing  # no contradicted fact
    assert verdict.label != "unsupported", verdict.missing


def test_a_number_glued_to_its_unit_is_a_fact_of_its_sentence() -> None:
    """A supported CLIFF summary was unsupported: "30lbs (context: 15lbs)". The sentence saying
    "approximately 30lbs" was taken for one without numbers (none of its tokens is all digits),
    so the other value in the aligned sentence read as a contradiction."""
    context = (
        "The 34-year-old lost 30 pounds for the 2014 film and put on 15lbs of muscle later. "
        "He had dropped approximately 30lbs to play the reporter."
    )
    verdict = judge_claim("The actor lost 30lbs for the 2014 film.", [context])
    assert "30lbs (context:" not in verdict.missing
    assert verdict.label != "unsupported", verdict.missing


@pytest.mark.parametrize(
    ("claim", "found"),
    [
        ("He was charged with stealing more than £500,000.", True),
        ("He was charged with stealing less than £600,000.", True),
        ("He was charged with stealing more than £600,000.", False),
        ("He was charged with stealing less than £500,000.", False),
    ],
)  # fmt: skip
def test_an_exact_amount_inside_a_strict_limit_states_it(claim: str, found: bool) -> None:
    """A supported CLIFF summary was unsupported: "more than £ 500,000 (context: £572,206)"."""
    verdict = judge_claim(claim, ["He was charged with stealing £572,206 from the company."])
    assert ("(context: £572,206)" not in verdict.missing) is found, verdict.missing
    assert (verdict.label != "unsupported") is found


@pytest.mark.parametrize(
    ("claim", "context", "label"),
    [
        # The negation negates what follows it, not the claim's words just before it.
        ("The striker posted a photo on social media to show he was too ill to play on Sunday.",
         "The photo the striker posted on social media to show he was too ill to play on Sunday "
         "will make no difference to the coach.", "supported"),
        ("A petition to remove the statue was launched.",
         "A petition to remove the statue was launched - it isn't the only artwork criticised.",
         "supported"),
        ("Alcohol is reimbursed.", "Alcohol is not reimbursed.", "unsupported"),
        ("Alkohol wird erstattet.", "Alkohol erstatten wir nicht.", "unsupported"),
    ],
)  # fmt: skip
def test_a_negation_negates_the_words_after_it(claim: str, context: str, label: str) -> None:
    """Two supported QAGS CNN/DM sentences were unsupported ("the context negates it ('no')"):
    the context's "no" stood within four words of the claim's last words, but negated the
    words after it."""
    verdict = judge_claim(claim, [context])
    assert (verdict.label == "unsupported") is (label == "unsupported"), verdict.missing


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("Gateways on firmware 4.2.x need a manual reset.", True),
        ("Gateways on firmware 5.x also need the reset.", False),
    ],
)  # fmt: skip
def test_a_version_family_is_a_code(claim: str, supported: bool) -> None:
    """ "Gateways on firmware 5.x also need the reset." was supported: "5.x" read as the number 5,
    found in "about five minutes"."""
    context = [
        "Firmware 4.2.0 and 4.2.1 need a manual reset. The reset takes about five minutes.",
        "The manual reset applies to gateways on firmware 4.2.x.",
    ]
    verdict = judge_claim(claim, context)
    assert (verdict.label == "supported") is supported, verdict.missing


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Alcohol won't be reimbursed.", ["alcohol", "reimbursed"]),
        ("Breakfast isn’t charged separately.", ["breakfast", "charged", "separately"]),
        ("They didn't lose; they won the cup.", ["lose", "won", "cup"]),
    ],
)  # fmt: skip
def test_a_contraction_s_auxiliary_is_no_content_word(text: str, words: list[str]) -> None:
    """ "isn't" left the content word "isn", "won't" the word "won", for the context to lack."""
    assert key_words(fold(text), []) == words


def test_until_before_a_time_still_contradicts_from() -> None:
    verdict = OfflineJudge().judge(
        "Der Zugang ist bis 22 Uhr offen.", [("c", "Der Zugang ist ab 22:00 Uhr offen.")]
    )
    assert verdict.claims[0].label == "unsupported"


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


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("Alice in Chains joined Velvet Revolver for a run of gigs from August through October 2007.",
         "PUBLISHED DATETIME: 2007-05-22 19:02 Velvet Revolver team with Alice in Chains for a "
         "run of gigs."),
        ("On March 1, 2017 Powell was named as one of three applicants to fill the vacant seat.",
         "By Travis Zimpfer on March 2, 2017 (photo: Powell) The commission named three "
         "applicants to fill the vacant seat."),
    ],
)  # fmt: skip
def test_a_date_of_another_place_in_the_sentence_is_no_contradiction(
    claim: str, context: str
) -> None:
    """Supported WiCE claims were unsupported: "October 2007 (context: 2007-05-22)", "March 1,
    2017 (context: March 2, 2017)" — the page's own date (published, byline) in the sentence the
    claim aligns with, standing where the claim's date does not."""
    for paraphrase in (False, None):
        verdict = judge_claim(claim, [context], paraphrase)
        assert "(context:" not in verdict.missing, verdict.missing
        assert verdict.label != "unsupported", verdict.missing


@pytest.mark.parametrize(
    ("claim", "context", "missing"),
    [
        ("The tour will run through October 2007, Slash said.",
         "The tour, which kicks off in August, will run through November 2007, Slash said.",
         "October 2007 (context: November 2007)"),
        # No neighbour word is shared across languages: "from" and "ab" both start a period.
        ("The new travel policy applies from 1 April 2025.",
         "Die neue Reiserichtlinie gilt ab dem 1. März 2025.",
         "from 1 April 2025 (context: ab dem 1. März 2025)"),
    ],
)  # fmt: skip
def test_a_date_in_the_claims_place_or_with_its_bound_is_still_contradicted(
    claim: str, context: str, missing: str
) -> None:
    verdict = judge_claim(claim, [context])
    assert verdict.label == "unsupported"
    assert missing in verdict.missing


@pytest.mark.parametrize(
    ("claim", "label"),
    [("Both games had their origin in the mid 19th century.", "supported"),
     ("Both games had their origin in the 18th century.", "unsupported")],
)  # fmt: skip
def test_a_code_with_a_word_before_it_states_the_code(claim: str, label: str) -> None:
    """A supported BEGIN response was unsupported: "19th (context: mid–19th)"."""
    context = "Both games have their origin in football played in Britain in the mid–19th century."
    verdict = judge_claim(claim, [context], paraphrase=False)
    assert verdict.label == label, verdict.missing


@pytest.mark.parametrize(
    ("claim", "context", "label"),
    [
        ("MFA has been required for all remote access since 15 January 2024.",
         "Multi-factor authentication is mandatory for all remote access since January 15, 2024.",
         "supported"),
        ("The SLA guarantees 99.9 % uptime.",
         "The service level agreement guarantees 99.9 % uptime.", "supported"),
        # An acronym the context does not spell out is still a missing name.
        ("The NSA guarantees 99.9 % uptime.",
         "The service level agreement guarantees 99.9 % uptime.", "uncertain"),
    ],
)  # fmt: skip
def test_an_acronym_the_context_writes_out_is_no_missing_name(
    claim: str, context: str, label: str
) -> None:
    """A user's app (2026-12-04): "MFA" for "Multi-factor authentication" sent a correct
    answer to a stronger judge."""
    verdict = OfflineJudge(paraphrase=False).judge(claim, [Chunk("c", context)])
    assert [c.label for c in verdict.claims] == [label]
