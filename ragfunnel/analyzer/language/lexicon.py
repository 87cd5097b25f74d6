"""Word lists of the offline judge, English and German: stopwords, negations, qualifiers, units.

Data only (frozensets, dicts and tuples, and the two token patterns the readers share), so that
every rule in docs/judges.md can point at one list. Every word is stored folded (case-folded,
umlauts and accents stripped, ``ß`` → ``ss``), the form :func:`fold` gives.
"""

from __future__ import annotations

import re

__all__ = [
    "ABBREVIATIONS",
    "BOUNDS",
    "CLAUSE_WORDS",
    "COMPOUND_SINGULARS",
    "CURRENCIES",
    "DAYS",
    "DAY_PARTS",
    "ENGLISH_MARKERS",
    "EVEN_IF",
    "EXCEPTIONS",
    "GERMAN_ARTICLES",
    "GERMAN_MARKERS",
    "LETTERS",
    "META_WORDS",
    "MONTHS",
    "NAMED_TIMES",
    "NEGATING_NOTHING",
    "NEGATIONS",
    "NUMBER_JOINS",
    "NUMBER_PARTS",
    "NUMBER_WORDS",
    "ORDINALS",
    "PERIODS",
    "POINTER_WORDS",
    "QUALIFIERS",
    "REFUSALS",
    "REFUSAL_FILLERS",
    "REFUSAL_TURNS",
    "SCALES",
    "SPEAKER_WORDS",
    "STOPWORDS",
    "TOKEN",
    "UNITS",
    "UNIT_CONVERSIONS",
    "UNLESS",
    "WEEKDAYS",
    "fold",
]

_FOLD = (
    ("ä", "a"), ("ö", "o"), ("ü", "u"), ("é", "e"), ("è", "e"), ("ê", "e"), ("á", "a"),
    ("à", "a"), ("â", "a"), ("ó", "o"), ("ô", "o"), ("í", "i"), ("ú", "u"), ("ç", "c"),
    ("ñ", "n"), ("’", "'"), ("‘", "'"), ("\u00a0", " "), ("\u202f", " "), ("–", "-"), ("—", "-"),
)  # fmt: skip

TOKEN = re.compile(r"[^\W_]+")
"""A token: a run of letters or digits, no underscore ("22", "uhr", "pol", "2024")."""
LETTERS = re.compile(r"[^\W\d_]+")
"""A word of letters only: no digits, no underscore."""


def _words(text: str) -> list[str]:
    return text.split()


def fold(text: str) -> str:
    """Case-folded text with umlauts and common accents stripped (``Größe`` → ``grosse``).

    Every replacement keeps the length, so positions in the folded text are positions in the
    original when case folding kept it too (it does, except for ``ß`` and a few ligatures).
    """
    folded = text.casefold()
    if folded.isascii():
        return folded
    # A few replace() calls of the characters present beat str.translate with a table.
    for old, new in _FOLD:
        if old in folded:
            folded = folded.replace(old, new)
    return folded


STOPWORDS = frozenset(
    _words(
        """
     a an the and or but if then than so as at by for from in into of off on onto out over to up
     with without about above after again against all am any are aren't be because been before
     being below between both can could did do does doing down during each few further had has
     have having he her here hers herself him himself his how i i'm is it it's its itself just me
     more most my myself nor now once only other our ours ourselves own same she should some such
     that that's their theirs them themselves there these they this those through too under until
     very was we were what when where which while who whom why will would you your yours yourself
     also may might must shall can't cannot yes please per via within upon get gets got given
     gives give provide provides provided includes include including aber alle allem allen aller
     alles als also am an ander andere anderem anderen anderer anderes auch auf aus bei beim bin
     bis bist bitte da dabei dadurch dafur dagegen daher damit dann daran darauf daruber darum
     das dass dein deine dem den denn der des dessen deshalb dich die dies diese diesem diesen
     dieser dieses dir doch dort du durch ein eine einem einen einer eines er es etwa euch euer
     eure fur gegen gibt hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren
     ihrer ihres im in indem ins ist ja jedoch jene jenem jenen jener jenes kann kannst konnen
     konnte machen mein meine mich mir mit muss mussen nach nachdem nun nur ob oder ohne per sehr
     sein seine seinem seinen seiner seines seit sich sie sind so soll sollen sollte sondern
     sonst uber um und uns unser unsere unter vom von vor wann war waren warum was weil weiter
     welche welchem welchen welcher welches wenn wer werde werden wie wieder will wir wird wirst
     wo wurde wurden zu zum zur zwar zwischen man mehr sowie bzw ca etc usw sowohl
     betragt gilt gelten liegt liegen steht stehen gibt geben habe haben hast hat brauchen
     braucht benotigen benotigt need needs needed make makes made take takes taken innerhalb
     binnen within wahrend during
        """
    )
)

