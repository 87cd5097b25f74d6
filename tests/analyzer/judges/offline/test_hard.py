"""hard.py: the fact check (numbers, dates, amounts, times, codes) and the strong qualifiers.

A claim's fact is looked up in its aligned sentences, then anywhere; one the context states
otherwise is contradicted, an unstated amount, quantity or time is a hard finding by itself, and
a number changed in a copied sentence is contradicted in place (issue 34). Through the whole
judge (``judge_claim``) where the verdict is the point, and directly where the rule is.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.judges.offline.align import read_facts
from ragfunnel.analyzer.judges.offline.hard import (
    _PAIRS,
    UNSTATED_IS_HARD,
    _same_place,
    check_facts,
    missing_qualifiers,
    neighbours,
)
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.language.terms import qualifiers
from tests.support.planted_texts import (
    ABSTRACT_DE,
    ABSTRACT_EN,
    VARIANTS,
    assert_copy_supported,
    assert_planted_error_found,
)

POLICY_DATE_DE = [Chunk("policy", "Die neue Reiserichtlinie gilt ab dem 1. März 2025.")]
POLICY_DATE_EN = [Chunk("policy", "The new travel policy applies from 1 March 2025.")]
ODDS = [Chunk("abstract", "The odds ratio for relapse was 1·32 (95% CI 1·10–2·05).")]


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


def test_a_changed_number_word_is_still_caught() -> None:
    verdict = OfflineJudge().judge(
        "The update is rolled out over five weeks.", [("c", "It is rolled out over four weeks.")]
    )
    assert verdict.faithfulness == 0.0
    assert verdict.claims[0].missing.startswith("over five weeks (context: over four weeks)")


@pytest.mark.parametrize(
    ("claim", "context", "label", "missing"),
    [
        # Every word of a spelled-out number is looked for: "fifty-seven" is not written in
        # "Fifty-one patients", and it is quoted whole.
        ("Fifty-seven patients were enrolled.",
         "Fifty-one patients with 46 malignant and 44 benign lesions were enrolled.",
         "uncertain", "not in the context: Fifty-seven"),
        ("Fifty-seven patients were enrolled.", "Fifty-seven patients were enrolled in 2010.",
         "supported", ""),
        ("Two hundred and ten patients were enrolled.",
         "Two hundred and ten patients were enrolled in 2010.", "supported", ""),
    ],
)  # fmt: skip
def test_a_spelled_out_number_is_found_only_whole(
    claim: str, context: str, label: str, missing: str
) -> None:
    (verdict,) = OfflineJudge(paraphrase=False).judge(claim, [("c", context)]).claims
    assert (verdict.label, verdict.missing) == (label, missing)


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


def test_a_decade_is_no_quantity_of_seconds() -> None:
    # WiCE test: "1990s" was read as 1,990 seconds, so the aligned sentence's "1950s" (the
    # standard the bridge was built to) contradicted it as another quantity of that unit.
    claim = "By the late 1990s, the bridge was carrying twice as much traffic as it was designed to handle."
    context = [
        "Built to standards of the 1950s, the Evergreen Point Floating Bridge routinely carries "
        "twice as many vehicles as it was designed to handle."
    ]
    for paraphrase in (False, None):
        verdict = judge_claim(claim, context, paraphrase)
        assert verdict.label != "unsupported", verdict
        assert "not in the context: 1990s" in verdict.missing
    stated = judge_claim(
        "In the 1990s the bridge carried twice as many vehicles.",
        ["In the 1990s the bridge carried twice as many vehicles as it was built for."],
        False,
    )
    assert stated.label == "supported", stated


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


def test_until_before_a_time_still_contradicts_from() -> None:
    verdict = OfflineJudge().judge(
        "Der Zugang ist bis 22 Uhr offen.", [("c", "Der Zugang ist ab 22:00 Uhr offen.")]
    )
    assert verdict.claims[0].label == "unsupported"


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


@pytest.mark.parametrize("paraphrase", VARIANTS)
@pytest.mark.parametrize(
    ("claim", "context", "reason"),
    [
        ("The most common diagnoses were depression (26 %) and anxiety (12 %).",
         ABSTRACT_EN, "26 % (context: 19 %)"),
        ("Die häufigsten Diagnosen waren Depression (26 %) und Angst (12 %).",
         ABSTRACT_DE, "26 % (context: 19 %)"),
        # The changed number is stated elsewhere (88): its sentence still says 412.
        ("We followed 88 adults for two years.", ABSTRACT_EN, "88 (context: 412)"),
        ("Wir begleiteten 88 Erwachsene über zwei Jahre.", ABSTRACT_DE, "88 (context: 412)"),
        # A German day's dot ("1. März") ends no sentence: the date is compared in place.
        ("Die neue Reiserichtlinie gilt ab dem 1. April 2025.", POLICY_DATE_DE,
         "ab dem 1. April 2025 (context: ab dem 1. März 2025)"),
        ("The new travel policy applies from 1 April 2025.", POLICY_DATE_EN,
         "from 1 April 2025 (context: from 1 March 2025)"),
        # Middle-dot decimals, as The Lancet writes them.
        ("The odds ratio for relapse was 8·32 (95% CI 1·10–2·05).", ODDS,
         "8·32 (context: 1·32)"),
    ],
)  # fmt: skip
def test_a_number_or_date_planted_in_a_copied_sentence_is_unsupported(
    claim: str, context: list[Chunk], reason: str, paraphrase: bool
) -> None:
    """Issue 34, reproduction 6: one changed value in a copied sentence is a contradiction."""
    assert_planted_error_found(claim, context, reason, paraphrase)


@pytest.mark.parametrize("paraphrase", VARIANTS)
@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The most common diagnoses were depression (19 %) and anxiety (12 %).", ABSTRACT_EN),
        ("Die häufigsten Diagnosen waren Depression (19 %) und Angst (12 %).", ABSTRACT_DE),
        ("We followed 412 adults for two years.", ABSTRACT_EN),
        ("Die neue Reiserichtlinie gilt ab dem 1. März 2025.", POLICY_DATE_DE),
        ("The odds ratio for relapse was 1·32 (95% CI 1·10–2·05).", ODDS),
    ],
)  # fmt: skip
def test_the_copied_sentence_with_its_own_values_is_supported(
    claim: str, context: list[Chunk], paraphrase: bool
) -> None:
    assert_copy_supported(claim, context, paraphrase)


def test_a_number_in_another_place_is_not_contradicted_in_place() -> None:
    """A claim that is no copy of its sentence keeps the ordinary fact check."""
    context = [Chunk("c", "The trial enrolled 412 adults in 12 hospitals across Europe.")]
    verdict = judge_claim("Twelve hospitals took part.", context, False)
    assert "context:" not in verdict.missing


FORMS = [Chunk("forms", "Travel requests need form TA-7 and reimbursement claims need form SR-3.")]


@pytest.mark.parametrize(
    ("claim", "quoted"),
    [
        ("Reimbursement claims need form SR-5.", "SR-5 (context: SR-3)"),
        ("Travel requests need form TA-9.", "TA-9 (context: TA-7)"),
    ],
)
def test_the_quote_names_the_value_in_the_claims_place(claim: str, quoted: str) -> None:
    """Issue 34, reproduction 5: "SR-5 (context: TA-7)" quoted the sentence's first code."""
    verdict = judge_claim(claim, FORMS, paraphrase=False)
    assert verdict.label == "unsupported"
    assert verdict.missing == quoted


