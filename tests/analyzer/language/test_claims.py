from __future__ import annotations

import pytest

from ragfunnel.analyzer.language.claims import is_refusal, split_claims


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        (
            "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist ab 22 Uhr erlaubt.",
            ["Die Hotelpauschale beträgt 120 Euro", "Ein Taxi ist ab 22 Uhr erlaubt"],
        ),
        (
            "Firmware 4.2.0 and 4.2.1 need a manual reset. The fee is 120,50 €.",
            ["Firmware 4.2.0 and 4.2.1 need a manual reset", "The fee is 120,50 €"],
        ),
        (
            "Es gibt z. B. die Regel Nr. 3 bzw. die Regel Nr. 4. Sie gilt ca. 2 Jahre.",
            ["Es gibt z. B. die Regel Nr. 3 bzw. die Regel Nr. 4", "Sie gilt ca. 2 Jahre"],
        ),
        (
            "Use e.g. the portal, i.e. the intranet. Dr. Smith approves it.",
            ["Use e.g. the portal, i.e. the intranet", "Dr. Smith approves it"],
        ),
        (
            "Am 3. Juli 2024 trat die Richtlinie POL-2024-07 in Kraft.",
            ["Am 3. Juli 2024 trat die Richtlinie POL-2024-07 in Kraft"],
        ),
        (
            "The policy allows taxis after 10 pm, but the hotel must be booked via HR.",
            ["The policy allows taxis after 10 pm", "The hotel must be booked via HR"],
        ),
        (
            "Sie erhalten 30 Tage Urlaub, aber der Resturlaub verfällt am 31. März.",
            ["Sie erhalten 30 Tage Urlaub", "Der Resturlaub verfällt am 31. März"],
        ),
        (
            "Die Kosten für Hotel und Taxi werden erstattet.",
            ["Die Kosten für Hotel und Taxi werden erstattet"],
        ),
    ],
)
def test_sentences_and_clauses(answer: str, claims: list[str]) -> None:
    assert list(split_claims(answer).claims) == claims


def test_lists_carry_their_lead_in() -> None:
    answer = "A manual reset is needed for:\n- 4.2.0\n- 4.2.1\n\n1. Taxis run from 22:00.\n2) Hotels cost 120 EUR."
    assert split_claims(answer).claims == (
        "A manual reset is needed for: 4.2.0",
        "A manual reset is needed for: 4.2.1",
        "Taxis run from 22:00",
        "Hotels cost 120 EUR",
    )


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know.",
        "I do not know the answer to that.",
        "Dazu habe ich keine Informationen.",
        "Ich weiß es nicht.",
        "The context does not mention a refund. Hope this helps!",
        "Das geht aus den Unterlagen nicht hervor.",
        "",
        "   ",
    ],
)
def test_refusals_have_no_claims(answer: str) -> None:
    split = split_claims(answer)
    assert split.claims == ()
    assert split.abstained


def test_a_refusal_beside_a_claim_keeps_the_claim() -> None:
    split = split_claims("I don't know the exact date. The fee is 120 EUR.")
    assert split.claims == ("The fee is 120 EUR",)
    assert split.refusals == ("I don't know the exact date.",)
    assert not split.abstained


@pytest.mark.parametrize(
    ("answer", "claims", "refusals"),
    [
        # A hedged answer is an answer: wrong, it is unsupported, not an abstention.
        ("I'm not sure, but I think the hotel allowance is 200 EUR per night.",
         ("I think the hotel allowance is 200 EUR per night",), ("I'm not sure",)),
        ("I am sorry, but the hotel allowance is 120 EUR per night.",
         ("The hotel allowance is 120 EUR per night",), ("I am sorry",)),
        ("Dazu habe ich leider keine Informationen, aber die Pauschale beträgt 120 EUR.",
         ("Die Pauschale beträgt 120 EUR",), ("Dazu habe ich leider keine Informationen",)),
        ("The context does not mention parking, but taxis are reimbursed after 10 pm.",
         ("Taxis are reimbursed after 10 pm",), ("The context does not mention parking",)),
        # "I'm" as well as "I am"; a filler between commas.
        ("I'm not sure.", (), ("I'm not sure.",)),
        ("Hierzu kann ich, leider, nichts sagen.", (), ("Hierzu kann ich, leider, nichts sagen.",)),
    ],
)  # fmt: skip
def test_a_sentence_turning_from_a_refusal_to_an_answer_keeps_the_answer(
    answer: str, claims: tuple[str, ...], refusals: tuple[str, ...]
) -> None:
    split = split_claims(answer)
    assert (split.claims, split.refusals) == (claims, refusals)
    assert split.abstained is not bool(claims)


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        # "No." answering a question is no abbreviation of "number" (it glued the answer's
        # "No" to its claim, whose negation the context lacked: a correct answer unsupported).
        # "No." ends its sentence, which only answers no: no claim (test below).
        ("No. Flights under 6 hours have to be booked in economy class.",
         ("Flights under 6 hours have to be booked in economy class",)),
        ("See No. 5 and Nr. 7 for details.", ("See No. 5 and Nr. 7 for details",)),
        # A German ordinal before its noun ends no sentence; one before a pronoun does.
        ("Grundsätzlich wird die 2. Klasse erstattet. Ab 4 Stunden dürfen Sie 1. Klasse fahren.",
         ("Grundsätzlich wird die 2. Klasse erstattet", "Ab 4 Stunden dürfen Sie 1. Klasse fahren")),
        ("Es gilt die Regel Nr. 4. Sie gilt ca. 2 Jahre.", ("Es gilt die Regel Nr. 4", "Sie gilt ca. 2 Jahre")),
        ("The limit is 5. The rest is yours.", ("The limit is 5", "The rest is yours")),
        # An answer particle opening a sentence answers the question; the rest is the claim
        # (a README-style gym app: "No, towels cannot be rented …" hid its negation).
        ("No, towels cannot be rented at the front desk.",
         ("Towels cannot be rented at the front desk",)),
        ("Nein, Handtücher werden nicht verliehen.", ("Handtücher werden nicht verliehen",)),
        ("Yes — the sauna is included.", ("The sauna is included",)),
        ("Nobody knows why.", ("Nobody knows why",)),
    ],
)  # fmt: skip
def test_answer_particles_numbers_and_ordinals_end_sentences_where_they_do(
    answer: str, claims: tuple[str, ...]
) -> None:
    assert split_claims(answer).claims == claims


