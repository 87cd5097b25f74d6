"""Split an English or German answer into claims, offline and deterministically.

A claim is one checkable statement: a sentence, or a clause of one when it is joined to the next
by a semicolon or a coordinating conjunction that starts a new main clause ("…, and the fee is
…", "…, aber ein Taxi ist …"). List items are claims of their own; a lead-in line that ends with
a colon is prefixed to each of its items, so "Reset needed for:" + "- 4.2.0" is one claim.

What must not split a sentence: abbreviations (``z. B.``, ``e.g.``, ``i.e.``, ``Nr.``,
``bzw.``, ``ca.``, ``Dr.`` …), decimals and versions (``4.2.1``, ``120,50 €``), German ordinals
("am 3. Juli") and initials.

Citation markers (``[1]``, ``[Source 1 – policy.pdf]``, ``(Quelle 2)``) are no part of a claim:
they are removed from its text and kept as its *citations* (a hint of which source the answer
meant, never a verdict). A list of sources ("Sources: [1] a.pdf; [2] b.pdf", "Quellen: …") and a
sentence that only points at one ("See [2] for details") make no claim (language/citations.py).

Sentences that refuse ("I don't know", "Dazu habe ich keine Informationen") are *refusals*, not
claims; politeness without content ("Hope this helps!") and sentences that only announce what
follows ("Here is a concise summary of the passage:", "Hier ist eine Zusammenfassung:") are
dropped, and such an announcement is no lead-in for the list below it. An answer without claims is
an abstention: it is never scored, neither 1 nor NaN (docs/judges.md).

This module only splits text; it never looks at the context or decides support.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragfunnel.analyzer.language.citations import (
    MARKER,
    is_pointer,
    is_source_entry,
    is_source_heading,
    may_hold_marker,
    move_trailing,
    strip_markers,
)
from ragfunnel.analyzer.language.lexicon import (
    ABBREVIATIONS,
    GERMAN_MARKERS,
    REFUSAL_FILLERS,
    STOPWORDS,
    fold,
)
from ragfunnel.analyzer.language.refusals import is_refusal, split_refusal

__all__ = ["ClaimSplit", "is_refusal", "split_claims"]


_BOUNDARY = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+")
_LAST_WORD = re.compile(r"(\S+)$")
_ORDINAL = re.compile(r"^\d{1,2}\.$")
_WORDS = re.compile(r"[^\W\d_]+")
_CAPITAL_START = re.compile(r"^[\"'“„(]*([A-ZÄÖÜ][^\W\d_]*)")
_BEFORE_NUMBERS = frozenset({"no", "nr"})
"""Abbreviations only before a number: elsewhere their period ends a sentence."""
_INITIAL = re.compile(r"^(?:[A-ZÄÖÜ]\.)+$")
_LETTER_DOT = re.compile(r"^[^\W\d_]\.")
_STARTS_LOWER = re.compile(r"^[\"'“„(]*[a-zäöüß]")
_MONTH_START = re.compile(
    r"^(?:januar|jänner|februar|märz|april|mai|juni|juli|august|september|oktober|november"
    r"|dezember)\b",
    re.IGNORECASE,
)

_BULLET = re.compile(r"^\s*(?:[-*•–·]|\d{1,2}[.)]|[a-z][.)])\s+")
_SEMICOLON = re.compile(r"\s*;\s+")
# A comma (or none, for "and"/"und") and a coordinating conjunction, followed by a word that
# can open a main clause. Only then does the conjunction join two statements.
_SUBJECT = (
    r"(?:the|a|an|it|he|she|they|we|you|i|this|that|these|those|there|its|their|his|her|our|"
    r"der|die|das|den|dem|des|ein|eine|einen|einem|es|er|sie|wir|ihr|man|dies|diese|dieser|"
    r"dieses|dann|dafür|dazu|dort|hier|sein|seine|ihre|unser|unsere|mitarbeiter\w*|"
    r"[A-ZÄÖÜ][\w-]*)"
)
# Without a comma, "and the …" opens a clause only when a verb follows its noun ("and the fee is
# …"); "with the serial number and the last error code" is one noun phrase.
_VERB = (
    r"(?:is|are|was|were|has|have|had|must|can|may|will|shall|needs?|gets?|covers?|ist|sind|"
    r"war|waren|wird|werden|hat|haben|muss|müssen|kann|können|darf|dürfen|soll|sollen|gilt|"
    r"gelten|braucht|bleibt|beträgt|kostet)"
)
_COORDINATION = re.compile(
    rf",\s+(?:and|but|or|so|yet|while|whereas|und|aber|oder|sondern|doch|jedoch|denn|"
    rf"während)\s+(?={_SUBJECT}\s)"
    rf"|\s+(?:and|und)\s+(?=(?:it|he|she|they|we|there|es|er|sie|wir|man)\s+\w+\s"
    rf"|(?:the|der|die|das|ein|eine)(?:\s+[\w-]+){{1,2}}\s+{_VERB}\s)",
)
_MIN_CLAUSE_WORDS = 3

_FILLER = re.compile(
    r"^(?:i\s+hope\s+(?:this|that)\s+helps|hope\s+(?:this|that)\s+helps|let\s+me\s+know\b.*|"
    r"feel\s+free\s+to\s+ask\b.*|(?:you(?:'re|\s+are)\s+)?welcome|thanks?(?:\s+you)?(?:\s+for\s+.*)?|"
    r"gern(?:e)?(?:\s+geschehen)?|ich\s+hoffe,?\s+das\s+hilft(?:\s+\w+)?|"
    r"(?:vielen\s+)?dank(?:\s+für\s+.*)?|bei\s+(?:weiteren\s+)?fragen\b.*|"
    r"(?:sure|certainly|of\s+course|gerne|klar|natürlich)|great\s+question|gute\s+frage|"
    r"sure\s+thing|no\s+problem|happy\s+to\s+help|glad\s+to\s+help|kein\s+problem|"
    # sign-offs: "Best regards", "Viele Grüße", "Ihr CloudDesk-Team", "The CloudDesk team"
    r"(?:(?:best|kind|warm|warmest)\s+regards|regards|cheers|sincerely|"
    r"(?:viele|beste|liebe|freundliche|herzliche)\s+grüße|mit\s+freundlichen\s+grüßen)"
    r"(?:,?\s+[\w-]+(?:\s+[\w-]+){0,2})?|"  # and who signs: "Best regards, The CloudDesk team"
    r"(?:the|your|ihr|euer|dein)\s+[\w-]+(?:-team|\s+team)|"
    r"(?:that|this|it)\s+depends(?:\s+on\s+[\w\s]{0,30})?|das\s+hängt\s+davon\s+ab|"
    r"es\s+kommt\s+darauf\s+an)"
    r"[\s.!,:]*$",
    re.IGNORECASE,
)
# A sentence that only announces what follows ("Here is a concise summary of the passage:",
# "Based on the context, here are the key points:", "Hier ist eine kurze Zusammenfassung:"):
# no claim, and no lead-in for the list items below it.
_ANNOUNCE = (
    r"(?:(?:sure|certainly|of\s+course|okay|ok|gerne|klar)[,!.]?\s+)?"
    r"(?:(?:based\s+on|according\s+to|from)\s+(?:the|this|these)\s+[\w\s-]{0,40}?,\s*)?"
    r"(?:(?:here\s+(?:is|are|'s)|below\s+(?:is|are)|the\s+following\s+(?:is|are)|"
    r"(?:this|that)\s+is|hier\s+(?:ist|sind|die|der|das|eine?|meine)|im\s+folgenden|folgendes)"
    r"\b[^.!?:]{0,80}?"
    r"(?:summary|summari[sz]ation|overview|answer|list|points|steps|details|facts|rules|"
    r"information|breakdown|highlights|takeaways|findings|options|zusammenfassung|überblick|"
    r"antwort|liste|punkte|schritte|informationen|regeln|details|angaben)\b[^.!?:]{0,80}?"
    r"|in\s+(?:summary|short|brief)|to\s+summari[sz]e|summary|zusammenfassung|"
    r"zusammengefasst|kurz\s+gesagt)"
)
_PREAMBLE = re.compile(rf"^{_ANNOUNCE}\s*[:.]?\s*$", re.IGNORECASE)
_PREAMBLE_PREFIX = re.compile(rf"^{_ANNOUNCE}\s*:\s+(?=\S)", re.IGNORECASE)
_HAS_CONTENT = re.compile(r"[^\W_]{2,}|\d")
_ANSWERS = r"(?:yes|no|nope|ja|nein|jein|doch)"
_FILLERS = "|".join(re.escape(f) for f in REFUSAL_FILLERS)
_PARTICLE = re.compile(rf"^(?:(?:{_FILLERS})[\s,]*)?{_ANSWERS}\s*[,–—:;-]\s*(?=\w)", re.IGNORECASE)
"""An answer particle opening a sentence ("No, towels cannot be rented …"): it answers the
question, the rest states; as a claim's first word its "No" read as a negation."""
_PARTICLE_ALONE = re.compile(
    rf"^(?:(?:{_FILLERS})[\s,]*)*(?:{_ANSWERS}|not|nicht|so)(?:[\s,]*(?:{_FILLERS}))*[\s.!,]*$",
    re.IGNORECASE,
)
"""A sentence that only answers yes or no, with fillers: "I'm afraid not.", "Unfortunately
not.", "Leider nein.", "Leider nicht." — no claim (a bare "not" needs no filler: "Not." alone
says nothing checkable either)."""
_HIDDEN_GAP = re.compile(rf"\s*(?:{MARKER.pattern})", re.IGNORECASE)
_HIDDEN = re.compile("\ue000(\\d+)\ue001")