GERMAN_ARTICLES = frozenset(_words("der die das den dem des ein eine einen einem einer eines"))
"""German articles: no neighbour of a noun in place (``judges/offline/names.py``)."""

GERMAN_MARKERS = frozenset(
    _words(
        """
     der die das und ist nicht ein eine fur mit auf von zu den im sind wird werden bei ab bis sie
     es auch nach dem kein keine darf durfen ihre wir des oder wie noch nur wenn dass sich kann
     muss einer einem einen eines durch gegen ohne seit uber haben wurde vom zum zur beim dieser
     diese dieses als
        """
    )
)

ENGLISH_MARKERS = frozenset(
    _words(
        """
     a the is are were be been has have had of and or to for with from at by on this that these
     those only between which who can may must it its their
        """
    )
)
"""English function words (none a German word), to tell an English claim from a German one
(the offline judge's cross-language path, ``judges/offline/crosslingual.py``)."""

NEGATIONS = frozenset(
    _words(
        """
     not no never none nobody nothing neither nor without cannot nicht kein keine keinen keinem
     keiner keines nie niemals ohne weder nichts niemand
        """
    )
)
"""Words that negate a statement; ``n't`` contractions count too."""

NEGATING_NOTHING = frozenset(("without", "ohne"))
"""Words of :data:`NEGATIONS` that negate no statement ("without a receipt", "ohne Beleg"):
the offline judge's negation check passes over them (``judges/offline/negation.py``)."""

CLAUSE_WORDS: tuple[str, ...] = (
    "and", "but", "however", "while", "whereas", "although", "because", "who", "which", "that",
    "und", "aber", "jedoch", "wahrend", "obwohl", "weil", "dass",
)  # fmt: skip
"""Words that open a new clause: a negation is compared clause by clause, so that "…, but it
is not clear why" negates nothing the claim says (``judges/offline/negation.py``)."""

META_WORDS = frozenset(
    _words(
        """
    according accordingly reportedly allegedly apparently seemingly supposedly presumably
    probably possibly perhaps likely unlikely generally typically usually essentially
    basically clearly obviously notably specifically particularly importantly interestingly
    overall however therefore thus hence furthermore moreover additionally also indeed
    actually really study studies passage text document documents context article articles
    source sources report reports reported author authors researchers information stated say
    says said note notes noted mention mentions mentioned suggest suggests suggested indicate
    indicates indicated show shows showed shown explain explains explained describe describes
    described claim claims claimed highlight highlights highlighted emphasize emphasizes
    emphasized discuss discusses discussed summary summarize summarized concise brief briefly
    answer question based given provided appear appears appeared seem seems seemed conclude
    concludes concluded laut gemass zufolge demnach offenbar offensichtlich anscheinend
    vermutlich wahrscheinlich moglicherweise eventuell grundsatzlich allerdings ausserdem
    zudem ferner jedoch also studie studien text dokument dokumente kontext quelle quellen
    artikel bericht berichtet heisst besagt sagt sagen erwahnt erwahnen beschreibt beschrieben
    zeigt zeigen stellt fest zusammenfassung zusammengefasst angaben angegeben kurz insgesamt
        """
    )
)
"""Lead-in, attribution and hedge words ("according", "reportedly", "laut", "offenbar"): where
a statement comes from or how sure its writer is, never a claim's content (the offline judge,
``judges/offline/words.py``)."""