def _index(*texts: str) -> ContextIndex:
    return ContextIndex.of([Chunk(f"c{n}", t) for n, t in enumerate(texts)], paraphrase=False)


def test_neighbours_are_two_tokens_each_side_padded_with_empty_ones() -> None:
    text = "the fee is 120 eur a night"
    start = text.index("120")
    assert neighbours(text, start, start + len("120 eur")) == ("fee", "is", "a", "night")
    assert neighbours("120 eur", 0, 7) == ("", "", "", "")


def test_a_copied_sentence_contradicts_a_number_stated_elsewhere_only_when_copied() -> None:
    """ "88" stands in another sentence; the sentence the claim copies says 412 in its place."""
    index = _index(ABSTRACT_EN[0].text)
    _, _, claim_facts = read_facts("We followed 88 adults for two years.")
    loose = check_facts(claim_facts, index, [0], copied=False)
    assert loose.absent == [] and loose.far == 1
    copied = check_facts(claim_facts, index, [0], copied=True)
    assert copied.absent == copied.hard == ["88 (context: 412)"]
    assert copied.contradicted == 1


def test_a_sentence_like_the_copied_one_stating_the_value_in_its_place_contradicts_nothing() -> (
    None
):
    """The copied sentence says 412 where the claim says 388; another says 388 there."""
    index = _index(
        "In 2019 the clinic treated 412 adults for depression.",
        "Parking is free for 2 hours.",
        "In 2020 the clinic treated 388 adults for depression.",
    )
    _, _, claim_facts = read_facts("In 2019 the clinic treated 388 adults for depression.")
    found = check_facts(claim_facts, index, [0], copied=True)
    assert (found.absent, found.contradicted) == ([], 0)
    # Without the like sentence, the copied one contradicts it in place.
    alone = check_facts(claim_facts, _index(index.written[0], index.written[1]), [0], copied=True)
    assert alone.absent == ["388 (context: 412)"]


