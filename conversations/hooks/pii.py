"""PII redaction applied before a message is stored, logged or shown to a model.

Typed placeholders keep the message readable for case managers and routing ("[PHONE]", "[TDCJ]").
Cities, ZIP codes, years, money and hotline numbers stay: they carry routing signal and identify
no one on their own. `redact` is idempotent and never returns a raw value in `found`.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from typing import Final

import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberType

from conversations.hooks.normalize import clean

__all__ = ["PII_TYPES", "Redaction", "redact"]

PII_TYPES: Final = ("SSN", "PHONE", "DOB", "TDCJ", "SID", "ID", "EMAIL", "ADDRESS", "CARD", "NAME")

# Lower number wins an overlap: an email or card swallows the digits inside it, a keyword-anchored
# TDCJ/SID number beats reading the same 7 digits as a local phone number.
_PRIORITY: Final = {
    "EMAIL": 0,
    "CARD": 1,
    "TDCJ": 2,
    "SID": 2,
    "ID": 2,
    "SSN": 3,
    "DOB": 4,
    "PHONE": 5,
    "ADDRESS": 6,
    "NAME": 7,
}
_I: Final = re.IGNORECASE

# Matches start only at a token start: otherwise a 20,000-letter "word" is rescanned from every
# position and the search goes quadratic.
_EMAIL: Final = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+ ?@ ?[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+"
    r"|(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+\s*(?:\(at\)|\[at\]|\s+at\s+)\s*(?:gmail|yahoo|hotmail|outlook|icloud|aol|live|"
    r"msn|att|sbcglobal|protonmail|ymail|comcast)\s*(?:\.|\(dot\)|\[dot\]|\s+dot\s+)\s*(?:com|net|org)\b",
    _I,
)
# Card numbers as people write them: unbroken, in fours (Visa, Mastercard, Discover) or 4-6-5 (Amex).
_CARD: Final = re.compile(
    r"(?<![\d-])(?:\d{13,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{5})(?![\d-])"
)
_SSN: Final = re.compile(r"(?<!\d)(?<!\d[-.])\d{3}(?:([-. ]?)\d{2}\1|\s\d{2}-)\d{4}(?![\d-]|\.\d)")
# "last 4 of my social is 6789": a keyword makes a short number an SSN fragment.
_SSN_CONTEXT: Final = re.compile(
    r"\b(?:ssn|ss#|ss|social(?:\s+security)?(?:\s+(?:number|num|no|card))?|seguro\s+social)\b"
    r"[\s:#.\-]*(?:(?:number|num|no|is|es|ends?\s+in|ending\s+in|was)[\s:#.\-]*){0,3}(\d{4}|\d{9})(?![\d-])",
    _I,
)
_LONG_NUMBER: Final = re.compile(r"(?<![\d\-/.,$])\d{6,9}(?![\d\-/]|\.\d|,\d)")
_NUMBER_KEYWORD: Final = re.compile(
    r"\b(?P<tdcj>tdcj|tdc|inmate|offender|cid|reo|preso)\b|\b(?P<sid>sid|s\.i\.d)\b"
    r"|\b(?P<id>dl|driver'?s?\s+licen[cs]e|licen[cs]e|licencia(?:\s+de\s+manejar)?|id\s+card|texas\s+id|"
    r"state\s+id|id\s+(?:number|num|no|#)|identificaci[oó]n)\b|\b(?P<ssn>ssn|social|seguro\s+social)\b",
    _I,
)
# Phone-shaped text: North American 10/11 digits in any punctuation, a 7-digit local number, or
# "+country ..." groups. One linear scan; phonenumbers then judges each candidate.
_PHONE_CANDIDATE: Final = re.compile(
    r"(?<![\w+])(?:(?P<nanp>\+?(?:1[\s.\-]*)?\(?\d{3}\)?[\s.\-]*\d{3}[\s.\-]*\d{4}|\d{3}[\s.\-]?\d{4})"
    r"|(?P<intl>\+\d{1,3}(?:[\s.\-]*\(?\d{1,4}\)?){2,5}))(?![\w])"
)
# Hotlines are an organization's number, not a person's: they stay.
_NANP_NOT_PERSONAL: Final = ("800", "888", "877", "866", "855", "844", "833", "900")
_NOT_PERSONAL: Final = frozenset({PhoneNumberType.TOLL_FREE, PhoneNumberType.PREMIUM_RATE, PhoneNumberType.SHARED_COST})

_MONTHS_EN = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_MONTHS_ES = r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)"
_DATE: Final = re.compile(
    r"(?<!\d)(?<!\d[/.\-])(?:\d{1,2}[/\-.]\d{1,2}[/\-.](?:\d{4}|\d{2})|(?:19|20)\d{2}-\d{1,2}-\d{1,2})(?![\d/\-]|\.\d)"
    rf"|\b{_MONTHS_EN}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+(?:\d{{4}}|'\d{{2}}|\d{{2}}(?!\d)))?"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS_EN}(?:,?\s+\d{{4}})?"
    rf"|\b\d{{1,2}}\s+de\s+{_MONTHS_ES}(?:\s+(?:de|del)\s+\d{{4}})?",
    _I,
)
_YEAR: Final = re.compile(r"(?:19|20)\d{2}|(?<=[/\-.' ])\d{2}$")
_DOB_CONTEXT: Final = re.compile(
    r"\b(?:dob|d\.o\.b\.?|date\s+of\s+birth|birth\s*day|birth\s*date|bday|b-day|born|nacimiento|"
    r"naci|nací|cumpleaños|cumpleanos|cumple)\b",
    _I,
)
# Dates that drive deadlines and eligibility stay: court, release, parole and offense dates.
_EVENT_CONTEXT: Final = re.compile(
    r"\b(?:court|release[ds]?|parole|hearing|convicted|conviction|arrested|arrest|sentenced|discharged?|"
    r"offense|appointment|expires?|exp|issued|report|due|since|until|got\s+out|salí|sali)\b",
    _I,
)

_STREET_TYPES = (
    r"(?:street|st|avenue|ave|av|road|rd|boulevard|blvd|drive|dr|lane|ln|court|ct|circle|cir|way|"
    r"parkway|pkwy|highway|hwy|freeway|fwy|expressway|expy|place|pl|trail|trl|terrace|ter|loop|"
    r"square|sq|plaza|plz|pike|row|bend|crossing|xing|path|pass)"
)
_NOT_STREET_WORD = (
    r"(?:and|or|the|of|to|in|on|at|for|with|from|by|but|is|was|are|am|pm|a|an|i|my|kids?|years?|yrs?|"
    r"days?|months?|hours?|hrs?|minutes?|mins?|miles?|dollars?|bucks|times?|people|weeks?|forms?|"
    r"ages?|mg|lbs?|pounds|percent|then|exit|route|section)\b"
)
_ADDRESS: Final = re.compile(
    rf"\b\d{{1,6}}(?:-?[A-Za-z](?![A-Za-z]))?\s+(?=[A-Za-z]|\d+(?:st|nd|rd|th)\b)"
    rf"(?:(?:[NSEW]|north|south|east|west)\.?\s+)?"
    rf"(?:(?!{_NOT_STREET_WORD})[A-Za-z0-9'.\-]+\s+){{0,4}}?{_STREET_TYPES}\b\.?"
    r"(?:\s+(?:[NSEW]|north|south|east|west)\b\.?)?"
    r"(?:,?\s*(?:apt|apartment|unit|ste|suite|#|no\.?|lot|room|rm|bldg)\s*#?\s*[A-Za-z0-9\-]+)?"
    r"|\b\d{1,6}\s+(?:calle|avenida|av\.|camino|privada|callej[oó]n|carretera)\s+"
    r"(?:(?!(?:en|y|de|del|cerca|por|para|con)\b)[^\W\d_][\w'.\-]*\s*){1,2}"
    r"|\b(?:calle|avenida)\s+(?:[^\W\d_][\w'.\-]*\s+){1,2}#?\d{1,6}\b"
    r"|\b(?:p\.?\s*o\.?\s*box|post\s+office\s+box|apartado\s+postal)\s*#?\s*\d{1,6}\b",
    _I,
)
# "i live at 4521 Bellaire": a house number after an address phrase, even with no street type.
_ADDRESS_CONTEXT: Final = re.compile(
    r"\b(?:live\s+at|living\s+at|staying\s+at|stay\s+at|address\s+is|address:|moving\s+to|vivo\s+en|"
    r"direcci[oó]n\s+es|domicilio)\s+(\d{1,6}\s+(?:(?!(?:in|en|and|y|apt)\b)[^\W\d_][\w'.\-]*\s?){1,3})",
    _I,
)

_NAME_TRIGGER: Final = re.compile(
    r"\b(?:my\s+(?:full\s+)?name(?:\s+is|'s|\u2019s|s)|name\s+is|me\s+llamo|mi\s+nombre\s+es|"
    r"mi\s+nombre:|my\s+name:)\s+"
    r"|^\s*(?:(?:hi|hey|hello|hola|yo|good\s+morning)[,!.]?\s+)?(?:this\s+is|it'?s|soy)\s+(?=(?-i:[A-ZÁÉÍÓÚÑ]))",
    _I,
)
_NAME_TOKEN: Final = re.compile(r"[^\W\d_][^\W\d_'\u2019\-]*(?:['\u2019\-][^\W\d_]+)*\.?")
_NAME_STOP: Final = frozenset(
    """and or but so i im i'm is was not on the a an from in at with just like really here there what
    my your me y e de del en con pero que soy es necesito need want got have had looking trying calling
    texting i've ive ill i'll id i'd am are be been and the to for of it its it's this that we you he
    she they ssn dob tdcj sid phone number cell email address born been getting get out released
    am pm hi hello hey thanks thank please pls yes no ok okay mi tengo estoy vivo busco quiero""".split()
)
_NAME_SUFFIX: Final = frozenset({"jr", "sr", "ii", "iii", "iv"})
_NAME_GAP: Final = re.compile(r"[ \t]+")

_PLACEHOLDER: Final = re.compile(r"\[(?:" + "|".join(PII_TYPES) + r")\]")


@dataclass(frozen=True, slots=True)
class Redaction:
    """Redacted text plus counts per PII type; the raw values are never kept."""

    text: str
    found: tuple[tuple[str, int], ...] = ()

    @property
    def redacted(self) -> bool:
        return bool(self.found)


_Span = tuple[int, int, str]


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _cards(text: str) -> list[_Span]:
    spans = []
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            spans.append((m.start(), m.end(), "CARD"))
    return spans


def _keyword_type(text: str, start: int, end: int) -> str | None:
    """Type named by the nearest keyword just before a number (or just after, "0123456 is my tdcj")."""
    before = list(_NUMBER_KEYWORD.finditer(text, max(0, start - 40), start))
    nearest = before[-1] if before else _NUMBER_KEYWORD.search(text, end, end + 25)
    return nearest.lastgroup.upper() if nearest is not None and nearest.lastgroup else None


def _long_numbers(text: str, unlabelled: list[_Span]) -> list[_Span]:
    spans: list[_Span] = []
    for m in _LONG_NUMBER.finditer(text):
        kind = _keyword_type(text, m.start(), m.end())
        digits = len(m.group(0))
        if kind is not None:
            spans.append((m.start(), m.end(), kind))
        elif digits >= 7:
            # Unlabelled: nine digits is the SSN shape; seven or eight is an identifier of some kind.
            unlabelled.append((m.start(), m.end(), "SSN" if digits == 9 else "ID"))
    return spans


def _is_personal_phone(candidate: re.Match[str]) -> bool:
    if candidate.group("nanp"):
        # The shape is the whole test for a US number; only the prefix says it is a hotline.
        digits = re.sub(r"\D", "", candidate.group(0))
        return len(digits) == 7 or digits[-10:-7] not in _NANP_NOT_PERSONAL
    # "+country ...": a person's number unless phonenumbers knows it as a toll-free or premium line.
    # An unparseable or "impossible" one is still redacted: an old format is still someone's phone.
    try:
        number = phonenumbers.parse(candidate.group(0), "US")
    except NumberParseException:
        return True
    return phonenumbers.number_type(number) not in _NOT_PERSONAL


def _phones(text: str) -> list[_Span]:
    return [(m.start(), m.end(), "PHONE") for m in _PHONE_CANDIDATE.finditer(text) if _is_personal_phone(m)]


def _year_of(date_text: str) -> int | None:
    m = _YEAR.search(date_text.strip())
    if not m:
        return None
    year = int(m.group(0).lstrip("'"))
    if year < 100:
        year += 1900 if year > 25 else 2000
    return year


def _dates(text: str) -> list[_Span]:
    spans = []
    for m in _DATE.finditer(text):
        window = text[max(0, m.start() - 35) : m.start()]
        dob = list(_DOB_CONTEXT.finditer(window))
        event = list(_EVENT_CONTEXT.finditer(window))
        if dob and (not event or dob[-1].end() > event[-1].end()):
            spans.append((m.start(), m.end(), "DOB"))
            continue
        year = _year_of(m.group(0))
        # Unlabelled full dates from a birth-year range are almost always a birth date here.
        if not event and year is not None and 1920 <= year <= 2009:
            spans.append((m.start(), m.end(), "DOB"))
    return spans


def _addresses(text: str) -> list[_Span]:
    spans = [(m.start(), m.end(), "ADDRESS") for m in _ADDRESS.finditer(text)]
    for m in _ADDRESS_CONTEXT.finditer(text):
        # A typed street already ends the address; the words after it are the city, which stays.
        if not any(s <= m.start(1) < e for s, e, _ in spans):
            spans.append((m.start(1), m.end(1), "ADDRESS"))
    return [(s, e - (len(text[s:e]) - len(text[s:e].rstrip())), k) for s, e, k in spans]


def _names(text: str) -> list[_Span]:
    spans = []
    for trigger in _NAME_TRIGGER.finditer(text):
        pos = end = trigger.end()
        for _ in range(4):  # given names and surnames; a fifth word is the sentence going on
            m = _NAME_TOKEN.match(text, pos)
            if not m:
                break
            word = m.group(0)
            low = word.lower().rstrip(".")
            if low in _NAME_STOP:
                break
            if word.endswith(".") and low not in _NAME_SUFFIX and len(low) > 1:
                end = m.end() - 1  # the full stop ends the sentence, not the name
                break
            end = m.end()
            gap = _NAME_GAP.match(text, end)
            if not gap:
                break
            pos = gap.end()
        if end > trigger.end():
            spans.append((trigger.end(), end, "NAME"))
    return spans


def _detect(text: str) -> tuple[list[_Span], list[_Span]]:
    """Candidate spans, and the unlabelled long numbers that only count where nothing else does."""
    unlabelled: list[_Span] = []
    spans: list[_Span] = [(m.start(), m.end(), "EMAIL") for m in _EMAIL.finditer(text)]
    if any(ch.isdigit() for ch in text):
        spans += _cards(text)
        spans += [(m.start(), m.end(), "SSN") for m in _SSN.finditer(text)]
        spans += [(m.start(1), m.end(1), "SSN") for m in _SSN_CONTEXT.finditer(text)]
        spans += _long_numbers(text, unlabelled)
        spans += _phones(text)
        spans += _dates(text)
        spans += _addresses(text)
    spans += _names(text)
    return spans, unlabelled


def _resolve(spans: list[_Span], unlabelled: list[_Span]) -> list[_Span]:
    """Keep non-overlapping spans: higher-priority types first, then longer spans."""
    chosen: list[_Span] = []  # sorted and non-overlapping, so one neighbour check per side suffices
    ranked = sorted(spans, key=lambda s: (_PRIORITY[s[2]], -(s[1] - s[0]), s[0]))
    for span in ranked + unlabelled:
        start, end, _ = span
        i = bisect_left(chosen, span)
        if end > start and (i == 0 or chosen[i - 1][1] <= start) and (i == len(chosen) or end <= chosen[i][0]):
            chosen.insert(i, span)
    return chosen


def _apply(text: str, spans: list[_Span]) -> str:
    parts = []
    last = 0
    for start, end, kind in spans:
        parts.append(text[last:start])
        parts.append(f"[{kind}]")
        last = end
    parts.append(text[last:])
    return "".join(parts)


def redact(text: str) -> Redaction:
    """Replace PII in `text` with typed placeholders; never raises, and redact(redact(x).text) is a no-op."""
    text = clean(text, limit=None)
    counts: Counter[str] = Counter()
    # A replacement can expose a new match (digits that were part of a longer run), so repeat until
    # nothing changes; in practice the second pass finds nothing. Bounded, but not at 4: a run like
    # "0000000+000+000+000+000" peels one group per pass (found by the property tests).
    for _ in range(32):
        spans = _resolve(*_detect(text))
        # A placeholder is never PII itself; without this a pattern widened later could eat one.
        spans = [s for s in spans if not _PLACEHOLDER.fullmatch(text[s[0] : s[1]])]
        if not spans:
            break
        counts.update(kind for _, _, kind in spans)
        text = _apply(text, spans)
    return Redaction(text=text, found=tuple(sorted(counts.items())))