WEEKDAYS = frozenset(
    _words(
        """
    monday tuesday wednesday thursday friday saturday sunday
    montag dienstag mittwoch donnerstag freitag samstag sonntag
        """
    )
)
"""Days of the week: a capitalised one is a date, not a name (``judges/offline/names.py``)."""

DAYS: dict[str, tuple[int, ...]] = {
    **{
        form: (n,)
        for n, names in enumerate(
            (("monday", "montag", "mon"), ("tuesday", "dienstag", "tue", "tues"),
             ("wednesday", "mittwoch", "wed"), ("thursday", "donnerstag", "thu", "thur", "thurs"),
             ("friday", "freitag", "fri"), ("saturday", "samstag", "sonnabend"),
             ("sunday", "sonntag")),
            start=1,
        )
        for name in names
        for form in (name, name + "s")
    },
    "weekdays": (1, 2, 3, 4, 5), "werktags": (1, 2, 3, 4, 5), "wochentags": (1, 2, 3, 4, 5),
    "weekend": (6, 7), "weekends": (6, 7), "wochenende": (6, 7), "wochenenden": (6, 7),
}  # fmt: skip
"""The days a word names (``monday``, ``montags``, ``mon``; ``weekdays`` Monday to Friday):
a day a claim names that its context neither names nor spans ("Mon–Fri", "montags bis
freitags") is missing (``language/terms.py``, ``days``). No two-letter abbreviation ("do", "so")
and no "sat"/"sun": they are words too."""

SCALES: dict[str, int] = {
    "thousand": 10**3, "tausend": 10**3, "million": 10**6, "millionen": 10**6, "mio.": 10**6,
    "mio": 10**6, "billion": 10**9, "milliarde": 10**9, "milliarden": 10**9, "mrd.": 10**9,
    "mrd": 10**9, "trillion": 10**12, "billionen": 10**12,
}  # fmt: skip
"""Scale words after a number written in digits: "2.5 million" is 2500000, "3 Mrd." 3000000000.
"billion" is the English 10⁹ (the German "Billion", 10¹², is rare in the singular; its plural
"Billionen" is 10¹²)."""

ORDINALS: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20,
    **{f"{stem}{end}": n
       for n, stem in enumerate(["erst", "zweit", "dritt", "viert", "funft", "sechst", "siebt",
                                 "acht", "neunt", "zehnt"], start=1)
       for end in ("e", "er", "en", "es", "em")},
}  # fmt: skip
"""Ordinal words, English and German (folded): "third" and "dritter" are the 3rd (the facts
check, ``cases/fact_meaning.py``)."""

NAMED_TIMES: dict[str, str] = {
    "noon": "12:00", "midday": "12:00", "mittag": "12:00", "midnight": "00:00",
    "mitternacht": "00:00",
}  # fmt: skip
"""Times a word names: "check-out by noon" states 12:00 (the facts check, ``cases/fact_meaning.py``)."""

SPEAKER_WORDS = frozenset(
    _words(
        """
    i me my mine myself im ive id ill we us our ours
    love loved like liked think believe enjoy enjoyed favorite favourite fan wish hope feel
    guess know want prefer agree cool awesome great interesting fun nice wow sure really
    sounds maybe yes yeah oh haha lol good bad pretty
        """
    )
)
"""First-person words (apostrophes dropped: "I'm" → ``im``) and words of liking, believing or
wishing: a speaker's stance, not a fact (the ``chat`` feature, ``judges/offline/features.py``)."""