def test_a_date_changed_in_a_copied_sentence_is_contradicted_though_stated_elsewhere() -> None:
    """A HotpotQA prompt: someone's birthday elsewhere held the changed date, so it was found."""
    context = [
        Chunk("film", "Filming began on 16 January 1995 and continued until 6 June."),
        Chunk("actor", "The actor was born on 23 January 1995 in Osaka."),
    ]
    claim = "Filming began on 23 January 1995 and continued until 6 June."
    verdict = judge_claim(claim, context, paraphrase=False)
    assert verdict.label == "unsupported"
    assert "(context: 16 January 1995)" in verdict.missing
    # The copied sentence stating the claim's date anywhere contradicts nothing: a range's end
    # stands before the claim's next words ("in Oslo") but its start is the claim's date.
    ranged = [Chunk("c", "The championships took place from 23 February to 6 March 2011 in Oslo.")]
    copied = "The championships took place on 23 February 2011 in Oslo."
    assert judge_claim(copied, ranged, paraphrase=False).label != "unsupported"


_TOKENS = st.sampled_from(["", "the", "were", "were depression", "depression", "in", "of"])


@settings(max_examples=500, deadline=None)
@given(st.tuples(*[_TOKENS] * 4), st.tuples(*[_TOKENS] * 4))
def test_two_facts_in_the_same_place_share_both_neighbours_of_a_pair(
    mine: tuple[str, ...], theirs: tuple[str, ...]
) -> None:
    """What ``_in_place`` relies on to pass over a sentence unread: a same place needs a pair of
    the claim's neighbours (``_PAIRS``), both non-empty and both the sentence's."""
    if _same_place(mine, theirs):
        assert any(mine[a] and mine[b] and {mine[a], mine[b]} <= set(theirs) for a, b in _PAIRS)


def test_an_unstated_amount_is_hard_and_an_unstated_year_is_not() -> None:
    assert "amount" in UNSTATED_IS_HARD and "number" not in UNSTATED_IS_HARD
    index = _index("The school opened its doors. A fee is charged once.")
    _, _, year = read_facts("The school opened in 2016.")
    _, _, fee = read_facts("The fee is 150 EUR.")
    found_year = check_facts(year, index, [0])
    assert (found_year.absent, found_year.hard, found_year.contradicted) == (["2016"], [], 0)
    found_fee = check_facts(fee, index, [1])
    assert (found_fee.absent, found_fee.hard) == (["150 EUR"], ["150 EUR"])


def test_the_sentences_where_facts_are_found_are_kept() -> None:
    index = _index("Parking is free.", "The hotel allowance is 120 EUR a night.")
    _, _, claim_facts = read_facts("The allowance is 120 EUR a night.")
    found = check_facts(claim_facts, index, [0])  # aligned elsewhere: found far
    assert (found.absent, found.sentences, found.far) == ([], {1}, 1)