def test_refusal_detection() -> None:
    assert is_refusal("Leider liegen mir keine Informationen dazu vor.")
    assert not is_refusal("The hotel allowance is 120 EUR.")


REFUSALS_WITH_FILLERS = [
    "Dazu habe ich leider keine Informationen.",
    "Leider liegen mir dazu keine Informationen vor.",
    "Das kann ich Ihnen leider nicht beantworten.",
    "Ich kann diese Frage leider nicht beantworten.",
    "Unfortunately, I don't have information about the taxi policy.",
    "I'm afraid I cannot answer that.",
    "Sadly, the provided documents do not mention it.",
    # verb second, the filler first (a user's app, 2026-12-04)
    "Leider habe ich dazu keine Informationen.",
    "Hierzu kann ich leider nichts sagen.",
    "Darüber weiß ich leider nichts.",
    "Unfortunately, there's no information about that in the documents.",
]
NOT_REFUSALS = [
    "Habe ich keine Informationen übersehen, gilt die Frist von 21 Tagen.",
    "Ich habe keine Zeit verloren.",
    "Leider ist Alkohol nicht erstattungsfähig.",
    "Unfortunately, taxis are not covered before 22:00.",
    "I'm afraid the hotel allowance is only 120 EUR.",
]


@pytest.mark.parametrize("sentence", REFUSALS_WITH_FILLERS)
def test_a_refusal_with_a_filler_is_a_refusal(sentence: str) -> None:
    """Issue 34, reproduction 4: "leider" made a German refusal an unsupported claim."""
    split = split_claims(sentence)
    assert split.abstained
    assert len(split.refusals) == 1
    assert is_refusal(sentence)


@pytest.mark.parametrize("sentence", NOT_REFUSALS)
def test_a_filler_alone_makes_no_refusal(sentence: str) -> None:
    assert not split_claims(sentence).abstained


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("**Borrowing limits**\n\n- Up to **12 items** at a time [1]\n- Loan period: 21 days [1]",
         ("Up to 12 items at a time", "Loan period: 21 days")),
        ("## Opening hours\nThe reading room opens at 8:00.", ("The reading room opens at 8:00",)),
        ("__Fees:__\nLate returns cost 0.25 EUR a day.", ("Late returns cost 0.25 EUR a day",)),
        # A bold sentence is a statement, not a heading.
        ("**The fee is 5 EUR.**", ("The fee is 5 EUR",)),
    ],
)  # fmt: skip
def test_markdown_headings_are_no_claims_and_emphasis_is_dropped(
    answer: str, claims: tuple[str, ...]
) -> None:
    """A user's app (2026-12-04): "**Borrowing limits**" was a claim the judge could not decide."""
    assert split_claims(answer).claims == claims


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        # A subscription FAQ app written from the README (2026-12-04): each was a claim, blamed.
        ("I'm afraid not. Partial months are not refunded.", ["Partial months are not refunded"]),
        (
            "Unfortunately not. Partial months are not refunded.",
            ["Partial months are not refunded"],
        ),
        (
            "Leider nein. Angebrochene Monate werden nicht erstattet.",
            ["Angebrochene Monate werden nicht erstattet"],
        ),
        (
            "Leider nicht. Angebrochene Monate werden nicht erstattet.",
            ["Angebrochene Monate werden nicht erstattet"],
        ),
        (
            "Unfortunately, no, partial months are not refunded.",
            ["Partial months are not refunded"],
        ),
        (
            "Sure thing. Monthly plans can be cancelled at any time.",
            ["Monthly plans can be cancelled at any time"],
        ),
        ("Der Tarif kostet 12 €. Viele Grüße, Ihr CloudDesk-Team", ["Der Tarif kostet 12 €"]),
        ("Der Tarif kostet 12 €.\n\nBeste Grüße", ["Der Tarif kostet 12 €"]),
        (
            "Plans can be cancelled.\n\nBest regards,\nThe CloudDesk team",
            ["Plans can be cancelled"],
        ),
        ("That depends on your plan. Starter costs 12 € a month.", ["Starter costs 12 € a month"]),
        (
            "Gerne, hier die wichtigsten Punkte:\n- Monatstarife sind jederzeit kündbar.\n- Angebrochene Monate werden nicht erstattet.",
            ["Monatstarife sind jederzeit kündbar", "Angebrochene Monate werden nicht erstattet"],
        ),
        # what stays a claim
        (
            "Best regards, the support team is available on weekdays.",
            ["Best regards, the support team is available on weekdays"],
        ),
        ("Your IT team installs the VPN client.", ["Your IT team installs the VPN client"]),
        ("Not covered by the plan.", ["Not covered by the plan"]),
    ],
)
def test_answer_particles_courtesies_and_sign_offs_make_no_claim(
    answer: str, claims: list[str]
) -> None:
    assert list(split_claims(answer).claims) == claims