# Each tuple: a canonical name, then every folded phrase of the group (longest first).
QUALIFIERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("always", ("rund um die uhr", "at all times", "at any time", "zu jeder zeit", "any time",
                "anytime", "jederzeit", "immer", "stets", "standig", "always", "24/7")),
    ("never", ("zu keiner zeit", "at no time", "niemals", "never", "nie")),
    ("all", ("everyone", "everybody", "everything", "samtliche", "samtlichen", "jedermann",
             "alle", "allen", "aller", "alles", "every", "each", "all", "jede", "jeder", "jedes",
             "jeden", "jedem")),
    ("unlimited", ("without limit", "ohne limit", "no limit", "unbegrenzt", "unbegrenzte",
                   "unbegrenzten", "unlimited", "uneingeschrankt", "uneingeschrankte",
                   "unrestricted", "beliebig", "beliebige", "beliebigen")),
    ("without exception", ("without exception", "ohne ausnahme", "no exceptions", "ausnahmslos")),
    ("only", ("ausschliesslich", "exclusively", "lediglich", "solely", "only", "nur")),
    ("mandatory", ("verpflichtend", "mandatory", "zwingend", "required", "pflicht", "mussen",
                   "muss", "must")),
    ("guaranteed", ("garantiert", "guaranteed", "in jedem fall", "in any case")),
)  # fmt: skip
"""Absolute qualifiers: a claim's qualifier must be in the context, as any phrase of its group."""

BOUNDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("at most", ("nicht mehr als", "no more than", "hochstens", "maximal", "maximum", "at most",
                 "bis zu", "up to", "max.", "max")),
    ("at least", ("mindestens", "wenigstens", "at least", "minimum", "mind.", "min.")),
    ("more than", ("mehr als", "more than", "uber", "over", "above", "exceeding")),
    ("less than", ("weniger als", "fewer than", "less than", "unter", "under", "below")),
    ("from", ("starting at", "starting", "fruhestens", "at the earliest", "as of", "following",
              "since", "after", "from", "seit", "nach", "ab")),
    ("until", ("no later than", "at the latest", "spatestens", "prior to", "before", "until",
               "till", "bis", "vor")),
    ("about", ("approximately", "approx.", "approx", "about", "around", "roughly", "nearly",
               "almost", "circa", "ca.", "etwa", "ungefahr", "rund")),
)  # fmt: skip
"""Words bounding the number, time or date right after them: they must match in the context.
*about* is a rounded value: the judge finds it in a value within 5 % (``judges/offline/hard.py``)."""

PERIODS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    # A night is a day here: "120 EUR per night" and "120 EUR a day" for a hotel are one rate.
    ("day", ("day", "tag", "night", "nacht", "diem"), ("daily", "taglich", "nightly")),
    ("week", ("week", "woche"), ("weekly", "wochentlich")),
    ("month", ("month", "monat"), ("monthly", "monatlich")),
    ("year", ("year", "jahr", "annum"), ("yearly", "annually", "jahrlich")),
    ("hour", ("hour", "stunde"), ("hourly", "stundlich")),
)  # fmt: skip
"""The period a rate is stated for: its group, its nouns (after ``a``/``per``/``pro``/``/`` …)
and its adverbs (``60 EUR daily``, ``taglich 60 EUR``). Folded text, singular forms."""

CURRENCIES: dict[str, str] = {
    "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "$": "USD", "usd": "USD",
    "dollar": "USD", "dollars": "USD", "us$": "USD", "£": "GBP", "gbp": "GBP", "pfund": "GBP",
    "pound": "GBP", "pounds": "GBP", "chf": "CHF", "franken": "CHF", "fr.": "CHF",
}  # fmt: skip

UNITS: dict[str, str] = {
    "%": "%", "prozent": "%", "percent": "%", "per cent": "%", "km": "km", "m": "m", "cm": "cm",
    "mm": "mm", "kg": "kg", "g": "g", "l": "l", "ml": "ml", "tb": "TB", "gb": "GB", "mb": "MB",
    "kb": "KB", "ms": "ms", "s": "s", "sec": "s", "second": "s", "seconds": "s", "sekunde": "s",
    "sekunden": "s", "min": "min", "minute": "min", "minutes": "min", "minuten": "min",
    "h": "h", "std": "h", "hour": "h", "hours": "h", "stunde": "h", "stunden": "h", "day": "day",
    "days": "day", "tag": "day", "tage": "day", "tagen": "day", "werktage": "workday",
    "werktagen": "workday", "arbeitstage": "workday", "arbeitstagen": "workday", "working days": "workday", "business days": "workday",
    "week": "week", "weeks": "week", "woche": "week", "wochen": "week", "month": "month",
    "months": "month", "monat": "month", "monate": "month", "monaten": "month", "year": "year",
    "years": "year", "jahr": "year", "jahre": "year", "jahren": "year", "night": "night",
    "nights": "night", "nacht": "night", "nachte": "night", "nachten": "night", "tb/s": "TB/s", "mb/s": "MB/s", "gb/s": "GB/s",
}  # fmt: skip