@dataclass(frozen=True)
class ClaimSplit:
    """The claims of one answer and the sentences that refused.

    Attributes:
        claims: the checkable statements, in answer order.
        refusals: sentences that decline to answer.
        citations: per claim, what its markers cited (source numbers such as ``"2"``, or a file
            name when the marker has no number); empty when it cites nothing. A hint only:
            verdicts are decided against the whole context.
    """

    claims: tuple[str, ...]
    refusals: tuple[str, ...] = ()
    citations: tuple[tuple[str, ...], ...] = ()

    @property
    def abstained(self) -> bool:
        """No claims: the answer refused, or said nothing checkable."""
        return not self.claims


def _german(text: str) -> bool:
    """Whether a sentence's words so far hold a German function word (``GERMAN_MARKERS``)."""
    return not GERMAN_MARKERS.isdisjoint(fold(w) for w in _WORDS.findall(text))


def _noun_next(after: str) -> bool:
    """Whether the text after a period starts with a capitalised content word (a German noun)."""
    match = _CAPITAL_START.match(after)
    return match is not None and fold(match.group(1)) not in STOPWORDS | GERMAN_MARKERS


def _ends_sentence(before: str, after: str) -> bool:
    """Whether the period ending ``before`` ends a sentence, given the text ``after`` it."""
    if not before.endswith("."):
        return True
    match = _LAST_WORD.search(before)
    word = match.group(1) if match else ""
    bare = word.rstrip(".").lstrip("(\"'“„").lower()
    if bare in _BEFORE_NUMBERS:
        return not after[:1].isdigit()  # "No. 5", but "No. Flights under 6 hours …"
    if bare in ABBREVIATIONS or _INITIAL.match(word):
        return False
    if _ORDINAL.match(word) and _german(before) and _noun_next(after):
        return False  # "die 2. Klasse", "dürfen Sie 1. Klasse fahren": an ordinal before its noun
    if len(bare) == 1 and bare.isalpha() and _LETTER_DOT.match(after):
        return False
    if (_ORDINAL.match(word) and (_STARTS_LOWER.match(after) or _MONTH_START.match(after))) or (
        _ORDINAL.match(word) and after[:1].isdigit()
    ):
        return False
    # "z. B." and "d. h." arrive as two words: look at the last two together.
    pair = before[-6:].replace(" ", "").lower().rstrip(".")
    if pair.endswith(("z.b", "d.h", "u.a", "o.ä", "i.e", "e.g", "u.ä", "z.t")):
        return False
    return not _STARTS_LOWER.match(after)


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    pending = ""
    for match in _BOUNDARY.finditer(text):
        piece = text[start : match.start()]
        after = text[match.end() : match.end() + 12]
        if _ends_sentence(pending + piece, after):
            out.append((pending + piece).strip())
            pending = ""
        else:
            pending += text[start : match.end()]
        start = match.end()
    rest = (pending + text[start:]).strip()
    if rest:
        out.append(rest)
    return out


