"""The offline judge's paraphrase embedding (ragfunnel[paraphrase], WordLlama) and the judge
without it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.judges.offline.align import FEATURES, PARAPHRASE_FEATURES, align
from ragfunnel.analyzer.judges.offline.embed import load
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.score import PARAPHRASE, PLAIN
from ragfunnel.analyzer.judges.verdict_types import Chunk

# The dev extra installs ragfunnel[paraphrase]: without it this module fails, it does not skip.
EMBEDDER = load()

LAPTOP = [
    "Employees who lose a laptop must tell the IT service desk within 24 hours. "
    "The desk then locks the device remotely."
]


def test_the_extra_is_installed_and_loads_without_a_network() -> None:
    assert EMBEDDER is not None, "pip install 'ragfunnel[paraphrase]' (the dev extra has it)"
    assert EMBEDDER.matrix.shape == (32000, 256)


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The physician prescribed medication.", ["The doctor gave him drugs."]),
        ("The car was purchased by the company.", ["The firm bought the vehicle."]),
        (
            "Staff who misplace a notebook computer have to inform the IT help desk within "
            "24 hours.",
            LAPTOP,
        ),
    ],
)
def test_a_paraphrase_in_other_words_is_supported_only_with_the_embedding(
    claim: str, context: list[str]
) -> None:
    plain = judge_claim(claim, context, paraphrase=False)
    with_embedding = judge_claim(claim, context, paraphrase=True)
    assert plain.label != "supported"
    assert with_embedding.label == "supported", with_embedding
    assert (with_embedding.confidence or 0) > (plain.confidence or 0)


def test_new_content_stays_unsupported_or_uncertain_with_the_embedding() -> None:
    unrelated = judge_claim("The cafeteria serves vegan lunch every Friday.", LAPTOP, True)
    assert unrelated.label == "unsupported"
    assert "none of its words is in the context" in unrelated.missing
    # One shared word, the rest new: the softened share stays below FOUND_AT.
    mostly_new = judge_claim(
        "Die Hotelpauschale deckt Frühstück, Parkplatz und Minibar",
        ["Die Hotelpauschale beträgt 120 EUR pro Nacht."],
        True,
    )
    assert mostly_new.label == "uncertain"
    assert "minibar" in mostly_new.missing


def test_each_variant_scores_with_its_own_fitted_model() -> None:
    context = [Chunk("c", LAPTOP[0])]
    claim = "Lost laptops must be reported to the IT service desk within 24 hours."
    plain = align(claim, ContextIndex.of(context, paraphrase=False))
    embedded = align(claim, ContextIndex.of(context, paraphrase=True))
    assert len(plain.values) == len(FEATURES) == len(PLAIN.coefficients)
    assert len(embedded.values) == len(FEATURES) + len(PARAPHRASE_FEATURES)
    assert len(embedded.values) == len(PARAPHRASE.coefficients)
    assert plain.values == embedded.values[: len(FEATURES)]
    assert judge_claim(claim, context).confidence == pytest.approx(
        PARAPHRASE.probability(embedded.values)
    )


def test_sentence_vectors_are_made_once_per_context_sentence() -> None:
    index = ContextIndex.of([Chunk("c", LAPTOP[0])], paraphrase=True)
    align("The desk locks the device remotely.", index)
    kept = index._parts[0].vectors  # one chunk: its sentence ids are the context's
    first = dict(kept)
    align("The desk then locks the device.", index)
    assert first and all(kept[k] is v for k, v in first.items())
    verdict = OfflineJudge(paraphrase=True).judge("The desk locks the device remotely.", LAPTOP)
    assert verdict.claims[0].label == "supported"


def test_loading_leaves_the_root_logger_as_it_was() -> None:
    # wordllama calls logging.basicConfig on import; load() puts the root logger back.
    code = textwrap.dedent(
        """
        import logging
        from ragfunnel.analyzer.judges.offline.embed import load
        before = (list(logging.getLogger().handlers), logging.getLogger().level)
        assert load() is not None
        assert (list(logging.getLogger().handlers), logging.getLogger().level) == before
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_without_the_extra_the_judge_still_judges_and_asking_for_it_says_how() -> None:
    # Hide wordllama as if the extra were not installed, in a fresh interpreter.
    code = textwrap.dedent(
        """
        import sys
        sys.modules["wordllama"] = None
        from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
        from ragfunnel.analyzer.judges.offline.embed import load
        from ragfunnel.analyzer.judges.offline.score import PLAIN
        assert load() is None
        context = [("hotel", "Die Hotelpauschale beträgt 120 EUR pro Nacht.")]
        ok = judge_claim("Die Hotelpauschale beträgt 120 Euro pro Nacht", context)
        assert ok.label == "supported" and ok.confidence >= PLAIN.supported_at, ok
        bad = OfflineJudge().judge("Die Hotelpauschale beträgt 150 Euro pro Nacht.", context)
        assert bad.claims[0].label == "unsupported", bad
        try:
            judge_claim("x y z", context, paraphrase=True)
        except RuntimeError as exc:
            assert "pip install 'ragfunnel[paraphrase]'" in str(exc), exc
        else:
            raise AssertionError("paraphrase=True without the extra must fail")
        print("judged without the extra")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "judged without the extra" in done.stdout
