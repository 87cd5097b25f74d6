"""Citation markers and source lists in answers: recognised so that they are never claims.

RAG answers cite their evidence: inline markers (``[1]``, ``[1, 2]``, ``[Source 1]``,
``[Source 1 – policy-2024-07.pdf]``, ``(Source 2)``, ``(Quelle 2)``, ``[^1]``, ``【1†source】``)
and a closing list of the sources ("Sources: [1] a.pdf; [2] b.pdf", "Quellen: …"). A marker
says where a statement came from; it states nothing about the world, so the claim splitter
removes it from the claim text and keeps what it pointed at (the number, or the file name when
there is no number) as a *hint*. The hint never decides a verdict: claims are rated against the
whole context (docs/judges.md).

A sentence that only points at a source ("See [2] for details", "Siehe Quelle 3") is a
pointer, not a claim. A sentence with a marker and any other content ("See [2]: taxis are
allowed after 22:00") keeps that content as its claim.

This module only recognises text; it never splits answers into claims or looks at a context.
"""

from __future__ import annotations

import re

from ragfunnel.analyzer.language.lexicon import POINTER_WORDS

__all__ = [
    "is_pointer",
    "is_source_entry",
    "is_source_heading",
    "may_hold_marker",
    "move_trailing",
    "strip_markers",
]

_KEYWORD = (
    r"(?:sources?|quellen?|refs?\.?|references?|referenz(?:en)?|docs?|documents?|dokumente?|"
    r"chunks?|passages?|belege?|nachweise?)"
)
_NUMBERS = r"#?\d{1,3}(?:\s*(?:[-–,;/&]|and|und)\s*#?\d{1,3})*"
_NAME = r"[^\[\]()\n]{1,120}?"
_FILE = r"[\w.-]+\.(?:pdf|docx?|txt|md|html?|pptx?|xlsx?|csv|json)"
_SEE = r"(?:(?:see|siehe|vgl\.?|cf\.?)\s+)?"
_BRACKETED = (
    rf"\[\s*{_SEE}(?:(?:{_KEYWORD}\s*)?{_NUMBERS}(?:\s*[–—:|-]\s*{_NAME})?"
    rf"|{_KEYWORD}\s*:\s*{_NAME}|\^\d{{1,3}}|{_FILE})\s*\]"
)
_PARENTHESISED = (
    rf"\(\s*{_SEE}(?:{_KEYWORD}\s*{_NUMBERS}(?:\s*[–—:|-]\s*{_NAME})?|{_KEYWORD}\s*:\s*{_NAME}"
    rf"|\[\s*{_NUMBERS}\s*\]|{_FILE})\s*\)"
)
MARKER = re.compile(rf"{_BRACKETED}|{_PARENTHESISED}|【[^】\n]{{0,80}}】", re.IGNORECASE)
"""One inline citation marker."""

# "According to [1], …", "Laut Quelle 2 …": the attribution phrase goes with its marker.
_ATTRIBUTION = re.compile(
    rf"\b(?:according\s+to|as\s+(?:stated|described|noted|shown)\s+in|per|laut|gemäß|"
    rf"wie\s+in)\s+(?:{MARKER.pattern}|{_KEYWORD}\s*{_NUMBERS})(?:\s+(?:angegeben|beschrieben))?"
    rf"\s*,?\s*",
    re.IGNORECASE,
)
# "See [2]: taxis …": the pointer before a statement goes, the statement stays.
_SEE_PREFIX = re.compile(
    rf"\b(?:see|siehe|vgl\.?|cf\.?)\s+(?:{MARKER.pattern}|{_KEYWORD}\s*{_NUMBERS})"
    rf"(?:\s+(?:for|für)\s+(?:more\s+|further\s+|weitere\s+)?(?:details|information(?:en)?))?"
    rf"\s*:\s*",
    re.IGNORECASE,
)
_BARE_SOURCE = re.compile(rf"\b{_KEYWORD}\s*{_NUMBERS}\b", re.IGNORECASE)
_TRAILING = re.compile(rf"([.!?…])((?:\s*(?:{MARKER.pattern}))+)(?=\s|$)", re.IGNORECASE)
_HEADING = re.compile(
    r"^\s*(?:[-*•]\s*)?[*_]*(?:sources?|quellen?|quellenangaben?|references?|referenzen|"
    r"citations?|zitate|belege|nachweise?|literatur|cited)(?:\s+(?:used|cited|genutzt|"
    r"verwendet))?[*_]*\s*(?::|$)",
    re.IGNORECASE,
)
_ENTRY = re.compile(
    rf"^\s*(?:[-*•]\s*)?(?:{MARKER.pattern}|\d{{1,3}}[.)]\s*{_FILE})", re.IGNORECASE
)
_NUMBER_HINT = re.compile(rf"^[\[(【]\s*{_SEE}(?:{_KEYWORD}\s*)?[\[\s]*({_NUMBERS})", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_MAY_CITE = re.compile(r"[\[(【\d]")
"""What every marker (a bracket) or bare citation ("Source 2": a digit) needs: a text without
any of these cites nothing, found without the patterns (they took a fifth of splitting claims)."""
_OPENING = re.compile(r"[\[(【]")
"""What every :data:`MARKER` opens with."""
_COLON = re.compile(":")
"""What every pointer before a statement ends with (``_SEE_PREFIX``)."""
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?…])")
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|\[\s*\]")
_REPEATED_PUNCT = re.compile(r"([,;:])\s*(?=[,;:.!?…]|$)")
_SPACES = re.compile(r"\s{2,}")