# Units written out, British and American spellings, English and German ("330 metres" is
# "330 m", "1,5 Liter" "1.5 l").
for _unit, _spellings in {
    "m": "metre metres meter meters",
    "km": "kilometre kilometres kilometer kilometers",
    "cm": "centimetre centimetres centimeter centimeters zentimeter",
    "mm": "millimetre millimetres millimeter millimeters",
    "l": "litre litres liter liters",
    "ml": "millilitre millilitres milliliter milliliters",
    "kg": "kilogram kilograms kilogramm",
    "g": "gram grams gramm",
}.items():
    UNITS.update(dict.fromkeys(_spellings.split(), _unit))
del _unit, _spellings

UNIT_CONVERSIONS: tuple[tuple[str, str, int], ...] = (
    ("week", "day", 7), ("h", "min", 60), ("min", "s", 60), ("year", "month", 12),
    ("month", "day", 30), ("year", "day", 365),
)  # fmt: skip
"""Units a quantity is also stated in: "drei Wochen" is "21 Tage", "2 hours" "120 minutes";
as people count them, "three months" is "90 days" and "a year" "365 days"."""


COMPOUND_SINGULARS = frozenset({"tag", "woche", "monat", "jahr", "stunde", "minute", "nacht"})
"""A compound ending in one of these is a unit only after a linking s ("dritten
Krankheitstag"): "Montag", "Feiertag" are no days to count (``terms.py``)."""

MONTHS: dict[str, int] = {
    "januar": 1, "janner": 1, "january": 1, "jan": 1, "februar": 2, "february": 2, "feb": 2,
    "marz": 3, "maerz": 3, "march": 3, "mar": 3, "april": 4, "apr": 4, "mai": 5, "may": 5,
    "juni": 6, "june": 6, "jun": 6, "juli": 7, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "oktober": 10, "october": 10, "okt": 10, "oct": 10,
    "november": 11, "nov": 11, "dezember": 12, "december": 12, "dez": 12, "dec": 12,
}  # fmt: skip