def _clauses(sentence: str) -> list[str]:
    parts: list[str] = []
    for piece in _SEMICOLON.split(sentence):
        pieces = _COORDINATION.split(piece)
        merged: list[str] = []
        for clause in pieces:
            # A short left part ("Yes, and …") is no statement of its own.
            if merged and len(merged[-1].split()) < _MIN_CLAUSE_WORDS:
                merged[-1] = f"{merged[-1]} {clause}"
            else:
                merged.append(clause)
        if len(merged) > 1 and len(merged[-1].split()) < _MIN_CLAUSE_WORDS:
            merged[-2:] = [f"{merged[-2]} {merged[-1]}"]
        parts.extend(merged)
    return [_tidy(p) for p in parts if p.strip()]


_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def _tidy(clause: str) -> str:
    clause = _EMPHASIS.sub(r"\2", clause).strip().rstrip(",;:.!")
    return clause[:1].upper() + clause[1:] if clause[:1].islower() else clause


# A Markdown heading ("## Opening hours", "**Borrowing limits**", "__Fees:__"): a title, no
# statement — short, without a sentence's end, all of the line.
_HEADING = re.compile(
    r"^(?:#{1,6}\s+(?P<title>[^\n]+?)|(?P<mark>\*\*|__)(?P<bold>[^*_\n]+?)(?P=mark):?)\s*$"
)
_HEADING_WORDS = 8


