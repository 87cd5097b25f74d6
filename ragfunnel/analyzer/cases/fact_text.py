"""One rule for facts: how a text is normalised, and when an answer states a fact.

The funnel's facts check (``funnel/records/answer_checks.py``) and the judges' correctness
(``judges/correctness.py``) both use this module, so the two can never disagree on whether
"HAUPTSTRASSE 5" states the fact "Hauptstraße 5". It sits with the cases, below both layers.

Normalisation, in order:

1. NFKC (compatibility forms: "ﬁ" → "fi", full-width digits → digits, ...);
2. lower case, then the German foldings of case-folding and transliteration: ``ß`` → ``ss``,
   ``ä`` → ``ae``, ``ö`` → ``oe``, ``ü`` → ``ue`` (so "Hauptstraße", "HAUPTSTRASSE",
   "München" and "Muenchen" meet);
3. currencies as codes after their amount: ``€120``, ``120 €``, ``120 Euro`` and ``120 EUR`` all
   read ``120 eur`` (``£`` → ``gbp``, ``¥`` → ``jpy``, ``$`` → ``usd``);
4. every run of characters that are neither letters nor digits becomes one space, and the text
   is padded with one space on each side.

A fact is *stated* when its normalised form is contained in the answer's: it must match whole
tokens, so ``4.2.0`` matches "firmware 4.2.0." but not "4.2.01". A fact this literal rule misses
is read twice more (:func:`restate`):

- **without accents**, when the fact or the answer has a letter outside ASCII: both texts with
  every accent dropped (NFKD, combining marks removed; ``ø``, ``æ``, ``œ``, ``ł``, ``đ``, ``ð``,
  ``þ``, ``ı``, which NFKD keeps whole, spelled ``o``, ``ae``, ``oe``, ``l``, ``d``, ``d``,
  ``th``, ``i``), then steps 2–4. So "Zurich" states ``Zürich`` (as "Zuerich" does by step 2),
  "Sao Paulo" ``São Paulo`` and "Tromso" ``Tromsø``; the German spelling stays the literal one.
- **by meaning** (``fact_meaning.py``: ``10 pm`` states ``22:00``, ``€5,000`` states
  ``5.000 EUR``, ``five`` states ``5``), with the judges' fact reader.

The rule is written once, as polars expressions; the scalar functions run the same
expressions on a one-element series, so scalar and vectorised results are identical by
construction.
"""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.cases.fact_meaning import restate_by_meaning

__all__ = [
    "fact_stated",
    "normalize_text",
    "normalize_texts",
    "normalized",
    "restate",
    "states_fact",
]

