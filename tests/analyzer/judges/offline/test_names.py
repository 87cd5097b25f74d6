"""names.py: the claim's names the context lacks, and the names its aligned sentence swaps."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.judges.offline.align import read_facts
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.names import missing_names, swapped_names
from ragfunnel.analyzer.judges.verdict_types import Chunk


def _index(*texts: str) -> ContextIndex:
    return ContextIndex.of([Chunk(f"c{n}", text) for n, text in enumerate(texts)], paraphrase=False)


def _missing(claim: str, *context: str, german: bool = False) -> list[str]:
    _, _, claim_facts = read_facts(claim)
    return missing_names(claim, claim_facts, german, _index(*context))


def test_a_name_the_context_lacks_is_missing_and_the_first_word_is_no_name() -> None:
    context = "The office opens at 8:00."
    assert _missing("Munich staff say the office opens at 8:00.", context) == []
    assert _missing("The office in Munich opens at 8:00.", context) == ["munich"]


def test_months_weekdays_and_meta_words_are_no_names() -> None:
    # (The days are the context's too: a day it lacks is missing, below.)
    context = "The office opens at 8:00 on weekdays."
    claim = "On weekdays the office opens at 8:00, Monday to Friday, from March, Reportedly."
    assert _missing(claim, context) == []


def test_a_phrase_is_missing_only_when_none_of_its_words_is_there() -> None:
    context = "The film was added to the National Film Registry in 2004."
    claim = "The film was added to the United States National Film Registry."
    assert _missing(claim, context) == []
    # One word of the phrase in the context ("film") is enough; none, and all are missing.
    assert _missing("The film won at the Berlin Film Festival.", "The film won a prize.") == []
    assert _missing("It won at the Berlin International Festival.", "It won a prize.") == [
        "berlin",
        "international",
        "festival",
    ]


def test_a_german_claim_has_acronyms_only_for_names() -> None:
    context = "Die Hotelpauschale beträgt 120 EUR."
    claim = "Die Hotelpauschale in München beträgt laut HR 120 EUR."
    assert _missing(claim, context, german=True) == ["hr"]
    assert _missing(claim, context, german=False) == ["munchen", "hr"]


@pytest.mark.parametrize(
    ("acronym", "written_out", "found"),
    [
        ("MFA", "Multi-factor authentication is mandatory for all staff.", True),
        ("GDPR", "The General Data Protection Regulation applies.", True),
        ("SSO", "Staff sign in with a password.", False),
        ("HR", "Human resources answers questions.", False),  # two letters: spelt by chance
    ],
)
def test_an_acronym_the_context_writes_out_is_there(
    acronym: str, written_out: str, found: bool
) -> None:
    claim = f"Access needs {acronym} for all staff."
    assert _missing(claim, written_out) == ([] if found else [acronym.lower()])


def test_a_name_in_a_fact_is_not_missing() -> None:
    assert _missing("The form is SR-5.", "Reimbursement needs form SR-5.") == []


def test_a_swapped_name_quotes_the_names_the_aligned_sentence_gives_instead() -> None:
    index = _index("The Berlin office opens at 8:00.", "Parking is free.")
    folded = "the munich office opens at 8:00."
    assert swapped_names(["munich"], ["munich"], folded, index, [0]) == ["munich (context: Berlin)"]


def test_no_swap_without_one_aligned_sentence_or_with_other_words_missing() -> None:
    index = _index("The Berlin office opens at 8:00. Parking is free.")
    folded = "the munich office opens at 8:00."
    assert swapped_names([], ["munich"], folded, index, [0]) == []
    assert swapped_names(["munich"], ["munich"], folded, index, []) == []
    assert swapped_names(["munich"], ["munich"], folded, index, [0, 1]) == []
    assert swapped_names(["munich"], ["munich", "early"], folded, index, [0]) == []


def test_no_swap_when_the_sentence_names_only_what_the_claim_names() -> None:
    index = _index("The Munich and Berlin offices open at 8:00.")
    folded = "the hamburg, munich and berlin offices open at 8:00."
    assert swapped_names(["hamburg"], ["hamburg"], folded, index, [0]) == []


def test_an_english_name_missing_from_the_context_is_never_supported() -> None:
    verdict = judge_claim(
        "The hotel allowance is 120 EUR per night in Hamburg",
        ["The hotel allowance is 120 EUR per night."],
    )
    assert verdict.label != "supported"
    assert "hamburg" in verdict.missing


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


def test_a_day_the_context_neither_names_nor_spans_is_missing_and_one_it_spans_is_found() -> None:
    """A planted fault, "Die Kantine ist auch samstags geöffnet." against "montags bis freitags",
    was judged supported; "Mon–Fri" against "Monday to Friday" missed two words."""
    canteen = [("k", "Die Kantine ist montags bis freitags von 11:30 bis 14:00 Uhr geöffnet.")]
    added = judge_claim("Die Kantine ist auch samstags geöffnet.", canteen, paraphrase=False)
    assert added.label != "supported" and "samstags" in added.missing
    within = judge_claim("Die Kantine ist mittwochs geöffnet.", canteen, paraphrase=False)
    assert within.label == "supported"
    office = [("o", "The office is open Monday to Friday from 7:30 am to 6 pm.")]
    hours = judge_claim("The office is open Mon–Fri, 7:30 am to 6 pm.", office, paraphrase=False)
    assert hours.label == "supported"


def test_a_german_noun_swapped_in_place_holds_the_verdict_back() -> None:
    """A README-style gym app: "… per E-Mail an die Buchhaltung" against "… an das
    Studiomanagement" was judged supported (a planted fault read as ok)."""
    context = [("c", "Beschwerden richten Sie bitte per E-Mail an das Studiomanagement.")]
    swapped = judge_claim("Beschwerden richten Sie bitte per E-Mail an die Buchhaltung.", context)
    assert swapped.label == "uncertain"  # held back, never blamed by itself (a synonym swaps too)
    assert "buchhaltung (context: Studiomanagement)" in swapped.missing
    # A paraphrase that moves a noun is no swap in place.
    car = [("d", "Dienstwagen stehen Führungskräften ab Ebene E3 zu.")]
    moved = "Führungskräfte ab Ebene E3 haben Anspruch auf einen Dienstwagen."
    assert judge_claim(moved, car, paraphrase=False).label == "supported"


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        (
            "Guns N' Roses is an American hard rock band from LA, California.",
            "Guns N' Roses is an American hard rock band from Los Angeles, California, formed in 1985.",
        ),
        (
            "American football evolved in the US from association football and rugby.",
            "American football evolved in the United States from association football and rugby football.",
        ),
    ],
)
def test_two_letters_spelt_by_a_name_written_out_are_that_name(claim: str, context: str) -> None:
    # BEGIN test: "LA" and "US" were swapped names ("la (context: Los, Angeles)"), unsupported.
    for paraphrase in (False, None):
        assert judge_claim(claim, [context], paraphrase).label == "supported"