def test_only_strong_qualifiers_the_context_lacks_are_findings_the_weak_are_counted() -> None:
    index = _index("The office is open from 8:00 to 18:00 for all staff.")
    claim = qualifiers("the office is always open to every visitor, only on weekdays")
    assert missing_qualifiers(claim, index) == (["always"], 1)  # "only"; "every" is "all"
    stated = qualifiers("the office is open for all staff, at any time")
    assert missing_qualifiers(stated, index) == (["at any time"], 0)
    assert missing_qualifiers([], index) == ([], 0)


def test_a_bound_in_other_words_is_no_neighbour_and_a_limit_holding_the_value_no_contradiction() -> (
    None
):
    """A user's HR app: "up to EUR 1800 monthly, for at most 14 months" against "at most 1,800
    EUR per month, for up to 14 months" was two contradictions: "up to" and "at most" were read
    as the numbers' neighbours, placing each number where the other stood."""
    context = [("c", "The parental leave allowance is 67 % of net income, at most 1,800 EUR per "
                     "month, for up to 14 months.")]  # fmt: skip
    claim = "The allowance is 67% of net income, up to EUR 1800 monthly, for at most 14 months."
    assert judge_claim(claim, context, paraphrase=False).label == "supported"
    bodies = [("b", "Prosecutors have begun exhuming 116 bodies from a mass grave in Morelos.")]
    held = judge_claim("They have begun exhuming more than 100 bodies from a mass grave.", bodies)
    assert held.label != "unsupported"
    beyond = judge_claim("They have begun exhuming more than 150 bodies from a mass grave.", bodies)
    assert beyond.label == "unsupported" and "116" in beyond.missing


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        (
            "Nach der Kündigung werden Ihre Daten sofort endgültig gelöscht.",
            "Nach der Kündigung werden alle Daten nach 90 Tagen endgültig gelöscht; ein Export ist bis dahin möglich.",
        ),
        (
            "After cancellation, all workspace data is deleted immediately.",
            "After cancellation, all workspace data is permanently deleted after 90 days; an export remains possible until then.",
        ),
    ],
)
def test_a_fact_of_the_sentence_replaced_by_a_word_holds_the_claim_back(
    claim: str, context: str
) -> None:
    # A subscription FAQ app: both planted faults were supported (the funnel said ok).
    for paraphrase in (False, None):
        verdict = judge_claim(claim, [context], paraphrase)
        assert verdict.label == "uncertain", verdict
        assert "(context: 90 " in verdict.missing
    stated = judge_claim(
        "After cancellation, all workspace data is deleted after ninety days.",
        [
            "After cancellation, all workspace data is permanently deleted after 90 days; an export remains possible until then."
        ],
        False,
    )
    assert stated.label == "supported"


def test_the_value_quoted_instead_is_the_one_in_the_claims_place() -> None:
    # "from 10 am to 4 pm" against "from 10 am to 2 pm" quoted "(context: from 10 am)".
    context = [
        "On Saturdays, chat support is available from 10 am to 2 pm. There is no support on Sundays."
    ]
    verdict = judge_claim(
        "On Saturdays, chat support is available from 10 am to 4 pm.", context, False
    )
    assert verdict.label == "unsupported"
    assert verdict.missing.startswith("4 pm (context: 2 pm)"), verdict.missing


def test_all_where_the_sentence_says_only_holds_the_claim_back() -> None:
    # A subscription FAQ app: "included in all plans" against "only in the Business and
    # Enterprise plans" was supported.
    context = ["Single sign-on (SSO) is included only in the Business and Enterprise plans."]
    verdict = judge_claim("Single sign-on is included in all plans.", context, False)
    assert verdict.label == "uncertain", verdict
    assert "all (context: only)" in verdict.missing
    german = judge_claim(
        "SSO ist in allen Tarifen enthalten.",
        ["SSO ist nur in den Tarifen Business und Enterprise enthalten."],
        False,
    )
    assert german.label != "supported"
    assert (
        judge_claim("SSO is included only in the Business plan.", context, False).label
        != "unsupported"
    )