_GERMAN = {"ß": "ss", "ä": "ae", "ö": "oe", "ü": "ue"}
_SYMBOLS = {"€": "eur", "£": "gbp", "¥": "jpy", "$": "usd"}
_AMOUNT = r"(\d[\d.,]*)"
# Letters that NFKD keeps whole, spelled as they are without their stroke or ligature.
_UNDECOMPOSED = {"ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}


def _fold(expr: pl.Expr, *, wide: bool) -> pl.Expr:
    """Steps 2–4 of the module docstring; ``wide`` adds the steps that only touch non-ASCII."""
    out = expr.str.to_lowercase()
    symbols = _SYMBOLS if wide else {"$": "usd"}
    if wide:
        for letter, folded in _GERMAN.items():
            out = out.str.replace_all(letter, folded, literal=True)
    marks = "".join("\\" + s if s == "$" else s for s in symbols)
    # A symbol before its amount moves behind it: "€ 120" → "120 €".
    out = out.str.replace_all(f"([{marks}])\\s*{_AMOUNT}", "${2} ${1}")
    for symbol, code in symbols.items():
        out = out.str.replace_all(symbol, f" {code} ", literal=True)
    out = out.str.replace_all(r"\beuros?\b", "eur")
    core = out.str.replace_all(r"[^\p{L}\p{N}]+", " ").str.strip_chars()
    return " " + core + " "


def _not_ascii(texts: pl.Expr) -> pl.Expr:
    """Whether each text has a character outside ASCII (more bytes than characters)."""
    return texts.str.len_bytes() != texts.str.len_chars()


def normalized(texts: pl.Expr) -> pl.Expr:
    """The normalised, space-padded form of each text, as an expression (nulls stay null)."""
    return _fold(texts.cast(pl.String).str.normalize("NFKC"), wide=True)


def normalize_texts(texts: pl.Series) -> pl.Series:
    """:func:`normalized` over a series, faster: the non-ASCII steps run only where needed.

    NFKC and the German and currency-symbol foldings change nothing in plain ASCII, so only the
    texts that are not plain ASCII take them.
    """
    if texts.dtype != pl.String:
        texts = texts.cast(pl.String)
    name = texts.name
    frame = pl.DataFrame({"t": texts})
    wide = frame.select(_not_ascii(pl.col("t")).fill_null(False)).to_series()
    out = frame.select(_fold(pl.col("t"), wide=False)).to_series()
    if bool(wide.any()):
        rows = wide.arg_true()
        wide_out = frame.filter(wide).select(normalized(pl.col("t"))).to_series()
        out = out.scatter(rows, wide_out)
    return out.alias(name)


def normalize_text(text: str) -> str:
    """One text's normalised form (the same expressions on a one-element series)."""
    return str(normalize_texts(pl.Series([text], dtype=pl.String))[0])


def fact_stated(answer: pl.Expr, fact: pl.Expr, *, normalised: bool = False) -> pl.Expr:
    """Whether each answer states its fact, as an expression.

    With ``normalised=True`` both columns already hold :func:`normalized` texts (normalise
    once, test many facts); a null fact or answer gives null.
    """
    if not normalised:
        answer, fact = normalized(answer), normalized(fact)
    return answer.str.contains(fact, literal=True)


def _unaccented(texts: pl.Expr) -> pl.Expr:
    """The normalised form of each text with its accents dropped (the module docstring)."""
    out = texts.cast(pl.String).str.to_lowercase().str.normalize("NFKD")
    out = out.str.replace_all(r"\p{M}+", "")
    for letter, plain in _UNDECOMPOSED.items():
        out = out.str.replace_all(letter, plain, literal=True)
    return _fold(out, wide=True)


def _restate_unaccented(found: pl.Series, answers: pl.Series, facts_: pl.Series) -> pl.Series:
    """``found`` with its misses compared again without accents.

    Only the missed rows whose fact or answer is not plain ASCII are read again: the usual
    answer costs one test of its bytes.
    """
    missed = (~found.fill_null(True)) & answers.is_not_null() & facts_.is_not_null()
    rows = missed.arg_true()
    if rows.is_empty():
        return found
    frame = pl.DataFrame({"a": answers.gather(rows), "f": facts_.gather(rows)})
    frame = frame.with_columns(row=rows).filter(_not_ascii(pl.col("a")) | _not_ascii(pl.col("f")))
    if frame.is_empty():
        return found
    again = frame.select(
        "row", stated=_unaccented(pl.col("a")).str.contains(_unaccented(pl.col("f")), literal=True)
    ).filter(pl.col("stated"))
    return found.scatter(again.get_column("row"), True) if again.height else found


def restate(found: pl.Series, answers: pl.Series, facts_: pl.Series) -> pl.Series:
    """``found`` (the literal rule's result per row) with its misses read again.

    First without accents, then by meaning (the module docstring). ``answers`` and ``facts_``
    as written, null where there is nothing to read.
    """
    found = _restate_unaccented(found, answers, facts_)
    return restate_by_meaning(found, answers, facts_)


def states_fact(answer: str, fact: str) -> bool:
    """Whether ``answer`` states ``fact``: literally, without accents, or by meaning.

    The module docstring's rule, run as :func:`restate` runs it over a column.
    """
    answer_norm, fact_norm = normalize_texts(pl.Series([answer, fact], dtype=pl.String))
    literal = pl.Series([fact_norm in answer_norm], dtype=pl.Boolean)
    stated = restate(
        literal, pl.Series([answer], dtype=pl.String), pl.Series([fact], dtype=pl.String)
    )
    return bool(stated[0])