def is_source_heading(line: str) -> bool:
    """Whether ``line`` opens a list of sources ("Sources: [1] a.pdf", "Quellen:", "References")."""
    return _HEADING.match(line) is not None


def is_source_entry(line: str) -> bool:
    """Whether ``line`` is one entry of a source list: it starts with a marker (``[2] b.pdf``)."""
    return _ENTRY.match(line) is not None


def move_trailing(text: str) -> str:
    """Markers right after a sentence's end go before it: ``X. [1] Y`` → ``X [1]. Y``.

    A marker after the full stop cites the sentence it follows, not the next one.
    """
    return _TRAILING.sub(lambda m: f"{m.group(2)}{m.group(1)}", text)


def _hints(marker: str) -> list[str]:
    numbers = _NUMBER_HINT.match(marker)
    if numbers:
        return _DIGITS.findall(numbers.group(1))
    inner = marker.strip("[]()【】 ").lstrip("^")
    inner = re.sub(rf"^{_SEE}{_KEYWORD}\s*:\s*", "", inner, flags=re.IGNORECASE)
    return [inner.strip()] if inner.strip() else []


def may_hold_marker(text: str) -> bool:
    """Whether ``text`` may hold a :data:`MARKER`: it has a bracket that opens one."""
    return _OPENING.search(text) is not None


def strip_markers(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` without its citation markers, and what they cited (numbers or file names)."""
    if not _MAY_CITE.search(text):
        return text, ()
    hints: list[str] = []

    def drop(match: re.Match[str]) -> str:
        for marker in MARKER.finditer(match.group(0)):
            hints.extend(_hints(marker.group(0)))
        bare = _BARE_SOURCE.search(match.group(0))
        if bare and not MARKER.search(match.group(0)):
            hints.extend(_DIGITS.findall(bare.group(0)))
        return " "

    # A pointer before a statement ends with a colon; a marker opens with a bracket, and
    # dropping text never adds one.
    stripped = _SEE_PREFIX.sub(drop, text) if _COLON.search(text) else text
    stripped = _ATTRIBUTION.sub(drop, stripped)
    if may_hold_marker(text):
        stripped = MARKER.sub(drop, stripped)
    if not hints:
        return text, ()
    stripped = _EMPTY_BRACKETS.sub(" ", stripped)
    stripped = _SPACE_BEFORE_PUNCT.sub(r"\1", stripped)
    stripped = _REPEATED_PUNCT.sub("", stripped)
    stripped = _SPACES.sub(" ", stripped).strip().lstrip(",;: ")
    if stripped[:1].islower():
        stripped = stripped[:1].upper() + stripped[1:]
    return stripped, tuple(dict.fromkeys(hints))


def is_pointer(sentence: str) -> bool:
    """Whether ``sentence`` only points at a source ("See [2] for details", "Siehe Quelle 3").

    It must cite something (a marker or "Source 2") and say nothing else.
    """
    if not _MAY_CITE.search(sentence):
        return False
    rest, hints = strip_markers(sentence)
    bare = _BARE_SOURCE.findall(rest)
    if not hints and not bare:
        return False
    rest = _BARE_SOURCE.sub(" ", rest)
    words = re.findall(r"[^\W_]+\.?", rest.lower())
    return all(w in POINTER_WORDS or w.rstrip(".") in POINTER_WORDS for w in words)