def test_two_letters_another_name_spells_are_still_swapped() -> None:
    verdict = judge_claim(
        "The office is in the UK.", ["The office is in the United States."], False
    )
    assert verdict.label == "unsupported"
    assert "uk (context: United, States)" in verdict.missing
    lagos = judge_claim(
        "The band is from LA.", ["The band is from Lagos, Nigeria, a large city."], False
    )
    assert lagos.label == "unsupported"


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        (
            "His mother moved the family back to the United States in 1954.",
            "In 1954 his mother moved the family back to the U.S. for good.",
        ),
        (
            "The chart lists it as her third biggest single in the United Kingdom.",
            "The Official UK Chart lists it as her third biggest single.",
        ),
        (
            "It is displayed at the National Air and Space Museum (NASM).",
            "It is on display at the National Air and Space Museum in Washington.",
        ),
    ],
)
def test_a_name_the_context_abbreviates_or_an_acronym_it_writes_out_is_there(
    claim: str, context: str
) -> None:
    # WiCE test: "United States" against "U.S.", "United Kingdom" against "UK" and "NASM"
    # against "National Air and Space Museum" were missing names, keeping supported claims back.
    index = ContextIndex.of([Chunk("e", context)])
    _, _, claim_facts = read_facts(claim)
    assert missing_names(claim, claim_facts, False, index) == []
    assert judge_claim(claim, [context], False).label == "supported"