def _is_heading(line: str) -> bool:
    m = _HEADING.match(line)
    if m is None:
        return False
    title = (m.group("title") or m.group("bold")).strip().rstrip(":")
    return not title.endswith((".", "!", "?")) and len(title.split()) <= _HEADING_WORDS


def _blocks(text: str) -> list[str]:
    """Lines joined into paragraphs; each list item, with its lead-in, becomes a block."""
    blocks: list[str] = []
    paragraph: list[str] = []
    lead = ""
    in_sources = False
    for raw in text.splitlines():
        line = raw.strip()
        if is_source_heading(line) or (
            in_sources and (is_source_entry(line) or _BULLET.match(raw))
        ):
            # A list of sources, with its entries on the lines below: no claims.
            if paragraph and not in_sources:
                blocks.append(" ".join(paragraph))
                paragraph = []
            in_sources, lead = True, ""
            continue
        in_sources = False
        if _is_heading(line):
            if paragraph:
                blocks.append(" ".join(paragraph))
                paragraph = []
            lead = ""
            continue
        bullet = _BULLET.match(raw)
        if bullet:
            if paragraph:
                joined = " ".join(paragraph)
                if _PREAMBLE.match(joined):
                    lead = ""
                elif joined.endswith(":"):
                    lead = joined.rstrip(":").strip()
                else:
                    blocks.append(joined)
                    lead = ""
                paragraph = []
            item = raw[bullet.end() :].strip()
            blocks.append(f"{lead}: {item}" if lead else item)
        elif not line:
            if paragraph:
                blocks.append(" ".join(paragraph))
                paragraph = []
            lead = ""
        else:
            paragraph.append(line)
    if paragraph:
        blocks.append(" ".join(paragraph))
    return blocks


def _hide_markers(sentence: str) -> tuple[str, list[str]]:
    """Each marker replaced by a token glued to the word before it, so clauses split around it."""
    markers: list[str] = []
    if not may_hold_marker(sentence):
        return sentence, markers

    def hide(match: re.Match[str]) -> str:
        markers.append(match.group(0).strip())
        return f"\ue000{len(markers) - 1}\ue001"

    return _HIDDEN_GAP.sub(hide, sentence), markers


def _cited(clause: str, markers: list[str]) -> tuple[str, tuple[str, ...]]:
    """The clause with its markers put back, then stripped: its text and what it cites."""
    shown = _HIDDEN.sub(lambda m: f" {markers[int(m.group(1))]}", clause)
    return strip_markers(shown)


def split_claims(answer: str) -> ClaimSplit:
    """The claims of ``answer`` (see the module docstring for the rules)."""
    claims: list[str] = []
    citations: list[tuple[str, ...]] = []
    refusals: list[str] = []
    for block in _blocks(answer):
        for written in _sentences(move_trailing(block)):
            if (
                is_source_heading(written)
                or is_pointer(written)
                or _PREAMBLE.match(written)
                or _PARTICLE_ALONE.match(written)
            ):
                continue
            sentence = _PARTICLE.sub("", _PREAMBLE_PREFIX.sub("", written))
            answering: tuple[str, ...] = (sentence,)
            if is_refusal(sentence):
                refused, answering = split_refusal(sentence)
                refusals.extend(strip_markers(r)[0] for r in refused)
            for part in answering:
                _add_claims(part, claims, citations)
    return ClaimSplit(tuple(claims), tuple(refusals), tuple(citations))


def _add_claims(sentence: str, claims: list[str], citations: list[tuple[str, ...]]) -> None:
    """The claims of one sentence (no refusal), with what each cites."""
    hidden, markers = _hide_markers(sentence)
    for piece in _clauses(hidden):
        clause, cited = _cited(piece, markers)
        clause = _tidy(clause)
        if _FILLER.match(clause) or not _HAS_CONTENT.search(clause):
            continue
        claims.append(clause)
        citations.append(cited)
