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
from functools import lru_cache
from typing import Final

import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberType

from conversations.hooks.normalize import clean
from conversations.hooks.pii_names import (
    NOT_NAME_WORDS,
    block_names,
    echo_spans,
    is_place_name,
    name_spans,
    neighbour_spans,
    place_spans,
)

__all__ = ["PII_TYPES", "Redaction", "redact"]

PII_TYPES: Final = (
    "SSN",
    "PHONE",
    "DOB",
    "TDCJ",
    "SID",
    "ID",
    "MEDICAID",
    "MEDICARE",
    "EMAIL",
    "ADDRESS",
    "CARD",
    "NAME",
)

# Lower number wins an overlap: an email or card swallows the digits inside it, a keyword-anchored
# TDCJ/SID number beats reading the same 7 digits as a local phone number.
_PRIORITY: Final = {
    "EMAIL": 0,
    "CARD": 1,
    "TDCJ": 2,
    "SID": 2,
    "ID": 2,
    "MEDICAID": 2,
    "MEDICARE": 2,
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
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+ ?@ ?[A-Za-z0-9\-]+(?: ?\. ?[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9\-])",
    _I,
)
# Spelled out to dodge filters or because the keyboard has no @: "jdoe at mycompany dot org",
# "marcus dot j1985 at gmail dot com", "rosa arroba hotmail punto com". The domain must end in a
# spelled dot and a known top-level domain, so "at home" or "at the office" never matches.
_SPELLED_AT = r"(?:\s*(?:\(at\)|\[at\]|\{at\}|<at>)\s*|\s+(?:at|arroba)\s+|\s*@\s*)"
_SPELLED_DOT = r"(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|<dot>|\(punto\)|\[punto\])\s*|\s+(?:dot|punto)\s+|\s?\.\s?)"
_TLD = r"(?:com|net|org|edu|gov|mil|mx|us|io|info|biz|co|me|tx|es|uk|ca)"
_SPELLED_EMAIL: Final = re.compile(
    rf"(?<![\w.%+\-])[A-Za-z0-9_%+\-]+(?:(?:\s+(?:dot|punto)\s+|\.)[A-Za-z0-9_%+\-]+){{0,3}}"
    rf"{_SPELLED_AT}[A-Za-z0-9\-]+(?:{_SPELLED_DOT}(?!{_TLD}\b)[A-Za-z0-9\-]+)?(?:{_SPELLED_DOT}{_TLD}\b){{1,2}}",
    _I,
)
# Card numbers as people write them: unbroken, in fours (Visa, Mastercard, Discover) or 4-6-5 (Amex).
_CARD: Final = re.compile(
    r"(?<![\d-])(?:\d{13,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{5})(?![\d-])"
)
_SSN: Final = re.compile(
    r"(?<!\d)(?<!\d[-.])(?<!\d )\d{3}(?:([-. ]?)\d{2}\1|\s\d{2}-)\d{4}(?![\d-]|\.\d| \d{3,})"
    # Slashes or spaced hyphens: "523/41/8876", "523 - 41 - 8877" (dashes are folded before matching).
    r"|(?<![\d/])\d{3}\s*([/\-])\s*\d{2}\s*\2\s*\d{4}(?![\d/\-])"
)
# "last 4 of my social is 6789": a keyword makes a short number an SSN fragment.
_SSN_CONTEXT: Final = re.compile(
    r"\b(?:ssn|ss#|ss|social(?:\s+security)?(?:\s+(?:number|num|no|card))?|seguro\s+social)\b"
    r"[\s:#.\-]*(?:(?:number|num|no|is|es|ends?\s+in|ending\s+in|was)[\s:#.\-]*){0,3}(\d{4}|\d{9})(?![\d-])",
    _I,
)
_LONG_NUMBER: Final = re.compile(r"(?<![\d\-/.,$])\d{6,9}(?![\d\-/]|\.\d|,\d)")
_NUMBER_KEYWORD: Final = re.compile(
    r"\b(?P<medicaid>medicaid)\b|\b(?P<medicare>medicare)\b"
    r"|\b(?P<tdcj>tdcj|tdc|inmate|offender|cid|reo|preso|n[uú]mero\s+de\s+preso)\b|\b(?P<sid>sid|s\.i\.d\.?)(?!\w)"
    r"|\b(?P<id>dl|driver'?s?\s+licen[cs]e|licen[cs]e|licencia(?:\s+de\s+manejar)?|id\s+card|texas\s+id|"
    r"state\s+id|id\s+(?:number|num|no|#)|identificaci[oó]n)\b|\b(?P<ssn>ssn|ss\#?|social|seguro\s+social)(?!\w)",
    _I,
)
# After a keyword, filler words and then a number in any grouping: "tdcj # 02,345,678", "SID 04 417 788",
# "my medicaid number is 5234 19 876", "mi número de medicaid es ...".
_KEY_FILLER: Final = re.compile(
    r"(?:[\s:#.\-=]|(?:number|num|no|nbr|n[uú]mero|numero|is|es|was|de|mi|my|his|her|su|id|card|tarjeta|"
    r"dice|says|said|says|it'?s|its|:)\b)*",
    _I,
)
_GROUPED_DIGITS: Final = re.compile(r"\d(?:(?:[ ,.\-]|\s-\s)?\d){5,10}(?:[A-Za-z](?![A-Za-z]))?(?![\d])")
# Medicare Beneficiary Identifier (CMS format: 11 characters, no S L O I B Z), dashes optional.
_MBI_L = "[AC-HJKMNP-RT-Y]"
_MBI_A = "[AC-HJKMNP-RT-Y0-9]"
_MEDICARE_MBI: Final = re.compile(
    rf"(?<![\w-])[1-9]{_MBI_L}{_MBI_A}\d-?{_MBI_L}{_MBI_A}\d-?{_MBI_L}{_MBI_L}\d\d(?![\w-])", _I
)
# Phone-shaped text: North American 10/11 digits in any punctuation, a 7-digit local number, or
# "+country ..." groups. One linear scan; phonenumbers then judges each candidate.
_PHONE_CANDIDATE: Final = re.compile(
    r"(?<![\w+])(?:(?P<nanp>\+?(?:1[\s.\-]*)?\(?\d{3}\)?[\s.\-]*\d{3}[\s.\-]*\d{4}|\d{3}[\s.\-]?\d{4})"
    r"|(?P<intl>\+\d{1,3}(?:[\s.\-]*\(?\d{1,4}\)?){2,5}))(?![\w])"
)
# A comma just before counts as a thousands separator only after a digit ("1,234 5678"), not in "Office,9175 3554".
# Numbers written the way other countries group them: "81 1234 5678" and "044 55 1234 5678" (Mexico),
# "0664 550 49 95", "(11) 7881-7987", "+46 (0)64 57 86 57", "039-891-4637x5052". Eight or more digits in
# at least two groups; dates, times, money and statute numbers have their own shapes and stay.
_PHONE_GROUPED: Final = re.compile(
    r"(?<![\w+$/:.])(?<!\d,)(?:\+\s?|00\s?|011\s?)?(?:\(\d{1,5}\)|\d{1,5})(?:\s?\(0\))?"
    r"(?:(?:[ \-.]|\)\s?)?\(?\d{2,5}\)?){1,5}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w/:]|[.,]\d)",
    _I,
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
# Month abbreviations in either language inside a numeric date: "4-Mar-1985", "Apr-4-1985", "7-Ago-1987".
_MON = r"(?:jan|ene|feb|mar|apr|abr|may|jun|jul|aug|ago|sep|sept|oct|nov|dec|dic)[a-z]{0,6}\.?"
_DATE_MON: Final = re.compile(
    rf"(?<![\w/])\d{{1,2}}\s?[-./]\s?{_MON}\s?[-./]\s?(?:\d{{4}}|\d{{2}})(?![\d/])"
    rf"|(?<![\w/])\d{{1,2}}\s+{_MON}\s+(?:\d{{4}}|'?\d{{2}})(?!\d)"
    rf"|\b{_MON}\s?[-./]\s?\d{{1,2}}\s?[-./,]\s?(?:\d{{4}}|\d{{2}})(?!\d)",
    _I,
)
# "born in Mar 1985": a month and year is a birth date only next to a birth word.
_MONTH_YEAR: Final = re.compile(rf"\b(?:{_MONTHS_EN}|{_MONTHS_ES}|{_MON})\s+(?:de\s+|del\s+)?(?:19|20)\d{{2}}\b", _I)
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
    # The unit word ends at a word boundary, so "123 Main St now" keeps "now" ("no" + "w" is no unit).
    r"(?:,?\s*(?:(?:apt|apartment|unit|ste|suite|no|lot|room|rm|bldg)\b\.?|#)\s*#?\s*[A-Za-z0-9\-]+)?"
    r"|\b\d{1,6}\s+(?:calle|avenida|av\.|avda\.|camino|privada|callej[oó]n|carretera|calzada|paseo)\s+"
    r"(?:(?:del|de\s+la|de\s+los|de\s+las|de)\s+)?(?:(?!(?:en|y|de|del|cerca|por|para|con)\b)[^\W\d_][\w'.\-]*\s*){1,2}"
    # Spanish order, name then number: "Calle 5 de Mayo 234", "Privada Los Pinos 23", "Avenida Juárez 1120".
    r"|\b(?:calle|avenida|av\.|avda\.|privada|callej[oó]n|camino|carretera|calzada|paseo|circuito|cerrada|"
    r"boulevard|bulevar|prolongaci[oó]n|via|rue|ul\.)\s+"
    r"(?:(?!(?:que|en|y|desde|por|para|con|hace|sin|cuando|muy|est[aá]|es|son|hay|como|pero|no|me|le|se|lo|"
    r"mi|tu|su|un|una|a|al|the|and|in|to)\b)[\w'.\-]+\s+){1,4}?#?\d{1,5}(?![\d:]|\s*(?:años|anos|am|pm|hrs|horas)\b)"
    # "en el 2300 de la calle Main": the number, then the street.
    r"|\b\d{1,6}\s+de\s+la\s+(?:calle|avenida|av\.?|carretera)\s+[^\W\d_][\w'.\-]*"
    r"(?:\s+(?-i:[A-Z])[\w'.\-]*(?<!\bTX)(?<!\bTexas))?"
    r"|\b\d{1,6}\s+(?:avenue|ave\.?)\s+[A-Z]\b"
    # A number, capitalised street words and a number: "3750 Albrechtstrasse 62", "128 Klímova 799".
    r"|(?-i:\b\d{1,6}\s+(?:[A-ZÀ-ÖØ-Þ][^\W\d_][\w'\-]*\.?\s+){1,3}\d{1,5}(?![\d:]|[.,]\d))"
    r"|\b(?:apt|apartment|suite|ste|unit|depto|departamento|interior|int)\.?\s*#?\s*\d{1,5}[A-Za-z]?\b"
    r"|\b(?:p\.?\s*o\.?\s*box|post\s+office\s+box|apartado\s+postal|psc\s+\d{1,5},?\s*box)\s*#?\s*\d{1,6}\b",
    _I,
)
# "i live at 4521 Bellaire": a house number after an address phrase, even with no street type.
_ADDRESS_CONTEXT: Final = re.compile(
    r"\b(?:live\s+at|living\s+at|staying\s+at|stay\s+at|address\s+is|address:|moving\s+to|vivo\s+en|"
    r"direcci[oó]n\s+es|domicilio)\s+(\d{1,6}\s+(?:(?!(?:in|en|and|y|apt)\b)[^\W\d_][\w'.\-]*\s?){1,3})",
    _I,
)
# The European and Mexican order after an address phrase: "lives on Dalmatinova 55", "vivo en Reforma 88".
_ADDRESS_NAME_FIRST: Final = re.compile(
    r"\b(?:lives?\s+(?:on|at)|living\s+(?:on|at)|staying\s+(?:on|at)|corner\s+of|address\s+is|address:|moved\s+to|"
    r"sent\s+to|send\s+it\s+to|mail\s+it\s+to|located\s+at|return\s+to|is\s+at|meet\s+you\s+at|vivo\s+en|"
    r"direcci[oó]n\s+es|domicilio\s+es)\s+(?:the\s+|la\s+|el\s+)?"
    r"((?-i:[A-ZÀ-ÖØ-Þ\u0370-\u03ff])[\w'.\-]*(?:\s+(?:de|del|la|den|der|van|von|u\.|ul\.|ulica|utca|út|gate|"
    r"(?-i:[A-ZÀ-ÖØ-Þ\u0370-\u03ff])[\w'.\-]*)){0,3}\s+\d{1,4}[A-Za-z]?)(?![\d:]|[.,]\d)",
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

# En and em dashes, minus signs and the like read as "-" for matching (one character for one).
_DASHES: Final = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"))

_CONTACT_PLACEHOLDER: Final = re.compile(r"\[(?:ADDRESS|PHONE|EMAIL)\]")
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


_KEY_DIGITS: Final = {"SSN": (9, 9), "MEDICAID": (8, 11), "MEDICARE": (9, 11), "ID": (6, 10)}


def _keyed_numbers(text: str) -> list[_Span]:
    """Numbers a keyword names, in any grouping: spaces, commas, dots or dashes between the digits."""
    spans: list[_Span] = []
    for key in _NUMBER_KEYWORD.finditer(text):
        kind = (key.lastgroup or "id").upper()
        filler = _KEY_FILLER.match(text, key.end())
        at = filler.end() if filler else key.end()
        if at - key.end() > 30:
            continue
        m = _GROUPED_DIGITS.match(text, at)
        if not m:
            continue
        value = m.group(0)
        digits = sum(ch.isdigit() for ch in value)
        low, high = _KEY_DIGITS.get(kind, (6, 9))
        if low <= digits <= high:
            spans.append((m.start(), m.end(), kind))
    return spans


def _medicare_ids(text: str) -> list[_Span]:
    return [
        (m.start(), m.end(), "MEDICARE") for m in _MEDICARE_MBI.finditer(text) if any(c.isalpha() for c in m.group(0))
    ]


# A national number written unbroken with its trunk prefix: "07289025797" (UK mobile), "0443302925".
_TRUNK_PHONE: Final = re.compile(r"(?<![\w+$/:.\-])(?<!\d,)0\d{9,10}(?![\w/:]|-\d|[.,]\d)")


def _grouped_phones(text: str) -> list[_Span]:
    """Phone numbers in foreign groupings; eight or more digits, or seven after a '+' country code."""
    spans: list[_Span] = [(m.start(), m.end(), "PHONE") for m in _TRUNK_PHONE.finditer(text)]
    for m in _PHONE_GROUPED.finditer(text):
        value = m.group(0)
        digits = re.sub(r"\D", "", re.sub(r"(?:x|ext\.?)\s?\d+$", "", value, flags=re.IGNORECASE))
        groups = len(re.findall(r"\d+", value))
        international = value.startswith(("+", "00", "011"))
        if groups < 2 or len(digits) < (7 if international else 8) or len(digits) > 15:
            continue
        # A hotline's prefix counts only in the US grouping: "(88) 8238-9486" is a Brazilian mobile, not 888.
        nanp = re.fullmatch(r"(?:1[ .\-]?)?\(?\d{3}\)?[ .\-]?\d{3}[ .\-]?\d{4}", value) is not None
        if not international and nanp and len(digits) in (10, 11) and digits[-10:-7] in _NANP_NOT_PERSONAL:
            continue
        spans.append((m.start(), m.end(), "PHONE"))
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


# Six digits in pairs after a call cue: "call me on 89 97 11", "Phone: 35 97 03" (short local numbers abroad).
_CUED_SHORT_PHONE: Final = re.compile(
    r"\b(?:call(?:\s+me)?(?:\s+(?:on|at))?|phone(?:\s+number)?\s*[:#]|tel\.?\s*[:#]?|cell\s*[:#]|reach\s+me\s+(?:on|at))"
    r"[ \t]*(\d{2}[ .\-]\d{2}[ .\-]\d{2})(?![\d.:/\-]|[ .\-]\d)",
    _I,
)


def _phones(text: str) -> list[_Span]:
    spans = [(m.start(), m.end(), "PHONE") for m in _PHONE_CANDIDATE.finditer(text) if _is_personal_phone(m)]
    return spans + [(m.start(1), m.end(1), "PHONE") for m in _CUED_SHORT_PHONE.finditer(text)]


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
    for m in _MONTH_YEAR.finditer(text):
        if _DOB_CONTEXT.search(text, max(0, m.start() - 25), m.start()):
            spans.append((m.start(), m.end(), "DOB"))
    for m in (*_DATE.finditer(text), *_DATE_MON.finditer(text)):
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


# One or two: Faker writes a building number before a street that has its own ("4449 65 R. Mongi Bali").
_LEADING_NUMBER: Final = re.compile(r"(?<![\w.,:/$\-])\d{1,6}(?:[ \t]+\d{1,4})?[ \t]+$")


@lru_cache(maxsize=1)
def _street_words() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Street types from Faker's address providers (pinned): title-case suffixes and lower-case foreign ones.

    The English list ("Locks", "Manors", "Heights") is matched only in title case after a house number or
    as the second street of a corner, so "the park" or "a walk" stay; the foreign ones ("utca", "vej",
    "gatan", "straat") only between a house number and a number.
    """
    from faker.providers.address import da_DK, en_AU, en_GB, en_US, hu_HU, nl_NL, no_NO, sv_SE  # noqa: PLC0415 - Faker's street lists load once, on first use  # noqa: PLC0415 - same

    title = {w.strip() for m in (en_US, en_GB, en_AU) for w in m.Provider.street_suffixes if w.strip()[:1].isupper()}
    title -= _STREET_NOT_TYPE
    foreign = {w.strip().lower() for m in (da_DK, hu_HU, nl_NL, no_NO, sv_SE) for w in m.Provider.street_suffixes}
    foreign |= {
        "ulica",
        "ul.",
        "u.",
        "gate",
        "veg",
        "vei",
        "veien",
        "terrasse",
        "rue",
        "via",
        "rua",
        "calle",
        "strasse",
        "straße",
    }
    alt = "|".join(re.escape(w) for w in sorted(title, key=len, reverse=True))
    low = "|".join(re.escape(w) for w in sorted(foreign, key=len, reverse=True))
    return re.compile(rf"(?-i:{alt})\b"), re.compile(rf"(?:{low})(?![\w])", re.IGNORECASE)


# Faker street suffixes that are too often an ordinary word after a number ("2 Points", "3 Ways").
_STREET_NOT_TYPE: Final = frozenset(
    {"Points", "Ways", "Rest", "Light", "Lights", "Key", "Keys", "Well", "Wells", "Run"}
)
_TITLE_WORD = r"[A-ZÀ-ÖØ-Þ\u0370-\u03ff][^\W\d_][\w'\-]*"
# After a street: a second street-type phrase ("James Street Inalén Fort", "Industrivej 82 Filemonsen Shore"),
# or a unit ("Apt. 297", "Suite 058") or a military box ("Unit 3848 Box 3726").
_UNIT_TAIL: Final = re.compile(
    r"[ \t]*,?[ \t]*(?:apt|apartment|unit|ste|suite|#|lot|room|rm|bldg|box)\.?[ \t]*#?[ \t]*\d{1,5}[A-Za-z]?\b", _I
)
_TITLE_TAIL: Final = re.compile(rf"[ \t]+(?:{_TITLE_WORD}[ \t]+){{0,3}}")
# A house number, capitalised or foreign street words and a number: "312 Bécsi utca 35", "271 Gosposka ulica 61"
# (four digits at most: five after a city is its ZIP).
_ABBREVIATION = r"[A-ZÀ-ÖØ-Þ\u0370-\u03ff][^\W\d_]{0,4}\."
_NUMBER_WORDS_NUMBER: Final = re.compile(
    rf"\b\d{{1,6}}\s+(?:\d{{1,4}}\s+)?(?:{_TITLE_WORD}|[A-Z]\.?|{_ABBREVIATION})(?:\s+(?:{_TITLE_WORD}|[a-zß-ÿ\u0370-\u03ff][\w'\-]*\.?)){{0,3}}\s+\d{{1,4}}\b\.?(?![\d:/]|[.,]\d)"
)
# A street named first, then its number, after a place cue: "is on Orrspelsv 49", "side of Castelao 66".
_NAME_NUMBER_CUED: Final = re.compile(
    rf"(?:\b(?:on|of|at|to|in|is|live|lives|with|[Aa]ddress:?)\s+|(?<=[:?])(?P<mark>[ \t]+))(?:the\s+)?"
    rf"(?P<street>(?P<corner>{_TITLE_WORD}\s+(?:and|&)\s+)?(?:{_TITLE_WORD}|{_ABBREVIATION}\s*{_TITLE_WORD})(?:\s+(?:{_TITLE_WORD}|[a-zß-ÿ][\w'\-]*\.?)){{0,3}}\s+\d{{1,4}}[A-Za-z]?)\b\.?(?![\d:/]|[.,]\d)"
)
# Title-case words that name a thing with a number, not a street: "Unit 12", "Chapter 7", "Highway 6".
_NOT_STREET_NAME: Final = frozenset(
    """unit units chapter section sec room tier region highway hwy fm route rt step level grade page article art rule
    form cell pod dorm bay exit class phase day days week weeks title code bus line number no ward district
    precinct court building bldg floor suite apt apartment lot block box psc cr county us i interstate loop spur
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
    september october november december covid version part item question option plan tier stage year years age
    the a an my his her their our i""".split()
)
# The labelled corner of two streets: "the corner of 1356 Impala St and Sara Locks".
_CORNER: Final = re.compile(r"\b(?:the\s+)?corner\s+of\s+", _I)
_CORNER_SECOND: Final = re.compile(
    rf"(?:\s+{_STREET_TYPES}\.?)?\s+(?:and|&|y)\s+((?:{_TITLE_WORD}\s+){{0,2}}{_TITLE_WORD})", _I
)
# A house number before a French or Portuguese street: "46 rue Nationale", "130 Rue du Maroc", "R Luís Camões 81".
_PREFIX_STREET: Final = re.compile(
    rf"\b\d{{1,6}}\s+(?:\d{{1,4}}\s+)?(?:rue|chemin|boulevard|bd|rua|travessa|largo|alameda|pra[cç]a)\s+"
    rf"(?:(?:de\s+la|de\s+l'|du|des|de|da|do|dos|das|d')\s*)?(?-i:{_TITLE_WORD}(?:[ \t]+{_TITLE_WORD}){{0,3}})|"
    rf"\b(?-i:R|Av)\.?\s+{_TITLE_WORD}(?:\s+{_TITLE_WORD}){{0,2}}\s+\d{{1,5}}\b",
    _I,
)
# Military mail: "USS Lindqvist", "USNS Fenstermacher" on the line before "FPO AE 67601".
_SHIP: Final = re.compile(
    rf"\b(?-i:USNS|USNV|USS|USCGC)\s+(?:(?:van|de|der|von|la|le)\s+)?{_TITLE_WORD}(?=\s*\n?\s*(?:FPO|APO|DPO)\b)"
)


# Greek order after the building number: "925 58 Machiton Scholis", "4093 110 Kontomari" — two numbers, then
# capitalised words that end the clause.
_TWO_NUMBERS_WORDS: Final = re.compile(
    rf"(?<![\w.,:/$\-])\d{{1,6}}[ \t]+\d{{1,4}}[ \t]+((?:{_TITLE_WORD}|{_ABBREVIATION})(?:[ \t]+{_TITLE_WORD}){{0,3}})"
    r"(?=[ \t]*(?:[,.;!?]|$|\n))"
)
# Portuguese, Spanish and Catalan streets with their particles, then the number (even one shaped like a year, the
# street word says it is none): "Rua Joaquim de Oliveira Cruz 1615", "349 Rua Maria de Lourdes Petrelli 1997",
# "C/ Arana 23". German and Dutch particles after a house number: "04047 An der Schillingbrucke 10". The street's
# words are capitalised (case-sensitive), so "in Montpellier" after "8 Place de la Comédie" stays.
_PARTICLE_STREET: Final = re.compile(
    rf"(?:\b\d{{1,6}}[ \t]+)?(?:\b(?:Rua|Avenida|Travessa|Largo|Alameda|Estrada|Rodovia|Carrer|Passeig|Calle|Ronda)\b|"
    rf"(?<![\w/])C/|\bAv(?:da)?\.)[ \t]*(?:{_TITLE_WORD}|(?-i:[A-Z])(?![\w']))"
    rf"(?:[ \t]+(?:(?:de|da|do|dos|das|del|la|los|las|e|i|y)[ \t]+)?{_TITLE_WORD}){{0,5}}[ \t]+\d{{1,5}}[A-Za-z]?\b(?![\d:/%]|[.,]\d)"
    rf"|\b\d{{1,6}}[ \t]+(?-i:An[ \t]+der|An[ \t]+den|Am|Im|Auf[ \t]+der|In[ \t]+der|Zum|Zur|Op[ \t]+de|Aan[ \t]+de)[ \t]+"
    rf"{_TITLE_WORD}(?:[ \t]+{_TITLE_WORD})?[ \t]+\d{{1,4}}[A-Za-z]?\b(?![\d:/%]|[.,]\d)"
    # French with its particle: "55 Avenue du Golf Arabe", "12 Place de la Gare".
    rf"|\b\d{{1,6}}[ \t]+(?i:avenue|all[ée]e|impasse|place|quai|cours|route|square)[ \t]+"
    rf"(?:du|des|de[ \t]+la|de[ \t]+l'|d'|de)[ \t]*{_TITLE_WORD}(?:[ \t]+{_TITLE_WORD}){{0,2}}"
)
# A street written apart from its capitalised German type, or a name then a lower-case "str": "Brandenburgische
# Straße 9", "92 Vasileos Pavlou str".
_APART_TYPE_STREET: Final = re.compile(
    rf"(?-i:(?:{_TITLE_WORD}[ \t]+){{1,2}}(?:Stra(?:ss|ß)e|Gasse|Weg|Platz|Allee|Ring|Damm)[ \t]+\d{{1,4}}[A-Za-z]?\b)(?![\d:/%]|[.,]\d)"
    rf"|\b\d{{1,6}}[ \t]+(?:{_TITLE_WORD}[ \t]+){{1,3}}(?-i:str|str\.|od\.|odos)(?![\w])"
)


# A street named first in the European way, its type fused to the name or written after it, then the number:
# "Hauptstrasse 75", "Eichendorffstr. 41", "Kloosterhof 167", "Gl. Sygehusvej 153", "Martin Linges veg 149".
_FUSED_TYPES = (
    r"(?:stra(?:ss|ß)e|str\.|gasse|weg|platz|allee|damm|ufer|hof|laan|straat|gracht|plein|kade|singel|vej|gade|"
    r"v(?:æ|ae)nget|gatan|v(?:ä|a)gen|gata|gr(?:ä|a)nd|torget|veien|vegen|str(?:æ|ae)de|utca|ulica|katu|kuja|terrasse|all(?:é|ee))"
)
# Case-sensitive: the name is capitalised and a type written apart is lower case, so "About 5 years" stays.
_FUSED_STREET: Final = re.compile(
    rf"(?<![\w'\-.])(?:(?:Gl|St|Sv|Ny)\.\s+)?(?:{_TITLE_WORD}\s+){{0,2}}"
    rf"(?:[A-ZÀ-ÖØ-Þ][^\W\d_]*{_FUSED_TYPES}|{_FUSED_TYPES}(?<!\.)|veg|vei|gate)\s+\d{{1,4}}[A-Za-z]?\b(?![\d:/%]|[.,]\d)"
)


def _street_suffix_addresses(text: str) -> list[_Span]:
    title, foreign = _street_words()
    spans: list[_Span] = []
    for m in re.finditer(rf"\b\d{{1,6}}(?:\s+\d{{1,4}})?\s+(?:{_TITLE_WORD}\s+){{1,3}}", text):
        t = title.match(text, m.end())
        if t:
            spans.append((m.start(), t.end(), "ADDRESS"))
    for m in _NUMBER_WORDS_NUMBER.finditer(text):
        words = m.group(0).split()[1:-1]
        # A state code or a ZIP after the words is the city line ("Airline Dr Houston 77037", "Huntsville TX").
        if any(w.lower().rstrip(".") in _NOT_STREET_NAME or re.fullmatch(r"[A-Z]{2}", w) for w in words):
            continue
        if _looks_like_year(m.group(0).split()[-1]):
            continue
        spans.append((m.start(), m.end(), "ADDRESS"))
    spans += _cued_streets(text, foreign)
    spans += [(m.start(), m.end(), "ADDRESS") for m in _PREFIX_STREET.finditer(text)]
    for m in _FUSED_STREET.finditer(text):
        if not _looks_like_year(m.group(0).split()[-1]):
            spans.append((m.start(), m.end(), "ADDRESS"))
    for m in _SHIP.finditer(text):
        spans.append((m.start(), m.end(), "ADDRESS"))
    return spans


# A street type right after the number says the one-digit number is a house number: "enter on Orrspelsv 7 St.".
_TYPE_AFTER: Final = re.compile(rf"[ \t]+{_STREET_TYPES}\b", _I)


def _cued_streets(text: str, foreign: re.Pattern[str]) -> list[_Span]:
    """A street named first, then its number, after a place cue ("is on Orrspelsv 49")."""
    spans: list[_Span] = []
    for m in _NAME_NUMBER_CUED.finditer(text):
        if m.group("mark") and not m.group("corner"):
            continue  # after a bare colon only the "X and <street> <number>" form: "Score: Cowboys 24" stays
        words = m.group("street").split()
        if len(words) > 3 and words[1].lower() in ("and", "&"):
            words = words[2:]  # an intersection: the street with the number decides
        if words[0].lower() in _NOT_STREET_NAME or any(w.lower() in NOT_NAME_WORDS for w in words[1:-1]):
            continue
        if _looks_like_year(words[-1]) or (
            len(words) == 2
            and not foreign.search(m.group("street"))
            and len(words[-1]) < 2
            and not _TYPE_AFTER.match(text, m.end("street"))
        ):
            continue
        spans.append((m.start("street"), m.end("street"), "ADDRESS"))
    return spans


# Texas numbers its roads: a house number on a farm-to-market road, a highway, a loop or an interstate is a street line
# with the route number in it ("1234 FM 1960 Rd W", "9000 N Loop 1604 W", "1507 County Road 4310", "4500 I-45 N").
# Without the house number ("on Hwy 290") the route stays: it names no one's home.
_ROUTE_STREET: Final = re.compile(
    r"\b\d{1,6}[ \t]+(?:(?:[NSEW]\.?|north|south|east|west)[ \t]+)?"
    r"(?:fm|rm|rr|cr|sh|us|(?-i:IH|I)|hwy\.?|highway|state[ \t]+(?:hwy\.?|highway)|county[ \t]+(?:road|rd\.?)|"
    r"ranch[ \t]+(?:road|rd\.?)|farm[ \t]+to[ \t]+market(?:[ \t]+(?:road|rd\.?))?|loop|spur|beltway|business)"
    r"[ \t]*-?[ \t]*\d{1,4}[A-Za-z]?\b(?![\d:/%]|[.,]\d)(?:[ \t]+(?:[NSEW]|north|south|east|west)\b\.?)?"
    r"(?:[ \t]+(?:frontage[ \t]+|service[ \t]+|access[ \t]+)?(?:rd|road)\b\.?)?",
    _I,
)


def _international_addresses(text: str) -> list[_Span]:
    """Street lines in the orders Faker writes for other countries: Greek, Portuguese, Spanish, German, French."""
    spans: list[_Span] = []
    for m in _TWO_NUMBERS_WORDS.finditer(text):
        first = m.group(1).split()[0].lower().rstrip(".")
        if first not in _NOT_STREET_NAME and first not in NOT_NAME_WORDS and not is_place_name(m.group(1)):
            spans.append((m.start(), m.end(), "ADDRESS"))
    spans += [(m.start(), m.end(), "ADDRESS") for m in _PARTICLE_STREET.finditer(text)]
    spans += [(m.start(), m.end(), "ADDRESS") for m in _APART_TYPE_STREET.finditer(text)]
    spans += [(m.start(), m.end(), "ADDRESS") for m in _ROUTE_STREET.finditer(text)]
    return spans


def _looks_like_year(number: str) -> bool:
    digits = number.rstrip(".")
    return len(digits) == 4 and digits[:2] in ("19", "20")


# The city written on the street line after a unit, with no comma, and its region or country: "Apt. 213 Nürnberg BY",
# "Suite 610 BODØ Norway", "Suite 147 Mol Antwerp", "Apt. 542 Alcolea del Río Seville". A foreign city routes no one to
# help in Texas, so it goes with the street line; a US state (code or name) or a registered Texas place keeps every word,
# since the region lookup and the out-of-state handoff read them.
_US_STATES: Final = frozenset(
    """AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR
    PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI US""".split()
)
_US_STATE_NAMES: Final = frozenset(
    """alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho illinois
    indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota mississippi missouri montana
    nebraska nevada hampshire jersey mexico york carolina dakota ohio oklahoma oregon pennsylvania rhode tennessee
    texas utah vermont virginia washington wisconsin wyoming tex usa""".split()
)
_CITY_WORD = r"(?:[A-ZÀ-ÖØ-Þ\u0370-\u03ff][\w'\-]*)"
_CITY_PARTICLE = r"(?:del|de|la|le|les|di|do|da|dos|das|van|von|der|den|am|an|im|sur|upon|on|y|i)"
# One to four words ending in a capitalised one, then the end of the clause; a lower-case word may follow only a
# city and its region ("Kaiserslautern Innenstadt Rheinland-Pfalz last night").
_GLUED_CITY: Final = re.compile(
    rf"[ \t]+({_CITY_WORD}(?:[ \t]+(?:{_CITY_PARTICLE}[ \t]+){{0,2}}{_CITY_WORD}){{0,4}}"
    # A country written with its language ("Cyprus (Greek)"); "nan" is how presidio-evaluator's generator writes a
    # region its locale lacks (pandas' NaN) — no message has it, so reading it as a region costs nothing.
    rf"(?:[ \t]+\((?-i:[A-Z][a-z]+)\)|[ \t]+nan)?)"
    rf"(?![\w'\-])(?=[ \t]*(?:[?.!;:,)(]|$|\n)|[ \t]+(?P<more>[a-z]))"
)


_CITY_ARTICLES: Final = frozenset({"el", "la", "le", "les", "los", "las", "san", "santa", "al"})
_ENDS_IN_UNIT: Final = re.compile(
    r"\b(?:apt|apartment|unit|ste|suite|lot|room|rm|bldg|box)\.?[ \t]*#?[ \t]*\d{1,5}[A-Za-z]?$", _I
)


def _foreign_city_end(text: str, end: int) -> int:
    m = _GLUED_CITY.match(text, end)
    if m is None:
        return end
    words = m.group(1).split()
    if m.group("more") and len(words) < 2:
        return end  # "Apt 4 Houston now": one word and the sentence going on is no city and region
    if any(w in _US_STATES or w.lower().strip(".,") in _US_STATE_NAMES for w in words):
        return end
    if is_place_name(m.group(1)) or any(is_place_name(w) for w in words) or place_spans(m.group(1)):
        return end
    first = words[0].lower()
    if first in _NOT_STREET_NAME or (first in NOT_NAME_WORDS and first not in _CITY_ARTICLES):
        return end  # "Apt 4 Monday", "Suite 2 The ..." : the sentence going on, not a city
    return m.end(1)


# An intersection written as "Oskar and Hindsholmvej 75" or "Mikael and 3173 Kerry Way" after a place cue.
# The cue may be a colon or question mark before it, or the start of a line ("following? Vera and Brandenburgische
# Straße 9", "User: Sigtryggur and Parva Domus 6896").
_INTERSECTION_BEFORE: Final = re.compile(
    rf"(?:\b(?:at|to|is|on|of|address:?)\s+|[:?][ \t]+|(?m:^)[ \t]*)({_TITLE_WORD})[ \t]+(?:and|&)[ \t]+$",
    re.IGNORECASE,
)


def _extend(text: str, spans: list[_Span]) -> list[_Span]:
    """Grow each address over what belongs to its street line: units, a second street-type phrase, a corner."""
    title, _ = _street_words()
    out: list[_Span] = []
    for start, stop, k in spans:
        s, e = start, stop
        unit_end = -1
        while True:
            unit = _UNIT_TAIL.match(text, e)
            if unit:
                e = unit_end = unit.end()
                continue
            tail = _TITLE_TAIL.match(text, e)
            street = title.match(text, tail.end()) if tail else None
            if street is None:
                break
            e = street.end()
        if e == unit_end or _ENDS_IN_UNIT.search(text, s, e):
            e = _foreign_city_end(text, e)
        intersection = _INTERSECTION_BEFORE.search(text, max(0, s - 40), s)
        if intersection and not is_place_name(intersection.group(1)):
            s = intersection.start(1)
        corner = _CORNER.search(text, max(0, s - 20), s)
        if corner and corner.end() == s:
            second = _CORNER_SECOND.match(text, e)
            s = corner.start()
            if second:
                e = second.end(1)
        out.append((s, e, k))
    return out


def _addresses(text: str) -> list[_Span]:
    spans = [(m.start(), m.end(), "ADDRESS") for m in _ADDRESS.finditer(text)]
    spans += _street_suffix_addresses(text)
    spans += _international_addresses(text)
    spans += [(m.start(1), m.end(1), "ADDRESS") for m in _ADDRESS_NAME_FIRST.finditer(text)]
    for m in _ADDRESS_CONTEXT.finditer(text):
        # A typed street already ends the address; the words after it are the city, which stays.
        if not any(s <= m.start(1) < e for s, e, _ in spans):
            spans.append((m.start(1), m.end(1), "ADDRESS"))
    out = []
    for s, e, k in spans:
        # A bare number right before a street ("22638 25 Kogil Street") is part of the same address.
        lead = _LEADING_NUMBER.search(text, max(0, s - 12), s)
        start = lead.start() if lead else s
        out.append((_street_name_before(text, start), e - (len(text[s:e]) - len(text[s:e].rstrip())), k))
    return _merged(_extend(text, out))


# A street named first, its number and then a second street, after "is" or "address" or at the start of a line:
# "it is Riddersporen 1 Seweryna Lights". Not after "at", "to" or "and", where a city or a business stands as often.
_NAME_BEFORE_NUMBER: Final = re.compile(
    rf"(?:\b(?:is|address:?)[ \t]+|(?m:^)[ \t]*)({_TITLE_WORD})[ \t]+$", re.IGNORECASE
)


def _street_name_before(text: str, start: int) -> int:
    """Where a street line starting with a house number really starts: at a street name written before the number."""
    if not text[start : start + 1].isdigit():
        return start
    m = _NAME_BEFORE_NUMBER.search(text, max(0, start - 40), start)
    if m is None or not m.group(1)[0].isupper():
        return start
    word = m.group(1).lower()
    if word in NOT_NAME_WORDS or word in _NOT_STREET_NAME or is_place_name(m.group(1)):
        return start
    return m.start(1)


def _merged(spans: list[_Span]) -> list[_Span]:
    """Overlapping address spans as one: "280 2018 rue Saint-Charles Suite" and "2018 rue ... Longueuil QC" are one street line."""
    out: list[_Span] = []
    for s, e, k in sorted(spans):
        if out and s < out[-1][1]:
            out[-1] = (out[-1][0], max(e, out[-1][1]), k)
        else:
            out.append((s, e, k))
    return out


# What follows a house number inside a street line: a street word or an ordinal street ("1783 49th Avenue").
_STREET_AFTER_NUMBER: Final = re.compile(r"[ \t]+(?:[^\W\d_]|\d{1,4}(?:st|nd|rd|th)\b)", _I)


def _house_number(text: str, phone: _Span, addresses: list[_Span]) -> bool:
    start, end, _ = phone
    return any(s <= start and end < e and _STREET_AFTER_NUMBER.match(text, end, e) is not None for s, e, _ in addresses)


def _names(text: str) -> list[_Span]:
    spans: list[_Span] = [(s, e, "NAME") for s, e in name_spans(text)]
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


_SPANISH_WORDS: Final = frozenset(
    "de la que el en y los se del las por un para con una su al lo como más pero sus le ya o fue este sí porque "
    "esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos durante estoy tengo mi "
    "necesito quiero estoy soy hola gracias ayuda".split()
)
_ENGLISH_WORDS: Final = frozenset(
    "the and to of a in is it you that he was for on are with as i his they be at one have this from or had "
    "by but not what all were we when your can said there use an each which she do how their if will my me "
    "im i'm need get got just help please".split()
)
_WORDS: Final = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
# Bare capitalised words the model often calls a person but that name a place, agency or thing here.
_NER_BEFORE_PLACE: Final = re.compile(
    r"(?:\b(?:in|on|near|at|around|outside|downtown|off|en|de|del|cerca\s+de|st\.?|saint|san|santa)\s+(?:the\s+)?)$", _I
)
_NER_AFTER_PLACE: Final = re.compile(
    r"\s*(?:,\s*)?(?:st|street|rd|road|ave|avenue|blvd|dr|drive|ln|county|co\.|tx|texas|unit|center|"
    r"centre|clinic|hospital|church|office|park|library|station|shelter|house|jail|prison|ministries|"
    r"university|college|school|foundation|inc|llc)\b",
    _I,
)
_NER_LEADING_WORDS: Final = re.compile(r"(?:(?:the|a|an|el|la|los|las|hi|hey|hello|dear)\s+)+", _I)
_NER_NOT_NAME: Final = re.compile(r"[A-Z]{2,6}|[A-Z]\.?|\W*|(?i:tex|gov|code|medicaid|medicare|snap|wic)\W*")


_NER_PLACE_INSIDE: Final = re.compile(r"\d|\b(?:TX|Tex|Texas|County|Co)\b")
# A capitalised word right after a placeholder or a street ("[ADDRESS], Austin", "Airline Dr Houston") is the city.
_AFTER_PLACEHOLDER: Final = re.compile(
    r"(?:\]|\b(?:st|street|dr|drive|ave|avenue|rd|road|blvd|ln|lane|ct|way|hwy|pkwy|fwy|trl|pl|loop|"
    r"(?:unit|apt|suite|ste|#)\s*\w+))\.?\s*,?\s*$",
    _I,
)


def _english(text: str, language: str | None) -> bool:
    """True when `text` reads as English (the only language the name model knows)."""
    if language is not None:
        return language.lower().startswith("en")
    words = [w.lower() for w in _WORDS.findall(text)]
    spanish = sum(w in _SPANISH_WORDS for w in words)
    english = sum(w in _ENGLISH_WORDS for w in words)
    return english >= spanish


def _ner_default() -> bool:
    import os  # noqa: PLC0415 - read once, when the name model is first asked for

    return os.environ.get("PATHWAYS_PII_NER", "1").strip().lower() not in ("0", "false", "no", "off", "")


def _model_names(text: str) -> list[_Span]:
    """Person names from the statistical model, minus places, agencies and placeholders it mislabels."""
    from conversations.hooks import pii_ner  # noqa: PLC0415 - the name model (spaCy, Presidio) loads on first use, not at import

    spans: list[_Span] = []
    places = place_spans(text)
    for found, end in pii_ner.person_spans(text):
        # The model can start a name on an article or a greeting ("The Julieta S. Goncalves version"): the name
        # is what follows it.
        lead = _NER_LEADING_WORDS.match(text, found, end)
        start = lead.end() if lead and lead.end() < end else found
        value = text[start:end]
        if any(s <= start and end <= e for s, e in places):
            continue  # "Fort Worth is far": part of a registered place
        if _NER_NOT_NAME.fullmatch(value) or "[" in value or "]" in value or is_place_name(value):
            continue  # a registered place ("Pflugerville is far") stays for the region lookup
        if not any(ch.isupper() for ch in value) or any(w.lower() in NOT_NAME_WORDS for w in value.split()):
            continue
        if _NER_BEFORE_PLACE.search(text, max(0, start - 20), start) or _NER_AFTER_PLACE.match(text, end):
            continue
        if _NER_PLACE_INSIDE.search(value) or _AFTER_PLACEHOLDER.search(text, max(0, start - 16), start):
            continue  # "Austin TX 78702", "[ADDRESS], Dallas": a city, which the region lookup needs
        spans.append((start, end, "NAME"))
    return spans


def _detect(text: str) -> tuple[list[_Span], list[_Span]]:
    """Candidate spans, and the unlabelled long numbers that only count where nothing else does."""
    unlabelled: list[_Span] = []
    text = text.translate(_DASHES)  # same length: the spans still index the caller's text
    spans: list[_Span] = [(m.start(), m.end(), "EMAIL") for m in _EMAIL.finditer(text)]
    spans += [(m.start(), m.end(), "EMAIL") for m in _SPELLED_EMAIL.finditer(text)]
    if any(ch.isdigit() for ch in text):
        spans += _cards(text)
        spans += _keyed_numbers(text)
        spans += _medicare_ids(text)
        spans += _grouped_phones(text)
        spans += [(m.start(), m.end(), "SSN") for m in _SSN.finditer(text)]
        spans += [(m.start(1), m.end(1), "SSN") for m in _SSN_CONTEXT.finditer(text)]
        spans += _long_numbers(text, unlabelled)
        spans += _phones(text)
        spans += _dates(text)
        addresses = _addresses(text)
        # Two numbers before a street ("1222 4146 Port Washington Road") read as a phone number; inside an
        # address whose street words follow them, they are the house number.
        spans = [s for s in spans if s[2] != "PHONE" or not _house_number(text, s, addresses)]
        spans += addresses
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


# A word read as a name and then a house number that ends the line or clause is a street named first:
# "validate the following? Castelao 66", "Skogarlond 53" on an address line. A year or a time is not a house number.
_HOUSE_NUMBER_AFTER: Final = re.compile(r"[ \t]+(\d{1,4}[A-Za-z]?)(?=[ \t]*(?:$|\n|[,;!?)]|\.(?!\d)))")


# A word read as a name, then a street type written apart and a number, is a street too: "Erzsébet tér 19.",
# "Agip u. 96.", "Martin Linges veg 149" (the type word says so, whatever the name's length).
_TYPE_NUMBER_AFTER: Final = re.compile(r"[ \t]+(\S{1,12}?)[ \t]+\d{1,4}[A-Za-z]?\b(?![\d:/%]|[.,]\d)")


def _street_named_like_a_person(text: str, span: _Span) -> _Span:
    start, end, kind = span
    if kind != "NAME":
        return span
    typed = _TYPE_NUMBER_AFTER.match(text, end)
    if typed:
        title, foreign = _street_words()
        word = typed.group(1)
        if (foreign.fullmatch(word) or title.fullmatch(word)) and not _looks_like_year(
            text[typed.end(1) : typed.end()]
        ):
            return (start, typed.end(), "ADDRESS")
    m = _HOUSE_NUMBER_AFTER.match(text, end)
    if m is None or _looks_like_year(m.group(1)) or " " in text[start:end].strip():
        return span
    return (start, m.end(1), "ADDRESS")


def _apply(text: str, spans: list[_Span]) -> str:
    parts = []
    last = 0
    for start, end, kind in spans:
        parts.append(text[last:start])
        parts.append(f"[{kind}]")
        last = end
    parts.append(text[last:])
    return "".join(parts)


def redact(text: str, language: str | None = None, *, ner: bool | None = None) -> Redaction:
    """Replace PII in `text` with typed placeholders; never raises, and redact(redact(x).text) is a no-op.

    `language` ("en"/"es", guessed when None) decides whether the English name model may look at the
    text; `ner` overrides the process default (PATHWAYS_PII_NER) for that model.
    """
    text = clean(text, limit=None)
    use_ner = _ner_default() if ner is None else ner
    counts: Counter[str] = Counter()
    # A replacement can expose a new match (digits that were part of a longer run), so repeat until
    # nothing changes; in practice the second pass finds nothing. Bounded, but not at 4: a run like
    # "0000000+000+000+000+000" peels one group per pass (found by the property tests).
    for _ in range(32):
        spans, unlabelled = _detect(text)
        if use_ner and _english(text, language):
            spans += _model_names(text)
        names = [(s, e) for s, e, k in spans if k == "NAME"]
        spans += [(s, e, "NAME") for s, e in echo_spans(text, names)]
        spans = _resolve(spans, unlabelled)
        # Only a name that won its place lends its neighbours a name: a street's "Dr" read as a name does not.
        kept = [(s, e) for s, e, k in spans if k == "NAME"]
        contact = any(k in ("ADDRESS", "PHONE", "EMAIL") for _, _, k in spans) or _CONTACT_PLACEHOLDER.search(text)
        more = neighbour_spans(text, kept) + block_names(text, kept, bool(contact))
        spans = _resolve(spans + [(s, e, "NAME") for s, e in more], [])
        spans = [_street_named_like_a_person(text, span) for span in spans]
        # A placeholder is never PII itself; without this a pattern widened later could eat one.
        spans = [s for s in spans if not _PLACEHOLDER.fullmatch(text[s[0] : s[1]])]
        if not spans:
            break
        counts.update(kind for _, _, kind in spans)
        text = _apply(text, spans)
    return Redaction(text=text, found=tuple(sorted(counts.items())))