# Refusals: sentences that decline to answer, as regular-expression fragments matched (case
# insensitive, original spelling) after the fillers below are dropped, so "Dazu habe ich leider
# keine Informationen" and "Unfortunately, I'm afraid I cannot answer that" read as refusals.
REFUSALS: tuple[str, ...] = (
    # English
    r"i\s+(?:do\s*n[o']t|don[’']t|cannot|can[’']t|can\s+not|could\s*n[o’']t)\s+"
    r"(?:know|say|answer|tell|find|help|determine|provide)",
    r"i(?:\s+am|\s*['’]m)\s+(?:not\s+sure|unable|sorry)",
    r"i\s+have\s+no\s+(?:information|idea|data|details)",
    r"i\s+do\s*n[o’']t\s+have\s+(?:enough\s+|any\s+|that\s+|this\s+|such\s+|the\s+)?"
    r"(?:information|data|details)",
    r"(?:there\s+is|there[’']s|i\s+found|i\s+could\s+find)\s+no\s+information",
    r"no\s+information\s+(?:is\s+)?(?:available|about|on|regarding)",
    r"unable\s+to\s+(?:answer|find|determine)",
    r"(?:the\s+)?(?:context|documents?|sources?|provided\s+\w+)\s+(?:does|do)\s*n[o’']t\s+"
    r"(?:contain|mention|say|include|provide|specify|state|answer|cover)",
    r"not\s+(?:mentioned|specified|stated|covered)\s+in\s+the\s+(?:context|documents?|sources?)",
    # German
    r"(?:dazu|darüber|hierzu|hierüber|darauf)\s+(?:habe|hab)\s+ich\s+keine",
    r"ich\s+(?:habe|hab)\s+(?:dazu\s+|hierzu\s+)*keine\s+(?:informationen|angaben|daten|antwort)",
    r"(?:habe|hab)\s+ich\s+(?:dazu\s+|hierzu\s+|darüber\s+|hierüber\s+)*keine\s+"
    r"(?:informationen|angaben|daten|antwort)"
    r"(?=\s*(?:[.!,;]|$|(?:dazu|darüber|hierzu|zu|über|in|im|zum|zur|vorliegen)\b))",
    r"(?:kann|könnte)\s+ich\s+(?:\w+\s+){0,3}?nichts\s+(?:sagen|finden)",
    r"(?:dazu|darüber|hierzu|hierüber)\s+weiß\s+ich\s+nichts",
    r"ich\s+weiß\s+(?:es\s+|das\s+)?nicht",
    r"das\s+weiß\s+ich\s+nicht",
    r"(?:kann|könnte)\s+ich\s+(?:\w+\s+){0,3}?nicht\s+(?:beantworten|sagen|finden)",
    r"ich\s+kann\s+(?:\w+\s+){0,3}?nicht\s+(?:beantworten|sagen|finden)",
    r"(?:liegen|sind)\s+(?:mir\s+)?(?:dazu\s+|hierzu\s+)?keine\s+(?:informationen|angaben|daten)",
    r"keine\s+(?:informationen|angaben)\s+(?:dazu|darüber|hierzu|vorhanden|verfügbar)",
    r"geht\s+aus\s+(?:dem|den)\s+\w+\s+nicht\s+hervor",
    r"(?:ist|wird)\s+(?:im|in\s+den)\s+\w+\s+nicht\s+(?:erwähnt|genannt|angegeben)",
)
REFUSAL_KEYWORDS: tuple[str, ...] = (
    "know", "say", "answer", "tell", "find", "help", "determine", "provide", "sure", "unable",
    "sorry", "information", "idea", "data", "details", "contain", "mention", "include", "specif",
    "state", "cover", "keine", "nicht",
)  # fmt: skip
"""Whatever a phrase of ``REFUSALS`` matches in an ASCII text holds one of these (lower case), so
an ASCII sentence without any is no refusal and ``refusals.is_refusal`` skips its patterns
(the patterns took a twentieth of the offline judge's time). A new phrase needs one of them;
tests/analyzer/language/test_refusals.py checks each phrase against strings drawn from it."""
REFUSAL_FILLERS: tuple[str, ...] = (
    "unfortunately", "sadly", "regrettably", "i'm afraid", "i’m afraid", "i am afraid",
    "currently", "at the moment", "right now", "really", "actually", "specific", "however",
    "leider", "bedauerlicherweise", "momentan", "derzeit", "aktuell", "im moment", "wirklich",
    "genau", "konkret", "zurzeit",
)  # fmt: skip
"""Words a refusal may carry that change nothing ("leider", "unfortunately", "I'm afraid")."""

REFUSAL_TURNS: tuple[str, ...] = (
    "but", "however", "though", "although", "yet", "aber", "jedoch", "doch", "allerdings",
    "trotzdem", "dennoch",
)  # fmt: skip
"""Words that turn from a refusal to an answer after a comma or semicolon ("I'm not sure, but
the allowance is 120 EUR", "Dazu habe ich keine Informationen, aber …"): what follows is judged."""