def test_an_abbreviation_of_another_name_is_still_missing() -> None:
    index = ContextIndex.of([Chunk("e", "The office is in the US.")])
    assert missing_names("The office is in the United Kingdom.", [], False, index) == [
        "united",
        "kingdom",
    ]


def test_a_claim_denying_a_name_the_sentence_does_not_give_swaps_nothing() -> None:
    # "SSO isn't included in the Starter plan" against "only in the Business and Enterprise
    # plans" was a swapped name ("starter (context: Business, Enterprise)"), unsupported.
    context = ["Single sign-on (SSO) is included only in the Business and Enterprise plans."]
    verdict = judge_claim("SSO isn't included in the Starter plan.", context, False)
    assert verdict.label == "uncertain", verdict
    assert (
        judge_claim("SSO is included in the Starter plan.", context, False).label == "unsupported"
    )


@pytest.mark.parametrize(
    "claim",
    [
        "Erstattungsanträge für Jahrestarife gehen an den Vertrieb.",  # aligns with two sentences
        "Erstattungsanträge gehen an das Support-Team.",  # a hyphenated noun
    ],
)
def test_a_german_noun_swapped_in_place_beside_another_sentence_or_hyphenated_holds_back(
    claim: str,
) -> None:
    context = [
        "Jahrestarife werden innerhalb von 30 Tagen nach dem Kauf anteilig erstattet. "
        "Erstattungsanträge gehen an die Buchhaltung."
    ]
    verdict = judge_claim(claim, context, False)
    assert verdict.label == "uncertain", verdict
    assert "(context: Buchhaltung)" in verdict.missing


def test_a_day_a_range_adds_is_quoted_by_its_name_and_swapped_for_the_sentences() -> None:
    # "Monday to Saturday" against "Monday to Friday" reported "not in the context: monday".
    context = ["Phone support is available Monday to Friday from 8 am to 6 pm CET."]
    verdict = judge_claim(
        "Phone support is available Monday to Saturday from 8 am to 6 pm CET.", context, False
    )
    assert "monday" not in verdict.missing
    assert verdict.label == "unsupported"
    assert "saturday (context: Friday)" in verdict.missing


def test_a_word_glued_to_a_full_stop_opens_a_sentence_and_is_no_name() -> None:
    # A heading an abstract runs on after a full stop ("products.Patients-") is no name; a
    # name later in the same run still is, and so is a glued acronym.
    context = "It ran in 2004.Patients came from Munich."
    assert _missing("It ran in 2004.Participants came from Munich.", context) == []
    assert _missing("It ran in 2004.Participants came from Hamburg.", context) == ["hamburg"]
    assert _missing("It ran in 2004 only.HCT came from Munich.", context) == ["hct"]
    index = _index("Patients received contaminated products.Patients- Ten died.")
    folded = "participants received contaminated products.participants- ten died."
    assert swapped_names(["participants"], ["participants"], folded, index, [0]) == []


def test_a_paraphrased_heading_glued_to_a_full_stop_is_not_blamed() -> None:
    # bench/judge_styles.py's one blamed paraphrase: "Patients" → "Participants" in a heading
    # run on after a full stop was read as a name the aligned sentence swaps.
    context = [
        "We aimed to determine the microbial contamination rates in patients who received "
        "contaminated products.Patients- We analyzed microbial contamination of 100 products."
    ]
    claim = (
        "We aimed to determine the microbial contamination rates in participants who received "
        "contaminated products.Participants- We analyzed microbial contamination of 100 products."
    )
    assert judge_claim(claim, context).label != "unsupported"
