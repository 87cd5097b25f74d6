"""The signals' context matching (judges/run/context.py): stems, words, compounds, facts, sentences."""

from __future__ import annotations

from ragfunnel.analyzer.judges.run.context import Text, prepare, stem, where, word_in
from ragfunnel.analyzer.language.lexicon import fold


def test_a_stem_is_the_shorter_snowball_stem_and_short_words_stay() -> None:
    assert stem("reimbursements") == "reimburs"  # English
    assert stem("erstattungen") == "erstatt"  # German
    assert stem("taxi") == "taxi"  # four letters or fewer: as written


def test_a_word_is_found_exactly_by_stem_or_inside_a_hyphenated_compound() -> None:
    text = Text.of(fold("Die Hotel-Pauschale gilt. Ein Taxi ist ab 22:00 Uhr erlaubt."))
    assert {"hotel-pauschale", "hotel", "pauschale", "hotelpauschale", "taxi"} <= text.words
    assert word_in("taxi", text)
    assert word_in("erlaubte", text)  # by its stem
    assert word_in("hotelpauschale", text)  # the hyphenated compound, joined
    assert not word_in("erlaubnis", text)
    assert not word_in("reise", text)


def test_where_lists_every_text_holding_the_word_and_splits_compounds_only_as_a_fallback() -> None:
    texts = [
        Text.of(fold(line))
        for line in [
            "Die Reisekosten werden erstattet.",
            "Hotelkosten pro Nacht.",
            "Taxi ab 22 Uhr.",
        ]
    ]
    assert where("kosten", texts) == {0, 1}
    assert where("taxi", texts) == {2}
    assert where("hotelnacht", texts) == {1}  # "hotel" and "nacht" in one text
    assert where("flug", texts) == set()


def test_a_prepared_chunk_knows_its_facts_and_their_sentences() -> None:
    prepared = prepare(
        "Die Hotelpauschale beträgt 120 EUR pro Nacht. Ein Taxi ist nicht vor 22:00 Uhr erlaubt."
    )
    assert prepared.folded.startswith("die hotelpauschale betragt 120 eur")
    # Facts quote the original text, with their bound phrase.
    assert [f.text for f in prepared.facts] == ["120 EUR pro Nacht", "vor 22:00 Uhr"]
    assert [prepared.fact_sentence(k) for k in range(2)] == [0, 1]
    assert prepared.sentence_text(1) == "ein taxi ist nicht vor 22:00 uhr erlaubt."
    assert prepared.negated
    assert [negation for _, negation in prepared.sentences()] == ["", "nicht"]
    assert "nacht" in prepared.sentences()[0][0].words


def test_a_chunk_is_prepared_once_and_negation_is_seen_in_either_language() -> None:
    text = "Die Hotelpauschale beträgt 120 EUR."
    assert prepare(text) is prepare(text)
    assert not prepare("The hotel is fine.").negated
    assert prepare("It isn't allowed.").negated