NUMBER_WORDS: dict[str, int] = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000,
    "zwei": 2, "drei": 3, "vier": 4, "funf": 5, "sechs": 6, "sieben": 7, "neun": 9, "zehn": 10,
    "zwolf": 12, "dreizehn": 13, "vierzehn": 14, "funfzehn": 15, "sechzehn": 16, "siebzehn": 17,
    "achtzehn": 18, "neunzehn": 19, "zwanzig": 20, "dreissig": 30, "vierzig": 40, "funfzig": 50,
    "sechzig": 60, "siebzig": 70, "achtzig": 80, "neunzig": 90, "hundert": 100, "tausend": 1000,
    "twice": 2, "thrice": 3, "zweimal": 2, "dreimal": 3,
    # German ordinals from the second, with their endings ("am dritten Krankheitstag"). Not
    # "erste" (mostly no count), nor English ordinals: tried, they made 2 supported WiCE claims
    # unsupported ("the third season") for 3 partially supported ones caught.
    **{
        stem + ending: value
        for stem, value in (("zweit", 2), ("dritt", 3), ("viert", 4), ("funft", 5),
                            ("sechst", 6), ("siebt", 7), ("acht", 8), ("neunt", 9), ("zehnt", 10))
        for ending in ("e", "en", "er", "es", "em")
    },
}  # fmt: skip

DAY_PARTS: dict[str, str] = {
    "abends": "pm", "nachmittags": "pm", "nachts": "night", "morgens": "am", "fruh": "am",
    "vormittags": "am", "mittags": "noon",
}  # fmt: skip
"""German words after "Uhr" that say which half of the day: "10 Uhr abends" is 22:00, "10 Uhr
nachts" too (from 6 to 11; "2 Uhr nachts" is 02:00), "8 Uhr morgens" 08:00."""

NUMBER_PARTS: dict[str, int] = {
    "one": 1, "ein": 1, "eine": 1, "eins": 1, "acht": 8, "elf": 11, "million": 1_000_000,
    "millionen": 1_000_000,
}  # fmt: skip
"""Number words read only as part of a longer number ("one hundred", "einundzwanzig",
"achtzehn"): alone they are too often no count ("one of", "ein Tag", "achten")."""
NUMBER_JOINS = frozenset(("and", "und"))
"""Words joining a number's parts: "one hundred and fifty", "fünfundvierzig"."""

# The offline judge's exception check (judges/offline/exception.py), folded, longest first.
EXCEPTIONS: tuple[str, ...] = (
    "with the exception of", "mit ausnahme von", "mit ausnahme", "abgesehen von", "es sei denn",
    "except for", "apart from", "aside from", "other than", "excluding", "ausgenommen",
    "ausser fur", "except", "unless", "ausser",
)  # fmt: skip
"""Phrases that add an exception to a statement ("… except for one glass of wine", "außer
…"): a claim's exception clause must be in the context."""

EVEN_IF: tuple[str, ...] = (
    "even if", "even when", "regardless of whether", "auch wenn", "selbst wenn",
)  # fmt: skip
"""Phrases of a condition that does not hold back the rule ("… even if another member has
reserved it"): the opposite of :data:`UNLESS` (``judges/offline/exception.py``)."""

UNLESS: tuple[str, ...] = ("unless", "except if", "except when", "es sei denn", "ausser wenn")
"""Phrases of a condition that holds back the rule ("… unless another member has reserved
it"): a claim that turns one into :data:`EVEN_IF`, or back, states new content."""

ABBREVIATIONS = frozenset(
    _words(
        """
    z.b zb e.g eg i.e ie etc usw bzw ca vgl nr no dr mr mrs ms prof st vs sog ggf evtl inkl
    exkl zzgl abs art s ff bspw u.a d.h o.ä u.ä z.t max min mind approx incl dept fig jan
    feb mar apr jun jul aug sep sept oct okt nov dec dez tel str hr fr
"""
    )
)
"""Lower-cased abbreviations that end with a period and do not end a sentence (``claims.py``);
``no`` and ``nr`` only before a number ("No. 5", not "No. Flights under 6 hours …")."""

POINTER_WORDS = frozenset(
    _words(
        """
    see siehe vgl vgl. cf cf. also auch refer to for more further details detail information
    informationen info weitere mehr dazu hierzu in im unter the die der den dem das a an
    please bitte you can find können finden sie steht stehen hier here dort there it es this
    is are sind ist given listed stated described angegeben beschrieben aufgeführt genannt
    and und for: für details: at bei
"""
    )
)
"""The words of a sentence that only points at sources ("See also [2] for details",
``citations.py``)."""
