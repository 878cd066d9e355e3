"""The claim checker: does each rule-stating sentence say what its cited entry says?

Pure functions over plain text (en/es). A claim is compared with a *support span*: the statement's
quote when the draft gave one and it is found verbatim in the cited entry, otherwise the sentence of
the entry's excerpt or reviewed summaries that shares most content words with the claim. Then:

- polarity: can / cannot / must / may not / eligible / not eligible / only after;
- gates: "not ... until X" and "only after X" mean "after X" — a claim of "can ... while on X", "right
  away" or "after Y" (Y not X) contradicts it;
- numbers, amounts and durations: every number in the claim must be in the entry; "free" / "$0" /
  "costs nothing" needs the entry to say so.

It is lexical and conservative on purpose: when it cannot find support it says so (unsupported),
which sends the draft back for a revision, then to a handoff. It never needs a model or a database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final, Literal

from audit.types import EvidenceRecord
from vocab import fold as accent_fold

Outcome = Literal["supported", "unsupported", "contradicted"]

_F: Final = re.IGNORECASE


@dataclass(frozen=True)
class Statement:
    """One claim of a structured draft: its text, the entry it rests on and a verbatim quote of that entry."""

    text: str
    entry: str
    quote: str = ""


@dataclass(frozen=True)
class ClaimCheck:
    """The checker's judgement of one claim against one entry."""

    outcome: Outcome
    claim: str
    entry: str
    detail: str
    support: str = ""


# --------------------------------------------------------------------------------------------
# Text normalisation
# --------------------------------------------------------------------------------------------


def fold(text: str) -> str:
    """Lowercase, strip accents, unify quotes and spaces (for verbatim-quote and word matching)."""
    text = accent_fold(text.replace("\u2019", "'").replace("\u2018", "'"))
    return re.sub(r"\s+", " ", text).strip()


def quote_in(quote: str, texts: Iterable[str]) -> bool:
    """True when `quote` appears verbatim (ignoring case, accents and spacing) in one of `texts`."""
    q = fold(quote).strip(" .;:,")
    return len(q) >= 12 and any(q in fold(t) for t in texts)


# "as soon as", "again", "otra vez" say when, not which rule: as content words they dilute the match.
_STOP: Final = frozenset(
    """a an the and or but if of to in on at by for from with as is are was were be been being it its this that
    these those there their they them he she his her you your yours we our us i me my who whom which what when where
    while how than then so such not no nor do does did done has have had having can could may might must shall should
    will would also any all each every some more most other only own same very just about into over under up down out
    per via s t after before until once while during right away get gets got though although despues antes hasta mientras durante
    soon again vez el la los las un una unos unas y o pero si de del al a en con por para como es son fue ser esta este estos estas
    ese esa eso lo le les se su sus usted ustedes que qué cual cuando donde mientras muy mas más tambien también ya
    puede pueden debe deben tiene tienen hay cannot even still puedes debes tienes estas eres te tu tus ti
    ningun ninguno ninguna nada nadie ni nunca cuanto""".split()
)
# Words every entry and every claim share: they say nothing about which rule is meant.
_GENERIC: Final = frozenset(
    "texas tex law laws rule rules person people persons someone state federal code section gov elec ley leyes regla "
    "reglas persona personas estado codigo seccion general generally generalmente felony felonies felon felons "
    "delito delitos grave graves conviction convictions convicted condena condenas condenada condenado condenaron "
    "condeno condenan".split()
)
_SUFFIXES: Final = re.compile(
    r"(?:ations?|aciones|acion|ments?|ings?|edly|ers|er|ed|es|s|ly|mente|ciones|cion|dades|dad|idos?|idas?|ados?|adas?"
    r"|ar|ir|e|o|a)$"
)
# Plain words people use for the statute's words.
_SYNONYMS: Final = {
    "gun": "firearm",
    "guns": "firearm",
    "pistol": "firearm",
    "pistola": "arma",
    "id": "identification",
    "jail": "prison",
    "locked": "confined",
    "preso": "prision",
    "presa": "prision",
    "carcel": "prision",
    "corte": "tribunal",  # both Spanish words for the court
    "cortes": "tribunal",
    "probatoria": "probation",
    "lowered": "reduce",
    "lower": "reduce",
    "bajar": "reducir",
    "kids": "child",
    "hijos": "hijo",
    # "no le impide recibir SNAP" is what "no aplica la prohibición" says
    "impide": "prohibe",
    "impiden": "prohibe",
    "impedir": "prohibe",
    "impida": "prohibe",
}
_TOKEN: Final = re.compile(r"[a-z0-9$]+(?:[.,]\d+)*")


_ENCLITIC: Final = re.compile(r"(?<=[aei]r)(?:le|les|lo|la|los|las|se|me|te|nos)$")


def stem(word: str) -> str:
    """A crude en/es stem: enough to match "voter"/"vote"/"votar", "sentence"/"sentencia"."""
    w = _SYNONYMS.get(word, word)
    w = _ENCLITIC.sub("", w) if len(w) > 6 else w  # "cobrarle" is "cobrar"
    if w.endswith("ees") and len(w) > 3:  # "fees" is "fee", not "fe"
        w = w[:-1]
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "i"
    elif w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    if len(w) > 3:
        w = _SUFFIXES.sub("", w) or w
    return w[:5]


# Plain phrases people use for the statute's words (read before single words).
_PHRASES: Final = (
    (re.compile(r"\bsign(?:ing|s|ed)?[- ]?up\b|\binscrib\w*"), "register"),
    (re.compile(r"\bturn(?:s|ed|ing)? (?:\w+ )?(?:down|away)\b"), "deny"),
    (re.compile(r"\bput(?:ting|s)? off\b"), "defer"),
    (re.compile(r"\b(?:get(?:s|ting)?|got|walk(?:s|ed)?) out\b"), "release"),
    (re.compile(r"\blocked up\b|\bbehind bars\b"), "confined"),
    (re.compile(r"\bfood stamps\b|\bestampillas\b|\bcupones\b"), "snap"),
    (re.compile(r"\bcriminal (?:history|record)\b|\brecord\b"), "record"),
    (re.compile(r"\b(?:take|takes|taking) into account\b|\b(?:tener|tomar|toma|tiene) en cuenta\b"), "consider"),
    (re.compile(r"\brehab\b"), "rehabilitation"),
    (re.compile(r"\bstart(?:s|ed)? (?:again|back up)\b"), "restart"),
    (re.compile(r"\b(?:you're|you are|they're|they are|are|is) out\b"), "released"),
    (re.compile(r"\b(?:wife|husband|spouse|esposa|esposo|pareja)\b"), "conyuge"),
    (re.compile(r"\b(?:the offense|the crime|it) happened\b"), "offense committed"),
    (re.compile(r"\bpas[oó] el delito\b"), "cometio el delito"),
)


@lru_cache(maxsize=8192)  # entry texts are re-read for every claim of every draft
def content_stems(text: str) -> frozenset[str]:
    """The stems of the words that carry meaning (no stop words, no generic legal words, no numbers)."""
    folded = fold(text)
    for pattern, word in _PHRASES:
        folded = pattern.sub(word, folded)
    words = _TOKEN.findall(folded)
    return frozenset(
        stem(w)
        for w in words
        if w not in _STOP and w not in _GENERIC and not w[0].isdigit() and w[0] != "$" and len(w) > 2
    )


_SENTENCE: Final = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(ÁÉÍÓÚÑ¿\"“])|\n+")
# "…, and a person receiving SNAP … becomes ineligible": each clause is its own rule.
_CLAUSE: Final = re.compile(
    r",\s+(?:and|but|y|pero)\s+(?=(?:a|an|the|un|una|el|la|los|las|if|si|when|cuando)\b)|;\s+", _F
)


def sentences_of(text: str) -> list[str]:
    """Split an entry text into sentences and, where one joins two rules, clauses."""
    parts: list[str] = []
    for sentence in _SENTENCE.split(text or ""):
        parts.extend(clause.strip() for clause in _CLAUSE.split(sentence) if clause.strip())
    return parts


# --------------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------------

_NUMBER_WORDS: Final = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "hundred": 100,
    "first": 1,
    "second": 2,
    "third": 3,
    "fifth": 5,
    "seventh": 7,
    "tenth": 10,
    "thirtieth": 30,
    "cero": 0,
    "un": 1,
    "uno": 1,
    "una": 1,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
    "diez": 10,
    "once": 11,
    "doce": 12,
    "quince": 15,
    "veinte": 20,
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "sesenta": 60,
    "noventa": 90,
    "cien": 100,
    "ciento": 100,
    "decimo": 10,
    "septimo": 7,
    "fourth": 4,
    "sixth": 6,
    "eighth": 8,
    "ninth": 9,
    "primero": 1,
    "primer": 1,
    "segundo": 2,
    "tercer": 3,
    "tercero": 3,
    "cuarto": 4,
    "quinto": 5,
    "sexto": 6,
    "octavo": 8,
    "noveno": 9,
}
_ORDINAL_WORDS: Final = frozenset(
    {
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "thirtieth",
        "decimo",
        "septimo",
        "primero",
        "primer",
        "segundo",
        "tercer",
        "tercero",
        "cuarto",
        "quinto",
        "sexto",
        "octavo",
        "noveno",
    }
)
# "one" and "una"/"uno" are articles as often as numbers: they count only before a unit.
_UNIT: Final = r"(?:days?|weeks?|months?|years?|hours?|times?|occasions?|dias?|semanas?|mes(?:es)?|anos?|horas?|veces)"
_WORD_NUMBER: Final = re.compile(
    r"\b("
    + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
    + r")\b(?:[- ]("
    + _UNIT
    + r"|anniversary|aniversario|day|dia))?",
    _F,
)
_DIGITS: Final = re.compile(r"(?<![\w.])\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:st|nd|rd|th|o|a)?\b")
_WEAK_NUMBER_WORDS: Final = frozenset(
    {"one", "un", "una", "uno", "first", "second", "once", "primero", "primer", "segundo", "cuarto"}
)
# "cualquiera de los dos padres", "either of the two parents": "both", not a number the rule sets.
_BOTH: Final = re.compile(
    r"\b(?:(?:de |a )?(?:los|las) dos|(?:of )?the two)\b(?![- ]?(?:days?|weeks?|months?|years?|dias|semanas|meses|anos))",
    _F,
)


# "ciento cincuenta", "treinta y cinco", "one hundred fifty", "twenty-five": one number said in several words.
# Read first and masked, so "ciento cincuenta" is 150, not a 100 and a 50 the entry may both state.
_CARDINALS: Final = frozenset(w for w, n in _NUMBER_WORDS.items() if w not in _ORDINAL_WORDS and w not in ("un", "una"))
_COMPOUND: Final = re.compile(
    r"\b(?:" + "|".join(sorted(_CARDINALS, key=len, reverse=True)) + r")"
    r"(?:(?:\s+(?:y|and)\s+|[- ]|\s+)(?:" + "|".join(sorted(_CARDINALS, key=len, reverse=True)) + r"))+\b",
    _F,
)


def _compound_value(words: Sequence[str]) -> float | None:
    """The value of "ciento cincuenta" (150) or "twenty five" (25); None when the words do not make one number."""
    value, last = 0, None
    for word in words:
        n = _NUMBER_WORDS[word]
        if n == 100 and last is not None and last < 10:  # "one hundred", "two hundred"
            value = value - last + last * 100
        elif last is None or (last >= 100 and n < 100) or (last % 10 == 0 and 20 <= last < 100 and n < 10):
            value += n
        else:
            return None  # "two three", "ten five": a list, not one number
        last = n
    return float(value)


# "one-third", "half", "un tercio", "la mitad": fractions of a term are numbers too ("after half of it" is not
# "after one-third"). They are read first and masked, so "third" is not also read as 3.
_FRACTION: Final = re.compile(
    r"\b(?:(?:one|a)[- ]third(?![- ](?:degree|grade))|un tercio|(?:one|a)[- ]half|half|(?:la )?mitad|(?:one|a)[- ]quarter|un cuarto"
    r"|two[- ]thirds|dos tercios)\b",
    _F,
)
_FRACTION_VALUE: Final = {"third": 1 / 3, "tercio": 1 / 3, "half": 0.5, "mitad": 0.5, "quarter": 0.25, "cuarto": 0.25}
# What a number counts: durations compare with durations, money with money ("third-degree" is not "three years").
_UNIT_CLASS: Final = (
    (re.compile(r"^(?:business |calendar |consecutive |continuous )?(?:days?|dias?|dias habiles)\b"), "day"),
    (re.compile(r"^(?:weeks?|semanas?)\b"), "week"),
    (re.compile(r"^(?:months?|mes(?:es)?|monthly)\b"), "month"),
    (re.compile(r"^(?:years?|anos?|anniversary|aniversario)\b"), "year"),
    (re.compile(r"^(?:hours?|horas?)\b"), "hour"),
    (re.compile(r"^(?:degree|grado)\b"), "degree"),
    (re.compile(r"^(?:dollars?|dolares?|bucks)\b"), "$"),
)


# "48 straight hours", "two full days", "30 consecutive days": the unit after its adjective.
_UNIT_ADJECTIVE: Final = re.compile(r"^(?:full|straight|whole|consecutive|continuous|calendar|business)\s+")


def _unit_after(folded: str, end: int) -> str | None:
    rest = _UNIT_ADJECTIVE.sub("", folded[end : end + 40].lstrip(" -"))
    for pattern, unit in _UNIT_CLASS:
        if pattern.match(rest):
            return unit
    return None


@lru_cache(maxsize=8192)
def quantities_in(text: str) -> frozenset[tuple[float, str | None]]:
    """Every number a text states with what it counts: ("$10" → (10, "$"), "three years" → (3, "year"))."""
    folded = fold(text)
    found: set[tuple[float, str | None]] = set()
    for m in _FRACTION.finditer(folded):
        value = next(v for k, v in _FRACTION_VALUE.items() if k in m.group(0).lower())
        found.add((2 / 3 if m.group(0).lower().startswith("two") or "dos" in m.group(0).lower() else value, "fraction"))
    folded = _FRACTION.sub(lambda m: " " * len(m.group(0)), folded)
    folded = _BOTH.sub(lambda m: " " * len(m.group(0)), folded)
    for m in _COMPOUND.finditer(folded):
        words = [w for w in re.split(r"[\s-]+", m.group(0).lower()) if w not in ("y", "and")]
        compound = _compound_value(words)
        if compound is not None:
            found.add((compound, _unit_after(folded, m.end())))
            folded = folded[: m.start()] + " " * (m.end() - m.start()) + folded[m.end() :]
    for m in _DIGITS.finditer(folded):
        whole = m.group(1).replace(",", "")
        frac = m.group(2)
        value = float(f"{whole}.{frac}") if frac else float(whole)
        unit = "$" if m.group(0).lstrip().startswith("$") else _unit_after(folded, m.end())
        found.add((value, unit))
    for m in _WORD_NUMBER.finditer(folded):
        word = m.group(1).lower()
        unit = _unit_after(folded, m.end(1))
        if word in _WEAK_NUMBER_WORDS and unit is None:
            continue
        found.add((float(_NUMBER_WORDS[word]), unit))
    return frozenset(found)


_ONE_UNIT: Final = re.compile(r"\b(?:a|an|per|each|every|un|una|cada|al|por)(?=\s+(?:full\s+|calendar\s+)?\w)")


@lru_cache(maxsize=8192)  # entry sentences, re-read for every claim like quantities_in
def _one_of_a_unit(text: str) -> frozenset[tuple[float, str | None]]:
    """ "in a month", "per year", "cada mes" in an entry: one of that unit, as a claim's "one month" says it."""
    folded = fold(text)
    units = (_unit_after(folded, m.end()) for m in _ONE_UNIT.finditer(folded))
    return frozenset((1.0, unit) for unit in units if unit in _IN_HOURS)


def numbers_in(text: str) -> frozenset[float]:
    """Every number a text states (digits, "$10,000", "ten", "diez", "tenth", "one-third")."""
    return frozenset(value for value, _ in quantities_in(text))


def _quantity_stated(quantity: tuple[float, str | None], stated: frozenset[tuple[float, str | None]]) -> bool:
    """A claimed number is stated when the text has it counting the same thing (or with no unit said)."""
    value, unit = quantity
    units = {u for v, u in stated if abs(v - value) < 1e-6}
    if bool(units) and (unit is None or None in units or unit in units):
        return True
    # "two full days (48 hours)", "12 months": the same duration said in another unit is the same number.
    if unit in _IN_HOURS:
        hours = value * _IN_HOURS[unit]
        return any(u in _IN_HOURS and abs(v * _IN_HOURS[u] - hours) < 1e-6 for v, u in stated)
    return False


# Exact conversions only (a month is not a fixed number of days, but twelve of them are a year).
_IN_HOURS: Final = {"hour": 1.0, "day": 24.0, "week": 168.0, "month": 730.0, "year": 8760.0}


_ZERO_COST: Final = re.compile(
    # "no charge was ever filed" is a criminal charge, not a price
    r"\bfree\b|\bno (?:fee|cost|charge)\b(?! (?:was|were|is|has|had|filed|pending|ever))|\bat no (?:cost|charge)\b"
    r"|\bwithout (?:a )?(?:fee|cost|charge)\b(?! (?:being|filed|pending))|\bcosts? nothing\b"
    r"|\bnothing to pay\b|\bwaive[sd]?\b|\bexempt\w*\b|\$\s?0\b|\bgratis\b|\bgratuit\w*|\bsin (?:costo|cargo|cobro)\b"
    r"|\bno cuesta nada\b|\bno (?:se )?cobra\w*\b|\bexent\w*",
    _F,
)
_COST_WORDS: Final = re.compile(
    r"\$\s?\d|\bfees?\b|\bcosts?\b|\bcharges?\b|\bcuota\w*|\btarifa\w*|\bcosto\w*|\bcobr\w*", _F
)

# --------------------------------------------------------------------------------------------
# Polarity and gates
# --------------------------------------------------------------------------------------------

# Negators flip a clause; "bar"-type words are negative in themselves: "does not apply the ban" is
# positive (two negatives), "is barred" negative (one), "doesn't stop you from voting" positive (two).
_NEGATOR: Final = re.compile(
    r"\b(?:not|none|cannot|never|no longer|nunca|jam[aá]s|ya no|ningun[oa]?)\b|n't\b"
    r"|\bno\b(?! (?:divulgaci\w*|contest|later|more than|less than|m[aá]s de|menos de|matter|longer))",
    _F,
)
# Spanish negative concord: "no puede preguntar ni hacer", "no tiene que decir nada" negate once.
_CONCORD: Final = re.compile(r"\b(?:ni|nadie|nada)\b", _F)
_NOR: Final = re.compile(r"^\W*nor\b", _F)  # only a clause that opens with it: "Nor are you eligible"
_CONCORD_NEGATOR: Final = re.compile(r"\b(?:nunca|jam[aá]s|ningun[oa]?)\b", _F)
_PLAIN_NO: Final = re.compile(r"\bno\b(?! (?:divulgaci\w*|contest))", _F)
# "not required", "doesn't have to", "without a hearing", "no tiene que": optional, not forbidden.
_OPTIONAL: Final = re.compile(
    r"\b(?:is|are|be)\s+not\s+(?:required|necessary|needed)\b|\b(?:isn't|aren't)\s+(?:required|necessary|needed)\b"
    r"|\b(?:optional|voluntary|opcional|voluntari[oa])\b"
    r"|\b(?:does|do)\s+not\s+(?:have|need)\s+to\b|\b(?:doesn't|don't)\s+(?:have|need)\s+to\b|\bno need to\b"
    r"|\b(?:without|with no)\s+(?:a|an|one|any)\s+\w+|\bno (?:tiene|tienes|tienen|necesita|necesitas|necesitan) que\b"
    r"|\bno (?:est[aá]n?|estas) obligad\w*|\bno hace falta\b|\bno (?:es|son) necesari\w*|\bsin (?:una?|ninguna?)\s+\w+"
    # "es posible que no haya audiencia": there may be none, i.e. it is not required
    r"|\b(?:es posible que|puede que|quiz[aá]s?)\s+no\s+haya\b",
    _F,
)
_OBLIGATION: Final = re.compile(
    r"\b(?:must|has to|have to|had to|needs? to|is required|are required|shall|debe\w*|tiene que|tienes que|tienen que"
    r"|hay que|est[aá]n? obligad\w*)\b",
    _F,
)
_NEGATIVE_WORD: Final = re.compile(
    r"(?:\b(?:is|are|be|becomes?|was|were|remains?|stays?|still|gets?)|'re|'s)\s+(?:\w+\s+)?"
    r"(?:ineligible|barred|banned|prohibited|disqualified|denied|excluded|refused|rejected|illegal|unlawful)\b"
    r"|\b(?:bans|prohibits?|denies|deny|refuses?|rejects?|excludes?|disqualif(?:y|ies)|loses?|lose)\b"
    r"|\b(?:can|may|must|to|will|would)\s+(?:not\s+)?ban\b"
    # "the ban" and "la prohibición" as nouns negate only where they are applied ("does not apply the ban",
    # "the ban applies for two years"); "states may opt out of the ban" denies nothing to the person.
    r"|\b(?:appl(?:y|ies|ied)|enforces?|imposes?|uses?|used|usa|usan|aplica\w*|impone\w*)\b[^,.;]{0,40}?\b(?:ban|prohibition|prohibici[oó]n)\b"
    r"|\b(?:ban|prohibition|prohibici[oó]n)\b[^,.;]{0,25}?\b(?:appl(?:y|ies)|lasts?|se aplica|aplica|dura)\b"
    r"|\blas? aplica\w*"  # "Texas no la aplica": the ban, said as a pronoun
    r"|\b(?:stops?|keeps?|prevents?|bars?)\s+(?:\w+\s+){0,3}?(?:from|off)\b|\bturns?\s+(?:\w+\s+)?(?:away|down)\b"
    # "is a crime", "is still a felony" — not "is convicted of a crime" (what happened to the person)
    r"|\b(?:is|are|it's|be|remains?|still)\s+(?!(?:convicted|charged|accused|arrested|found guilty|sentenced)\b)"
    r"(?:\w+\s+){0,2}?(?:a crime|an? (?:\w+[- ]){0,2}felony)\b|\bcommits?\s+an?\b"
    r"|\bmakes? (?:it|this|that) an? (?:\w+[- ]){0,2}?(?:crime|felony|offense)\b"
    r"|\b(?:cuts?|stops?|ends?|suspends?)\s+(?:off\s+)?(?:\w+\s+){0,2}?(?:benefits|aid|payments?|coverage|snap|ssi|medicaid)\b"
    r"|\b(?:cort(?:a|an|ar|o|aron|arle|arte)|suspend(?:e|en|er|io|ieron))\s+(?:\w+\s+){0,2}?(?:beneficios|ayuda|pagos|cobertura|snap|ssi|medicaid)\b"
    r"|\bse (?:cortan?|suspenden?|terminan?|detienen?|pierden?)\b|\bleaves?\b[^,.]{0,60}?\bout(?: of)?\b|\bleft out\b"
    r"|\b(?:is|are|gets?|be|been)\s+(?:\w+\s+)?(?:suspended|cut off|stopped|terminated)\b"
    r"|\b(?:benefits|payments|ssi|snap|medicaid|coverage)\s+(?:\w+\s+){0,3}?(?:stop|stops|end|ends|(?:are|is|get|gets) cut)\b"
    r"|\b(?:beneficios?|pagos?|ssi|snap|medicaid|cobertura)\s+(?:se\s+)?(?:termina|terminan|acaba|acaban)\b"
    r"|\b(?:the|this|that|esa|esta|la) (?:rule|regla)\s+(?:does not|doesn't|no)\s+(?:se\s+)?(?:appl\w*|aplic\w*)"
    r"|\b(?:restrictions?|restricci[oó]n|rule|regla)\s+(?:only\s+|solo\s+)?(?:covers?|appl(?:y|ies)|cubre|aplica)\b"
    r"|\bproh[ií]b(?:e|en|ir|ido|ida|idos|idas|irle|irles)\b|\bimpid\w*|\bimpide\w*|\bnieg\w*|\bneg(?:ar|arle|arla|arlo|arse|ado|ada|aci[oó]n)\b|\brechaz(?:a|an|ar|o|ado|ada|arle|arlo|arla|aron)\b(?<!\brechazo)"
    r"|\bexclu[iy]\w*|\bdeja\w* fuera\b|\bpierde\w*|\bperder\b|\bdej(?:ar|a|an|e|en)\s+de\b|\binelegible\w*|\bdescalific\w*"
    r"|\bilegal\b|\b(?:es|son|sigue siendo|seria)\s+(?:\w+\s+){0,2}?un delito\b|\bcomete\w*\s+un\b|\bhace un delito\b",
    _F,
)
# A condition attached to the clause ("if no charges were filed, …", "…, si cumple la Sección 411.074") says
# when the rule applies, not whether it allows: its negations do not flip the clause.
_LEADING_CONDITION: Final = re.compile(
    r"^\s*(?:[^,]{0,30},\s*)?(?:if|when|whenever|si|cuando|even if|aun si|as long as|siempre que)\b[^,]*,\s*", _F
)
# A trailing condition runs to the end, or to the main predicate it sits in front of ("Voting when you know
# you're not eligible | is a crime").
_TRAILING_CONDITION: Final = re.compile(
    r",?\s+\b(?:if|si|when|whether|cuando|as long as|siempre que)\b[^,]*?"
    r"(?=\s+(?:is|are|was|es|son|fue)\s+(?:a|an|un|una|illegal|ilegal|not|no)\b|$)",
    _F,
)
# "without any recommendation", "sin ninguna recomendación": "without" is not a negation of the clause.
_WITHOUT_ANY: Final = re.compile(r"\b(?:sin|without)\s+(?:ningun[oa]?|nada|any)\b|\bwith no\b", _F)


# "deny or cut benefits", "deny, suspend or revoke": coordinated negative verbs negate once.
_COORDINATED: Final = re.compile(r"^\s*(?:,\s*)?(?:or|and|o|y|,)\s+$", _F)


def _negative_words(text: str) -> int:
    count, last_end = 0, -1
    for m in _NEGATIVE_WORD.finditer(text):
        if last_end < 0 or not _COORDINATED.match(text[last_end : m.start()]):
            count += 1
        last_end = m.end()
    return count


# "a person who was not a Texas resident then must live …": the relative clause's "not" is its own.
_RELATIVE_NEGATION: Final = re.compile(
    r"\b(?:who|which|whose|quien(?:es)?)\s+(?:\w+\s+)?(?:not|no|never|nunca)\b|\bwho (?:can't|cannot|don't|doesn't|isn't|aren't|wasn't)\b",
    _F,
)


# "A person who … is not eligible under 411.072 may petition": the relative clause's "not" is its own.
_WHO_BEFORE_MODAL: Final = re.compile(
    r"\b(?:who|quien(?:es)?)\b.*?(?=\b(?:may|can|must|shall|puede|pueden|debe|deben|tiene|tienen)\b)", _F
)


def _negated(text: str) -> bool:
    text = _RELATIVE_NEGATION.sub(" rel ", _OPTIONAL.sub(" optional ", _WITHOUT_ANY.sub("sin", text)))
    if _PLAIN_NO.search(text):  # "no … nunca", "no … ni": one negation
        count = len(_NEGATOR.findall(text)) - len(_CONCORD_NEGATOR.findall(text))
    else:  # "nadie puede", "nunca es posible"
        count = len(_NEGATOR.findall(text)) + len(_CONCORD.findall(text))
    if count == 0 and _NOR.search(text):  # "Nor are you eligible …" negates once
        count = 1
    return (count + _negative_words(text)) % 2 == 1


def _modality(text: str) -> Literal["optional", "obligation", None]:
    if _OPTIONAL.search(text):
        return "optional"
    if _OBLIGATION.search(text) and not _NEGATOR.search(text):
        return "obligation"
    return None


_MID_CONDITION: Final = re.compile(r",\s*(?:if|when|whenever|si|cuando|as long as|siempre que)\b[^,]*,", _F)


# Any other condition segment, up to its comma ("… una carta que diga si la haría no elegible, antes de …").
_INNER_CONDITION: Final = re.compile(
    r"\b(?:if|si|whether|while|mientras(?: que)?)\b[^,]*?(?=,|\s+(?:is|are|was|es|son|fue)\s+(?:a|an|un|una|illegal|ilegal|not|no)\b|$)",
    _F,
)


def _main_part(text: str) -> str:
    """The clause without the conditions attached to it (leading, between commas, trailing, inner)."""
    main = _TRAILING_CONDITION.sub("", _MID_CONDITION.sub(",", _LEADING_CONDITION.sub("", text)))
    main = _INNER_CONDITION.sub(" ", main)
    return main if main.strip() else text


_UNTIL: Final = re.compile(r"\b(?:until|unless|hasta que|hasta|a menos que)\b", _F)
_ONLY_AFTER: Final = re.compile(
    r"\b(?:only\s+(?:\w+\s+){0,3}?(?:after|once|when)|s[oó]lo\s+(?:\w+\s+){0,3}?(?:despu[eé]s de|cuando|una vez que))\b",
    _F,
)
_AFTER: Final = re.compile(
    r"\b(?:only after|only once|only when|after|once|as soon as|when (?:the|your|their|his|her)|solo despu[eé]s de|s[oó]lo despu[eé]s de"
    r"|despu[eé]s de(?: que)?|una vez que|cuando (?:termine[sn]?|cumpla[sn]?|haya[sn]?|salga[sn]?|se|su|tu|la|el))\b(?!\s+\d)",
    _F,
)
_DURING: Final = re.compile(
    # "while you were in jail" tells what happened then; "while you are on parole" is the gate
    r"\b(?:while(?! (?:you|they|he|she) (?:were|was)\b)|during|still on|on (?:parole|probation|mandatory supervision|supervision|community supervision)"
    r"|mientras|durante|todav[ií]a en|a[uú]n en|estando en|aunque (?:est[eé]|siga|todav[ií]a))\b",
    _F,
)
_IMMEDIATE: Final = re.compile(
    r"\b(?:right away|right (?:after|when) (?:you|they) (?:get out|are released|leave)|immediately|at once|automatically"
    r"|as soon as|the (?:day|moment) (?:you|they)|de inmediato|inmediatamente|enseguida|autom[aá]ticamente|en cuanto"
    r"|tan pronto como|el d[ií]a (?:que|en que)"
    r"|without (?:having to |any )?wait(?:ing)?(?: period)?|no waiting period|with no wait(?:ing period)?"
    r"|sin (?:tener que |necesidad de )?esperar|sin (?:ning[uú]n )?(?:plazo|periodo|per[ií]odo) de espera)\b",
    _F,
)
_ANCHOR_STOP: Final = re.compile(
    r",|;|\bwhich\b|\bincluding\b|\bincluded\b|\bincluye\w*|\bincluid\w*|\bque incluye|\band\b(?= (?:a|the|any)\b)", _F
)


@dataclass(frozen=True)
class Stance:
    """What a clause asserts, reduced to what the checker compares."""

    negated: bool
    gate: Literal["after", "during", "immediate", None]
    anchor: frozenset[str]  # content stems of the gate's condition ("the whole sentence is fully discharged")
    strong: bool = False  # "not ... until X", "only after X": X is required, not just a point in time
    permits: bool = False  # says something is allowed ("can vote", "is eligible", "puede votar")
    negated_full: bool = False  # the polarity read with its conditions left in ("if no charges were filed")
    modality: Literal["optional", "obligation", None] = None  # "doesn't have to" / "must"
    condition: frozenset[str] = frozenset()  # stems of the clause's own if/when condition
    head: frozenset[str] = frozenset()  # stems of what is denied before "until"/"unless"
    conditional: bool = False  # the clause states a condition of its own (if, when, until, unless)
    states_status: bool = False  # "still counts", "applies", "sigue contando": a status said to hold
    discretion: frozenset[str] = frozenset()  # verbs after "may"/"puede": "a judge may reduce or end it"
    obliged: frozenset[str] = frozenset()  # verbs after "must"/"has to"/"tiene que": "the judge has to end it"
    decides: bool = False  # "the panel decides whether", "up to the judge": explicitly a decision
    general: bool = False  # "usually", "por lo general": a rule of thumb, not an absolute


def _anchor(text: str, start: int) -> frozenset[str]:
    rest = text[start:]
    stop = _ANCHOR_STOP.search(rest)
    chunk = rest[: stop.start()] if stop else rest
    return frozenset(list(content_stems(" ".join(chunk.split()[:7]))))


_PERMISSION: Final = re.compile(
    r"\b(?:can|may)\b(?!\s+(?:need|have to|require|ask|also need))|\b(?:is|are|be|becomes?)\s+(?:\w+\s+)?(?:eligible|allowed|entitled|qualified)\b"
    r"|\bqualif(?:y|ies)\b|\bright to\b|\brights? back\b|\brestor\w*|\bpuede\w*\b(?!\s+(?:necesitar|tener que|pedir))|\bpodr[aá]\w*|\belegible\w*|\bderecho a\b|\bcalific\w*",
    _F,
)
_LEAD: Final = re.compile(r"^\W*(?:not yet|yes|no|sure|todav[ií]a no|a[uú]n no|s[ií])\s*[:,.\u2014-]\s*", _F)


_DURATION_BEFORE: Final = re.compile(
    r"(?:\d+|\b[a-z]+)[- ](?:days?|weeks?|months?|years?|dias?|semanas?|meses|anos?)\s*$", _F
)


_CONDITION_WORD: Final = re.compile(
    r"\b(?:if|when|until|unless|except|si|cuando|hasta|salvo|excepto|a menos que|siempre que)\b", _F
)
_STATUS_VERB: Final = re.compile(
    r"\b(?:counts?|applies|apply|holds?|remains?|cuenta|cuentan|aplica|aplican|sigue\w*)\b", _F
)
_CONDITION_PART: Final = re.compile(r"\b(?:if|when|whenever|si|cuando|as long as|siempre que)\b[^,]*", _F)


_DISCRETION: Final = re.compile(
    r"\b(?:may|puede|pueden|podra|podran)\s+(?!(?:not|no)\b)(?:(?:also|still|then|tambien)\s+)?([a-z]+)"
    r"(?:\s+(?:or|o)\s+([a-z]+))?",
    _F,
)
_OBLIGED: Final = re.compile(
    r"\b(?:must|has to|have to|tiene que|tienen que|debe|deben|(?:is|are) (?:required|obligated) to|est[aá]n? obligad[oa]s? a)"
    r"\s+(?:(?:also|still|then|first|tambien|primero)\s+)?([a-z]+)",
    _F,
)
_COPULA: Final = frozenset({"be", "ser", "estar", "have", "haber", "tener", "get"})


def _verbs(pattern: re.Pattern[str], text: str) -> frozenset[str]:
    """Stems of the verbs a modal governs ("may reduce or end" -> reduc, end); a copula says nothing."""
    return frozenset(stem(v) for m in pattern.finditer(text) for v in m.groups() if v and v.lower() not in _COPULA)


_DECIDES: Final = re.compile(
    r"(?<!\bto )(?<!\bpara )\bdecides? (?:if|whether)\b|(?<!\bpara )\bdecide si\b|\bup to (?:the|a) (?:judge|court|panel|board)\b|\bdiscreti\w*|\bdiscrecion\w*"
    r"|\bdepende del? (?:juez|panel|tribunal)\b",
    _F,
)
_GENERALLY: Final = re.compile(
    r"\b(?:usually|generally|in general|typically|normally|as a rule|por lo general|normalmente|generalmente|en general)\b",
    _F,
)
_AFFIRMATIVE_SI: Final = re.compile(r"\bs[íÍ]\b")  # "sí puede" is emphasis; folded, it would read as "if"


@lru_cache(maxsize=8192)
def stance_of(text: str) -> Stance:
    """Read a clause's polarity and gate: "not ... until X" and "only after X" are both "after X"."""
    t = _LEAD.sub("", fold(_AFFIRMATIVE_SI.sub(" ", text)))
    main = _main_part(t)
    until = _UNTIL.search(t)
    return replace(
        _stance(t),
        permits=bool(_PERMISSION.search(main)),
        negated_full=_negated(t[: until.start()] if until else t),
        modality=_modality(main),
        condition=frozenset().union(*(content_stems(m.group(0)) for m in _CONDITION_PART.finditer(t))),
        head=content_stems(t[: until.start()]) if until else content_stems(main),
        conditional=bool(_CONDITION_WORD.search(t)),
        states_status=bool(_STATUS_VERB.search(main)),
        discretion=frozenset() if _negated(main) else _verbs(_DISCRETION, main),
        obliged=_verbs(_OBLIGED, main),
        decides=bool(_DECIDES.search(t)),
        general=bool(_GENERALLY.search(t)),
    )


# "must have fully discharged the sentence", "debe haber cumplido toda la sentencia": only after it is done.
_COMPLETED: Final = re.compile(
    r"\b(?:must|needs? to|has to|have to|debe|tiene que|tienes que)\s+(?:have|haber)\s+(?:\w+\s+)?"
    r"(?:discharged|completed|finished|served|done|cumplido|terminado|completado)\b",
    _F,
)
# "even if you're still on probation": said to hold during what the entry requires to be over.
_EVEN_DURING: Final = re.compile(
    r"\b(?:even if|even while|aunque|aun si)\b[^,]{0,30}\b(?:still|todav[ií]a|a[uú]n)\b", _F
)


def _stance(t: str) -> Stance:  # noqa: PLR0911 - one return per kind of gate, in order of precedence
    even = _EVEN_DURING.search(t)
    if even and not _negated(_main_part(t)):
        return Stance(False, "during", content_stems(t[even.end() :]))
    completed = _COMPLETED.search(t)
    if completed and not _negated(t[: completed.start()]):
        return Stance(False, "after", _anchor(t, completed.end()), strong=True)
    until = _UNTIL.search(t)
    after = next((m for m in _AFTER.finditer(t) if not _DURATION_BEFORE.search(t[: m.start()])), None)
    head = _main_part(t[: until.start()] if until else t)
    # "A person who … is not eligible under 411.072 may petition …": the relative clause's "not" is its own.
    negated = _negated(_WHO_BEFORE_MODAL.sub(" ", head))
    if until and negated:
        return Stance(False, "after", _anchor(t, until.end()), strong=True)
    if _IMMEDIATE.search(t):
        return Stance(negated, "immediate", frozenset())
    only = _ONLY_AFTER.search(t)
    if only:
        return Stance(negated, "after", _anchor(t, only.end()), strong=True)
    if after:
        return Stance(negated, "after", _anchor(t, after.end()))
    during = _DURING.search(t)
    if during:
        return Stance(negated, "during", _anchor(t, during.end()) or content_stems(t[during.start() :]))
    return Stance(negated, None, frozenset())


_POLAR_WORDS: Final = re.compile(
    r"\b(?:can|cannot|can't|may|must|eligible|ineligible|qualif\w*|allowed|entitled|barred|banned|prohibit\w*|requires?"
    r"|required|counts?|restor\w*|lets?|allows?|bars?|get|gets|vote|until|after|only|right|ha(?:ve|s) to|needs? to"
    r"|treated as|considered|considerad\w*|se considera|tratad\w* como|obligat\w*|obligad\w*|optional|opcional"
    r"|puede\w*|podr\w*|debe\w*|tiene\w* que|elegible\w*|calific\w*|permit\w*|prohib\w*|cuenta|requier\w*|devuelve\w*"
    r"|hasta|despu[eé]s|solo|s[oó]lo|derecho|decides? (?:if|whether)|decide si)\b",
    _F,
)


def _has_polarity(text: str) -> bool:
    folded = fold(text)
    return bool(_POLAR_WORDS.search(folded) or _NEGATOR.search(folded) or _NEGATIVE_WORD.search(folded))


def asserts_something(text: str) -> bool:
    """A cited sentence worth checking: a number, a cost, a can/cannot/must, or three content words."""
    return (
        bool(numbers_in(text))
        or _has_polarity(text)
        or bool(_ZERO_COST.search(fold(text)))
        or len(content_stems(text)) >= 3
    )


RESTATES_MIN_WORDS: Final = 4
RESTATES_SHARE: Final = 0.5
RESTATES_PLAIN_WORDS: Final = 6
RESTATES_PLAIN_SHARE: Final = 0.6


def restates_entry(text: str, entries: Iterable[str]) -> bool:
    """An uncited sentence that says what an entry says (most of its content words are the entry's) and
    asserts something (a number, a can/cannot/must): a rule stated without its citation."""
    asserting = bool(numbers_in(text) or _has_polarity(text) or _ZERO_COST.search(fold(text)))
    stems = content_stems(text)
    if len(stems) < RESTATES_MIN_WORDS:
        return False
    for entry in entries:
        shared = len(stems & content_stems(entry))
        if asserting and shared >= RESTATES_MIN_WORDS and shared / len(stems) >= RESTATES_SHARE:
            return True
        # "Food banks under TEFAP use the state's income rules": a plain statement that is the entry's own.
        if shared >= RESTATES_PLAIN_WORDS and shared / len(stems) >= RESTATES_PLAIN_SHARE:
            return True
    return False


def _compare(claim: Stance, support: Stance) -> str | None:  # noqa: PLR0911 - one return per kind of disagreement
    """Return why the claim contradicts the support span, or None when they agree."""
    if support.gate == "after" and support.strong:
        if claim.gate == "after":
            restated = len(claim.head & support.anchor) >= min(2, len(support.anchor))
            if support.anchor and claim.anchor and not (claim.anchor & support.anchor) and not restated:
                return "states a different condition than the entry"
            return None
        if claim.gate in ("during", "immediate") and not claim.negated:
            return "says it is allowed before the condition the entry sets is met"
        if claim.gate is None and not claim.negated and claim.permits:
            return "leaves out the condition the entry sets (only after it is met)"
        if (
            claim.gate is None
            and not (claim.negated_full or claim.permits or claim.conditional or claim.modality)
            and claim.states_status
            and support.negated_full
        ):
            # "An expunged conviction still counts" against "a conviction does not count if …, unless …"
            return "says it holds where the entry says it does not (unless a condition is met)"
        return None
    if claim.gate == "immediate" and not claim.negated and support.gate != "immediate":
        return "says 'right away' or 'automatically', which the entry does not say"
    if support.gate == "after" and claim.gate in ("during", "immediate") and not claim.negated:
        return "says it is allowed before the condition the entry sets is met"
    if {claim.modality, support.modality} == {"optional", "obligation"}:
        return "says it is required where the entry says it is not (or the reverse)"
    if (
        claim.modality == "obligation"
        and not (claim.negated or claim.general)
        and claim.obliged & support.discretion
        and support.modality is None
    ):
        return "says it is required where the entry leaves it to a decision ('may')"
    if claim.decides and support.modality == "obligation" and not support.negated:
        return "leaves to a decision what the entry says must happen"
    if (
        claim.negated != support.negated
        and claim.negated_full != support.negated_full
        and (claim.gate in (None, "after") or (claim.gate == "during" and support.gate in (None, "during")))
        and (support.gate != "during" or claim.gate == "during")
        and not support.strong
    ):
        return "says the opposite of the entry"
    return None


# The events a rule's clock or condition runs from: "within a year of your arrest" is not "of your conviction".
_EVENTS: Final = (
    ("arrest", re.compile(r"\barrest\w*|\barrest[oa]\w*|\bdetenci[oó]n\b", _F)),
    ("conviction", re.compile(r"\bconvict(?:ed|ion|ions)\b|\bconden(?:a|ado|ada|aron)\b", _F)),
    (
        "release",
        re.compile(
            r"\breleas\w*|\bget(?:ting|s)? out\b|\bwalk out\b|\bsalida\b|\bsal(?:e|ga|gas|io|i[oó]|ir)\b|\bliberad\w*|\bliberaci[oó]n\b",
            _F,
        ),
    ),
    (
        "discharge",
        re.compile(r"\bdischarg\w*|\bcumpl(?:a|ido|ir)\s+(?:toda|la|su)\s+(?:la\s+)?(?:sentencia|condena)", _F),
    ),
    ("dismissal", re.compile(r"\bdismiss\w*|\bdesestim\w*", _F)),
    ("eviction", re.compile(r"\bevict\w*|\bdesaloj\w*", _F)),
    ("acquittal", re.compile(r"\bacquit\w*|\babsol\w*|\babsuel\w*", _F)),
)
# When a notice's clock starts: when it is sent, or when the person has it in hand. Read by _clock_finding beside
# a quantity only, never as events of their own ("receiving an abstract" is not the person's receipt).
_NOTICE_EVENTS: Final = (
    (
        "mailing",
        re.compile(
            r"\b(?:it|the notice|el aviso|la notificaci[oó]n) (?:is|was) (?:mailed|sent)\b|\bmailing\b|\bse (?:le )?(?:envi[oó]|env[ií]a)\b|\benviad[oa]\b",
            _F,
        ),
    ),
    (
        "receipt",
        re.compile(
            r"\b(?:get|gets|got|receive|receives|received) (?:it|the notice)\b|\b(?:la|lo) recib\w*|\b(?:le|te) llegue\b",
            _F,
        ),
    ),
)
_UNIVERSAL: Final = re.compile(
    r"\b(?:everyone|everybody|any person|all (?:people|persons)|no matter|regardless|even if|even though|even a|whatever"
    r"|any (?:crime|offense|conviction|felony|misdemeanor|length|amount)|cualquier (?:delito|condena|tiempo)|aunque"
    r"|even without|cualquier(?:a)?(?: persona)?|todas las personas|todo el mundo|sin importar|aun si|aunque no)\b",
    _F,
)
_CONDITIONAL: Final = re.compile(
    r"\b(?:if|unless|(?<!-)only|provided|more than|at least|punishable by|si|salvo|solo|s[oó]lo|siempre que|m[aá]s de|por lo menos"
    r"|al menos)\b",
    _F,
)
# Who or what a rule covers, said as "all of them": "anyone with a felony", "any conviction", "todo hogar",
# "ningún empleador". Such a claim needs the entry to say it of all too, not of some.
_ALL_COVERED: Final = re.compile(
    r"\b(?:anyone|anybody|everyone|everybody|no one|nobody|whoever"
    r"|(?:all|every|any)\s+(?:\w+\s+)?(?:people|persons?|households?|applicants?|employers?|landlords?|crimes?"
    r"|offen[cs]es?|convictions?|felon(?:y|ies)|misdemeanors?|cases?|arrests?|dismissals?|drug \w+|relatives?|members?"
    r"|evictions?|positions?|jobs?)"
    r"|no matter (?:how|what|which|when|who)|regardless of|at any time|ever been"
    r"|cualquier(?:a)?\s+(?:\w+\s+)?(?:persona|hogar|delito|condena|arresto|empleador|familiar|caso|miembro|desalojo"
    r"|puesto|trabajo|empleo)|ning[uú]n (?:puesto|trabajo|empleo|desalojo)"
    r"|tod[oa]s? (?:las? |los )?(?:personas?|hogar(?:es)?|empleador(?:es)?|solicitantes?|delitos?|condenas?)"
    r"|ning[uú]n(?:a)?\s+(?:persona|empleador|hogar|delito|condena)|nadie|sin importar|alguna vez)\b",
    _F,
)
# What limits whom a rule covers: "only", "if", "unless", "who …", "lifetime", "within a year", "directly".
_LIMITED: Final = re.compile(
    r"\b(?:only|unless|except|if|who|whose|lifetime|within|directly|certain|specific|solo|s[oó]lo|solamente"
    r"|[uú]nicamente|salvo|excepto|a menos que|si|quien(?:es)?|de por vida|dentro de|directamente|cierto?s?|ciertas?"
    r"|que (?:tenga|tengan|est[eé]n?|haya|hayan|sea|sean|viole|violen|cumpla|cumplan)"
    r"|related|relacionad[oa]s? con|drug-related|for drug|por drogas|ligad[oa]s? a)\b",
    _F,
)


# "a blanket ban on hiring anyone", "una regla de no contratar a nadie": the "all" is what a policy says,
# not whom the rule covers.
# "even if you are locked up for not paying support", "aunque el tribunal le haya ordenado supervisión": the
# claim says the rule holds in that case too, so the entry must not set that case apart.
_CONCESSION: Final = re.compile(
    r"\b(?:even if|even when|even while|not even (?:for|when|if|in)|aunque|aun si|aun cuando|incluso si"
    r"|ni siquiera (?:para|cuando|si|en)|incluso cuando)\b([^,;.\[]*)",
    _F,
)
_EXCLUSION: Final = re.compile(
    r"\b(?:except|unless|other than|excluded|excludes?|does not apply|doesn't apply|not apply|not if|salvo|excepto"
    r"|a menos que|se excluyen?|excluid\w*|no se aplica|no aplica|no si|but not (?:for|to|if|when|in)"
    r"|pero no (?:para|a|si|cuando|en)|ni para|cannot be|can't be|no puede ser|se cierra|is closed|closes)\b",
    _F,
)
CONCESSION_SHARED: Final = 2
# A single shared word is enough when it is what the exclusion names ("se excluyen los delitos violentos").
_EXCLUDED_SPAN: Final = 60
# "aunque sea por un delito menor" against an entry that names only felonies.
_MISDEMEANOR: Final = re.compile(r"\b(?:misdemeanou?rs?|delitos? menor(?:es)?|class [abc]\b|clase [abc]\b)", _F)
_FELONY_ONLY: Final = re.compile(r"\b(?:felon(?:y|ies)|delitos? graves?)\b", _F)


def _concession_finding(claim: str, units: Sequence[str], record: EvidenceRecord) -> ClaimCheck | None:
    """ "Even if X" against an entry that names X as an exception (unless, except, does not apply, salvo)."""
    claim_f = fold(claim)
    # "Se excluyen muchos delitos, …, y casos con hallazgo de violencia familiar": the clause that names the
    # case has lost the word that excludes it, so whole sentences are read too.
    units = [*units, *_entry_sentences(claim, record)]
    rest = _CONCESSION.sub(" ", claim_f)  # the rule itself, without any of its "even if" clauses
    claim_negated = _negated(_main_part(rest))
    whole = fold(" ".join(entry_texts(record)))
    for m in _CONCESSION.finditer(claim_f):
        if _MISDEMEANOR.search(m.group(1)) and _FELONY_ONLY.search(whole) and not _MISDEMEANOR.search(whole):
            return ClaimCheck(
                "contradicted", claim, record.slug, "says it holds for a misdemeanor; the entry names felonies"
            )
        wanted = content_stems(m.group(1))
        if not wanted:
            continue
        for unit in units:
            unit_f = fold(unit)
            excluded = _EXCLUSION.search(unit_f)
            if excluded is None:
                continue
            # "can't pay, not even for X" against "cannot pay … except for X": the same rule, its exception denied.
            # A negated claim against an affirmative rule is another rule; it is left to the other checks.
            if claim_negated and not _negated(_main_part(unit_f[: excluded.start()])):
                continue
            shared = wanted & content_stems(unit_f)
            named = wanted & content_stems(unit_f[excluded.end() : excluded.end() + _EXCLUDED_SPAN])
            # one word named right after the exclusion, when it is most of what the concession says
            if len(shared) >= CONCESSION_SHARED or (named and 2 * len(named) >= len(wanted)):
                return ClaimCheck(
                    "contradicted", claim, record.slug, "says it holds even in a case the entry excludes", unit
                )
    return None


_POLICY_BEFORE: Final = re.compile(
    r"\b(?:bans?|policy|policies|rules?|practices?|reglas?|pol[ií]ticas?|prohibici[oó]n|pr[aá]cticas?)\b[^,.;]{0,40}$",
    _F,
)


# "any crime that needs registration": a relative clause right after the "all" is the limit itself.
_RELATIVE_AFTER: Final = re.compile(r"^\s+(?:that|which|who|whose|que|quien(?:es)?)\b", _F)


def _covers_all(text: str) -> bool:
    return any(
        not _POLICY_BEFORE.search(text[: m.start()]) and not _RELATIVE_AFTER.match(text[m.end() :])
        for m in _ALL_COVERED.finditer(text)
    )


def _scope_finding(claim: str, units: Sequence[str], record: EvidenceRecord) -> ClaimCheck | None:
    """ "Anyone with a drug felony" against an entry whose matching text covers only some (only, if, who)."""
    claim_f = fold(claim)
    if not _covers_all(claim_f):
        return None
    spans = _candidates(claim, units)
    if not spans:
        return None
    near = [span[2] for span in spans if span[0] >= NEAR_BEST * spans[0][0]]
    if any(_ALL_COVERED.search(fold(unit)) for unit in near):
        return None  # the entry says it of all as well
    limited = next((unit for unit in near if _LIMITED.search(fold(unit))), None)
    if limited is None:
        return None
    return ClaimCheck(
        "contradicted", claim, record.slug, "says it of everyone; the entry limits whom it covers", limited
    )


# "as the only proof", "by itself": enough alone, where the entry asks for something more.
_ALONE: Final = re.compile(
    r"\b(?:[uú]nic[oa]|only (?:proof|document|thing|id)|by itself|on its own|alone|por s[ií] sol[oa])\b", _F
)
_ALSO: Final = re.compile(r"\b(?:also|as well|plus|tambi[eé]n|adem[aá]s)\b", _F)
_WITHOUT: Final = re.compile(r"\b(?:without (?:any|a|an|the)?|with no|sin (?:ningun[oa]?|la|el|una?)?)\s*\w+", _F)
_ONLY_WITH: Final = re.compile(r"\b(?:only (?:with|on|upon)|s[oó]lo con|but only|pero s[oó]lo|pero solo)\b", _F)
_EXCEPT_HOME: Final = re.compile(r"\b(?:anywhere|cualquier lugar|en todas partes)\b", _F)


# Where a clock starts: "within one year of your arrest", "for three years after any drug conviction".
_TIME_ANCHOR: Final = re.compile(
    r"\b(?:after|from|since|following|of|upon|despu[eé]s de(?: que)?|desde|tras|a partir de|contad\w+ desde|de (?:su|la|el))"
    r"\s+((?:\S+\s+){0,5}\S+)",
    _F,
)


def _events(text: str) -> frozenset[str]:
    """The events named where a time reference starts ("… of your arrest" → arrest), not the person's status."""
    anchors = " | ".join(m.group(1) for m in _TIME_ANCHOR.finditer(text))
    return frozenset(name for name, pattern in _EVENTS if pattern.search(anchors))


def _time_quantities(text: str) -> frozenset[tuple[float, str | None]]:
    return frozenset(q for q in quantities_in(text) if q[1] in ("day", "week", "month", "year", "hour"))


_ANY_AGE: Final = re.compile(
    r"\b(?:whatever (?:their|your|his|her) age|any age|no matter (?:their|your|how) (?:age|old)|sin importar (?:la|su|tu) edad|cualquier edad)\b",
    _F,
)
_AGE_LIMIT: Final = re.compile(
    r"\b(?:under|over|at least|younger than|older than|menos de|m[aá]s de|mayor(?:es)? de|menor(?:es)? de)\s+\d+|\b\d+ (?:years old|a[nñ]os de edad)|\bage\b|\bedad\b",
    _F,
)


def _entry_finding(claim: str, record: EvidenceRecord) -> ClaimCheck | None:
    """What the claim names that the entry never does: an event its clock runs from, an age limit it drops."""
    claim_f, whole = fold(claim), fold(" ".join(entry_texts(record)))
    # "release" and "discharge" are said many ways ("get out", "reenter"); these four are not.
    named = frozenset(
        name for name, pattern in _EVENTS if name not in ("release", "discharge") and pattern.search(claim_f)
    )
    missing = sorted(name for name in named if not dict(_EVENTS)[name].search(whole))
    if missing and content_stems(claim) & content_stems(whole):
        return ClaimCheck("contradicted", claim, record.slug, f"names {', '.join(missing)}, which the entry does not")
    if _ANY_AGE.search(claim_f) and _AGE_LIMIT.search(whole):
        return ClaimCheck("contradicted", claim, record.slug, "says any age; the entry sets an age limit")
    return None


def _condition_conflict(claim: str, support: str) -> str | None:
    """Compare what each clause's rule runs from and when: events, a waiting period, a dropped condition."""
    claim_f, support_f = fold(claim), fold(support)
    claim_events, support_events = _events(claim_f), _events(support_f)
    if claim_events and support_events and not (claim_events & support_events):
        return (
            f"counts from {', '.join(sorted(claim_events))}; the entry counts from {', '.join(sorted(support_events))}"
        )
    claim_stance = stance_of(claim)
    if (
        claim_stance.gate == "immediate"
        and not claim_stance.negated
        and stance_of(support).gate != "immediate"
        and _time_quantities(support_f)
    ):
        return "says 'as soon as'; the entry sets a waiting period"
    if (
        _UNIVERSAL.search(claim_f)
        and _CONDITIONAL.search(support_f)
        and not _CONDITIONAL.search(_UNIVERSAL.sub(" ", claim_f))
    ):
        return "states without its condition what the entry allows only in some cases"
    if _ALONE.search(claim_f) and _ALSO.search(support_f):
        return "says it is enough by itself; the entry asks for more"
    return None


# "even if you haven't been convicted yet", "aunque no te hayan condenado": a condition said not to matter.
_EVEN_WITHOUT: Final = re.compile(
    r"\b(?:even if|even though|aunque|aun si|aun cuando)\s+(?:you|they|he|she|the person|usted|t[uú]|la persona)?\s*"
    r"(?:have not|haven't|has not|hasn't|were not|weren't|was not|wasn't|are not|aren't|did not|didn't|no)\s+"
    r"(?:te\s+|le\s+|lo\s+|la\s+|se\s+)?(?:yet\s+|been\s+|get\s+|hayas?\s+|hayan\s+|has\s+|han\s+|sido\s+|estado\s+)*"
    r"(?P<what>(?:\w+\s*){1,4})",
    _F,
)


# "whether or not they're imprisoned", "sin importar cuántos empleados tenga", "sea o no …": the same, said outright.
_WHETHER_OR_NOT: Final = re.compile(
    r"\b(?:whether or not|regardless of whether|no matter (?:whether|if|how many)|sin importar (?:si|cu[aá]nt[oa]s?)"
    r"|(?:sea|est[eé]|haya) o no)\s+(?:(?:you|they|he|she|it)(?:'re| are| is| were| was)?\s+)?(?P<what>(?:\w+\s*){1,3})",
    _F,
)
# "and there are no exceptions", "sin excepción": against an entry that names exceptions.
_NO_EXCEPTIONS: Final = re.compile(
    r"\b(?:(?:there are|with) no exceptions?|no exceptions?|without (?:any )?exceptions?|sin (?:ninguna )?excepci[oó]n(?:es)?"
    r"|no hay (?:ninguna )?excepci[oó]n(?:es)?)\b",
    _F,
)
_ENTRY_EXCEPTION: Final = re.compile(
    r"\b(?:unless|except\w*|exemption|salvo|excepto|excepci[oó]n\w*|a menos que|does not apply|no se aplica)\b", _F
)


def _waived_condition_finding(claim: str, units: Sequence[str], record: EvidenceRecord) -> ClaimCheck | None:
    """ "…, even if you haven't been convicted of anything yet" against an entry whose rule runs on the
    conviction: the draft says a condition the entry names does not matter."""
    folded = fold(claim)
    if _NO_EXCEPTIONS.search(folded) and any(_ENTRY_EXCEPTION.search(fold(unit)) for unit in units):
        return ClaimCheck("contradicted", claim, record.slug, "says there are no exceptions; the entry names some", "")
    match = _EVEN_WITHOUT.search(folded) or _WHETHER_OR_NOT.search(folded)
    if not match:
        return None
    named = _case_stems(match.group("what")) - _NOBODY_STEMS
    for unit in units:
        folded_unit = fold(unit)
        if named & _case_stems(unit) and (_CONDITIONAL.search(folded_unit) or _AFTER.search(folded_unit)):
            return ClaimCheck(
                "contradicted", claim, record.slug, "says a condition the entry sets does not matter", unit
            )
    return None


def _requirement_finding(claim: str, units: Sequence[str], record: EvidenceRecord) -> ClaimCheck | None:
    """ "Without any recommendation" against an entry that allows it "only with" that recommendation."""
    without = _WITHOUT.search(fold(claim))
    if not without:
        return None
    needed = content_stems(fold(claim)[without.end() - len(without.group(0).split()[-1]) :][:60])
    for unit in units:
        only = _ONLY_WITH.search(fold(unit))
        if only and needed & content_stems(fold(unit)[only.start() :]):
            return ClaimCheck("contradicted", claim, record.slug, "says it needs no requirement the entry sets", unit)
    return None


# --------------------------------------------------------------------------------------------
# The check
# --------------------------------------------------------------------------------------------

MIN_SHARED_STEMS: Final = 2
MIN_COVERAGE: Final = 0.34
# Paraphrase tolerance: a claim whose words are spread over the entry's excerpt and summaries is supported
# when this share of its content words is there (no single sentence need hold them all).
MIN_ENTRY_COVERAGE: Final = 0.5
MIN_ENTRY_SHARED: Final = 3
# Wrong entry: another retrieved entry holds this much more of the claim than the cited one does.
WRONG_ENTRY_MARGIN: Final = 0.25
WRONG_ENTRY_FLOOR: Final = 0.5
NEAR_BEST: Final = 0.75

# A clause ends at ";", ":", a dash, or a comma/"and" that starts a new predicate ("…, and it is issued within
# 90 days", "…, diciendo que no hay motivo"): each clause is compared with its own best support.
_CLAUSE_BREAK: Final = re.compile(
    r"\s*;\s*|\s*:\s+|\s+[\u2014\u2013]\s+|\s+--?\s+"
    r"|,\s+(?=(?:or|o)\s+(?:must|may|can|has|have|debe|deben|puede|pueden|ha|haya)\b)"
    r"|,\s+(?=(?:and|but|so|plus|y|pero|as[ií] que|diciendo|explicando|adem[aá]s|because|porque|mientras que|either|saying|explaining|stating|though|although)\b)"
    # ", aunque …" is "although" (its own clause), unless it is "even while still …" ("aunque todavía esté …")
    # and unless it is a short aside ("…, aunque sea vieja, por …")
    r"|,\s+(?=aunque\b(?![^,]{0,30}\b(?:todav[ií]a|a[uú]n)\b)(?![^,]{0,25},))"
    r"|\s+(?=(?:and|but|y|pero)\s+(?:does not|do not|doesn't|don't|must|may|can|cannot|can't|will|it|they|then"
    r"|debe|deben|puede|pueden|no|also|tambi[eé]n|luego|se (?:puede|pueden|debe|deben))\b)",
    _F,
)


# A claim's ", which is one reason …" is its own clause; in an entry, "…, which includes parole" still
# belongs to the rule it qualifies ("not … until the sentence is discharged, which includes parole").
_RELATIVE_BREAK: Final = re.compile(r",\s+(?=which\b)", _F)


def clauses_of(text: str, *, claim: bool = False) -> list[str]:
    """Split a sentence (or an entry text) into clauses: the unit the checker compares."""
    parts: list[str] = []
    for sentence in sentences_of(text):
        # "If it did not do that and then rejects you, it must …": a leading condition runs to its comma,
        # so its "and then" does not start a clause of its own.
        lead = _CONDITION_HEAD.match(sentence)
        chunks = _CLAUSE_BREAK.split(sentence[lead.end() :] if lead else sentence)
        if lead and chunks:
            chunks[0] = sentence[: lead.end()] + " " + (chunks[0] or "")
        for chunk in chunks:
            pieces = _RELATIVE_BREAK.split(chunk) if claim and chunk else [chunk]
            parts.extend(c.strip(" ,.") for c in pieces if c and c.strip(" ,."))
    return parts


_CONDITION_HEAD: Final = re.compile(r"^\W*(?:if|when|whenever|si|cuando)\b[^,;:]{0,120},", _F)


def _asserting(clause: str) -> bool:
    folded = fold(clause)
    return _has_polarity(clause) or bool(quantities_in(clause)) or bool(_ZERO_COST.search(folded))


def entry_texts(record: EvidenceRecord) -> tuple[str, ...]:
    """The reviewed texts a claim may rest on: the source excerpt and the summaries (never the caveat)."""
    return tuple(t for t in (record.excerpt, record.summary, *record.summaries) if t)


def _score(claim_stems: frozenset[str], text: str) -> tuple[float, int]:
    shared = claim_stems & content_stems(text)
    return (len(shared) / len(claim_stems) if claim_stems else 0.0), len(shared)


def _candidates(claim: str, units: Sequence[str]) -> list[tuple[float, int, str]]:
    claim_stems = content_stems(claim)
    scored: list[tuple[float, int, str]] = []
    if not claim_stems:
        return scored
    for unit in units:
        coverage, shared = _score(claim_stems, unit)
        if shared >= min(MIN_SHARED_STEMS, len(claim_stems)) and coverage >= MIN_COVERAGE:
            scored.append((coverage, shared, unit))
    # Ties go to the unit most about the claim (fewest other words), then to the entry's own order.
    scored.sort(key=lambda item: (-item[0], -item[1], len(content_stems(item[2]))))
    # Of two equally good units where one is part of the other (a clause of its sentence), the part is
    # the closer support: "and must check registration …" rather than the whole sentence around it.
    top = [item for item in scored if item[:2] == scored[0][:2]] if scored else []
    inner = [item for item in top if any(other is not item and other[2] in item[2] for other in top)]
    return [item for item in scored if item not in inner]


def entry_coverage(claim: str, record: EvidenceRecord) -> float:
    """The share of the claim's content words found anywhere in the entry's excerpt and both summaries."""
    claim_stems = content_stems(claim)
    if not claim_stems:
        return 0.0
    stems = frozenset().union(*(content_stems(t) for t in entry_texts(record)))
    return len(claim_stems & stems) / len(claim_stems)


_ES_WORDS: Final = re.compile(
    r"\b(?:el|la|los|las|que|de|del|una?|por|para|con|puede|debe|tiene|est[aá]|son|se|puedes|debes|tienes|est[aá]s|est[eé]s"
    r"|eres|tus?|mientras|tambi[eé]n|cuando|hasta|pero|y|sin|desde|s[ií])\b",
    _F,
)
_EN_WORDS: Final = re.compile(
    r"\b(?:the|that|of|to|and|a|an|for|with|can|must|has|have|is|are|be|you|your|if|when|while|until|after|but|or|they)\b",
    _F,
)


def language_of(text: str) -> str:
    """'es' or 'en' by function words (good enough to pair a claim with the entry text in its language)."""
    return "es" if len(_ES_WORDS.findall(text)) > len(_EN_WORDS.findall(text)) else "en"


def _number_finding(claim: str, record: EvidenceRecord, whole: str) -> ClaimCheck | None:
    stated = quantities_in(whole) | _one_of_a_unit(whole)
    missing = sorted({q[0] for q in quantities_in(claim) if not _quantity_stated(q, stated)})
    if missing:
        shown = ", ".join(f"{n:.3g}" for n in missing)
        return ClaimCheck("contradicted", claim, record.slug, f"states {shown}, which the entry does not say")
    if _ZERO_COST.search(fold(claim)) and not _ZERO_COST.search(fold(whole)):
        if _COST_WORDS.search(whole):
            return ClaimCheck("contradicted", claim, record.slug, "says it is free; the entry names a cost")
        return ClaimCheck("unsupported", claim, record.slug, "says it is free; the entry does not say so")
    return None


# "180 days for a Class C misdemeanor, one year for a Class A or B misdemeanor": each number belongs to its case.
_PAIRED_QUANTITY: Final = re.compile(
    r"\b((?:\d+|[a-z]+)[- ](?:days?|weeks?|months?|years?|dias|semanas|meses|anos))\s+(?:for|para)\s+"
    r"(?:an? |the |un |una |el |la |los |las )?([^,;.()]{3,40}?)(?=\s*(?:,|;|\.|\band\b|\by\b|\bor sooner\b|$))",
    _F,
)


def _paired_number_finding(claim: str, record: EvidenceRecord, whole: str) -> ClaimCheck | None:
    """A number the entry gives for one case, claimed for another case the entry gives its own number."""
    pairs = [(quantities_in(m.group(1)), fold(m.group(2)).strip()) for m in _PAIRED_QUANTITY.finditer(fold(whole))]
    claim_f = fold(claim)
    named = [(q, case) for q, case in pairs if q and re.search(rf"\b{re.escape(case)}\b", claim_f)]
    if len(pairs) < 2 or not named:  # a number can only belong to "another case" among two or more
        return None
    claimed = _time_quantities(claim_f)
    for quantity in claimed:
        if not any(_quantity_stated(quantity, q) for q, _ in named) and any(
            _quantity_stated(quantity, q) for q, _ in pairs
        ):
            return ClaimCheck(
                "contradicted", claim, record.slug, "gives the number the entry sets for another case", ""
            )
    return None


def _clause_finding(
    clause: str, spans: Sequence[tuple[float, int, str]], record: EvidenceRecord, claim: str, units: Sequence[str] = ()
) -> ClaimCheck | None:
    """Compare one claim clause with its best-matching support clause: polarity, gate, numbers, conditions."""
    spans = _same_population(clause, spans, units)
    best = spans[0]
    near = [span for span in spans if span[0] >= NEAR_BEST * best[0]]
    support = best[2]
    claim_quantities = quantities_in(clause)
    if claim_quantities and any(quantities_in(span[2]) for span in near):
        near_quantities = frozenset().union(*(quantities_in(span[2]) | _one_of_a_unit(span[2]) for span in near))
        missing = sorted({q[0] for q in claim_quantities if not _quantity_stated(q, near_quantities)})
        if missing:
            shown = ", ".join(f"{n:.3g}" for n in missing)
            return ClaimCheck(
                "contradicted", claim, record.slug, f"states {shown} where the entry's matching text differs", support
            )
    claim_stance = stance_of(clause)
    support_stance = stance_of(support)
    polar_support = support_stance.negated or support_stance.gate is not None
    # A bare condition ("If you owe child support") states nothing to agree or disagree with.
    condition_only = bool(_CONDITION_START.match(fold(clause))) and not _has_polarity(clause)
    polar_support = polar_support or support_stance.modality is not None
    # "It can also do this for …": the predicate is elided, so its polarity is the previous sentence's.
    elided = bool(_ELIDED.search(fold(clause)))
    says_enough = not elided and (_has_polarity(clause) or len(content_stems(clause)) >= MIN_ENTRY_SHARED)
    if not condition_only and says_enough and _has_polarity(clause):
        reason = _compare(claim_stance, support_stance)
        if reason:
            return ClaimCheck("contradicted", claim, record.slug, reason, support)
    reason = _condition_conflict(clause, support) or _opposite_action(clause, support)
    if reason:
        return ClaimCheck("contradicted", claim, record.slug, reason, support)
    return None


# Actions that undo each other: keeping the fee is not returning it, selling on is not stopping, leaving a
# voter on the roll is not cancelling the registration. (Deny/grant is polarity's job: "deny" is negative.)
_OPPOSITE_ACTIONS: Final = (
    (
        re.compile(
            r"\bkeeps?\b(?! (?:selling|sharing|reporting|using))|\bkept\b|\bretain\w*|\bqued\w*(?:se)? con\b|\bconserv\w*",
            _F,
        ),
        re.compile(
            r"\breturn\w*|\brefund\w*|\bgive\w* (?:\w+ )?back|\bowed (?:\w+ ){0,4}back|\bdevolv\w*|\bdevuelv\w*|\breembols\w*",
            _F,
        ),
    ),
    (
        re.compile(
            r"\bkeeps? (?:selling|sharing|reporting|using)|\bcontinu\w+|\bseguir (?:vendiendo|compartiendo)", _F
        ),
        re.compile(r"\bstop\w*|\bceas\w*|\bdestroy\w*|\bdestru\w*|\bdej\w* de\b|\bdelet\w*|\bborr\w*", _F),
    ),
    (
        re.compile(
            r"\bleave\w* (?:\w+ )?(?:registered|on the (?:roll|list))|\bdej\w* inscrit\w*|\bmanten\w* inscrit\w*", _F
        ),
        re.compile(
            r"\bcancel\w*|\bdar(?:le|te)? de baja|\bda[ns]? de baja|\bremov\w* (?:\w+ )?from the (?:roll|list)", _F
        ),
    ),
)


def _opposite_action(claim: str, support: str) -> str | None:
    """The claim does, unnegated, the action that undoes what its support span says must or may be done."""
    main, support_main = _main_part(fold(claim)), _main_part(fold(support))
    if _negated(main) or _negated(support_main):
        return None
    for one, other in _OPPOSITE_ACTIONS:
        for said, undone in ((one, other), (other, one)):
            if said.search(main) and undone.search(support_main) and not said.search(support_main):
                return "states the action that undoes what the entry says (keep for return, go on for stop)"
    return None


_ELIDED: Final = re.compile(
    r"\b(?:do (?:this|that|so|the same)|does (?:this|that|so)|hacer(?:lo| esto| eso| lo mismo)|lo mismo)\b", _F
)
# Who a rule is about: "people on parole" is not "people who are currently incarcerated".
_POPULATION: Final = frozenset({"parol", "proba", "incar", "priso", "confi", "relea", "manda"})


def _same_population(
    clause: str, spans: Sequence[tuple[float, int, str]], units: Sequence[str]
) -> Sequence[tuple[float, int, str]]:
    """Put first the entry unit that names the people the clause names, when the best candidate does not."""
    wanted = content_stems(clause) & _POPULATION
    if not wanted or wanted & content_stems(spans[0][2]):
        return spans
    stems = content_stems(clause)
    about = [
        (len(stems & content_stems(unit)) / len(stems), len(stems & content_stems(unit)), unit)
        for unit in units
        if wanted & content_stems(unit) and _has_polarity(unit)
    ]
    about.sort(key=lambda item: (-item[0], -item[1]))
    return [*about[:1], *spans] if about else spans


_CONDITION_START: Final = re.compile(r"^\W*(?:if|when|whenever|si|cuando|as long as|siempre que)\b", _F)
_LEADING_PHRASE: Final = re.compile(r"^\s*[^,]{3,90},\s+(?=\S)")


def _gate_finding(
    clause: str, spans: Sequence[tuple[float, int, str]], record: EvidenceRecord, claim: str
) -> ClaimCheck | None:
    """A required condition ("not … until X") in any nearly-best support must not be skipped by the claim."""
    best = spans[0][0]
    claim_stance = stance_of(clause)
    for coverage, _, support in spans[1:]:
        if coverage < NEAR_BEST * best:
            break
        support_stance = stance_of(support)
        if support_stance.strong:
            reason = _compare(claim_stance, support_stance)
            if reason:
                return ClaimCheck("contradicted", claim, record.slug, reason, support)
    return None


_EXCEPT_PLACE: Final = re.compile(
    r"\b(?:anywhere|any location|cualquier lugar)\s+(?:\w+\s+){0,2}?(?:except|other than|que no sea|salvo|excepto|menos)\b",
    _F,
)


def _home_finding(claim: str, units: Sequence[str], record: EvidenceRecord) -> ClaimCheck | None:
    """ "Anywhere" against an entry that limits it to one place ("anywhere except where the person lives")."""
    claim_f = fold(claim)
    if not _EXCEPT_HOME.search(claim_f) or _EXCEPT_PLACE.search(claim_f) or stance_of(claim).negated:
        return None
    for unit in units:
        if _EXCEPT_PLACE.search(fold(unit)):
            return ClaimCheck("contradicted", claim, record.slug, "says anywhere; the entry limits where", unit)
    return None


def _spread_support(
    claim: str, main: str, clauses: Sequence[str], units: Sequence[str], record: EvidenceRecord
) -> bool:
    """No single sentence holds the claim: its words spread over the entry, or each asserting clause has support."""
    spread = max(entry_coverage(claim, record), entry_coverage(main, record))
    shared = len(content_stems(claim) & frozenset().union(*(content_stems(t) for t in entry_texts(record))))
    if spread >= MIN_ENTRY_COVERAGE and shared >= MIN_ENTRY_SHARED:
        return True
    asserting = [c for c in clauses if _asserting(c)]
    # Each clause that states something has its own support (a trailing ", which is why …" need not).
    return len(clauses) > 1 and bool(asserting) and all(_candidates(c, units) for c in asserting)


def check_claim(claim: str, record: EvidenceRecord, *, quote: str = "") -> ClaimCheck:
    """Judge one rule-stating sentence against one cited entry, clause by clause (its quote first, else the best span)."""
    all_texts = entry_texts(record)
    if quote_in(claim, all_texts):
        return ClaimCheck("supported", claim, record.slug, "", claim)  # the claim is a verbatim span of the entry
    language = language_of(claim)
    texts = tuple(t for t in all_texts if language_of(t) == language)
    whole = " ".join(all_texts)
    number = (
        _number_finding(claim, record, whole)
        or _paired_number_finding(claim, record, whole)
        or _entry_finding(claim, record)
    )
    if number is not None:
        return number
    quoted = bool(quote) and quote_in(quote, all_texts)
    if quoted:
        units: list[str] = list(dict.fromkeys([quote, *clauses_of(quote)]))
        sentence_spans = [(1.0, 99, quote)]
    elif not texts:
        # No reviewed text in the claim's language (evidence records from before both summaries were
        # carried): words cannot be compared across languages, so only numbers and "free" were checked.
        return ClaimCheck("supported", claim, record.slug, "no text in the claim's language; numbers checked only")
    else:
        units = list(dict.fromkeys([u for t in texts for u in clauses_of(t)]))
        sentence_spans = _candidates(claim, [s for t in texts for s in sentences_of(t)])
    clauses = clauses_of(claim, claim=True) or [claim]
    if not sentence_spans:
        # "If you left without one, DPS can issue an ID card …": the asker's situation is not the claim.
        main = _LEADING_CONDITION.sub("", fold(claim)) or claim
        sentence_spans = _candidates(main, [s for t in texts for s in sentences_of(t)]) if texts else []
        if not sentence_spans and not _spread_support(claim, main, clauses, units, record):
            return ClaimCheck("unsupported", claim, record.slug, "the cited entry does not say this")
    finding = _clauses_finding(claim, clauses, units, record, quote if quoted else "")
    if finding is not None:
        return finding
    best = sentence_spans[0][2] if sentence_spans else ""
    return ClaimCheck("supported", claim, record.slug, "", best)


def _entry_sentences(claim: str, record: EvidenceRecord) -> list[str]:
    """The sentences of the entry's texts in the claim's language, in order."""
    language = language_of(claim)
    return [s for t in entry_texts(record) if language_of(t) == language for s in sentences_of(t)]


@lru_cache(maxsize=8192)
def _case_stems(text: str) -> frozenset[str]:
    """Content stems with the generic legal words kept: "convictions" is the case an exception names."""
    words = _TOKEN.findall(fold(text))
    return frozenset(stem(w) for w in words if w not in _STOP and not w[0].isdigit() and w[0] != "$" and len(w) > 2)


# "even if you haven't done anything": no condition is named (read by _waived_condition_finding).
_NOBODY_STEMS: Final = _case_stems("anything anyone nothing nada nadie nunca")


# An exception the entry sets: "…, unless the offense was DWI", "that assumption does not apply to a parent
# who is incarcerated …", "salvo si el delito fue …" (the case follows), "Records of convictions are
# excluded from the seven-year limit", "Las condenas no tienen ese límite" (the case comes first). The case
# gets the opposite of the rule it qualifies; "It is never available for stalking" refuses it outright.
_EXCEPTION_AFTER: Final = re.compile(
    r"\b(?:unless|except(?: for| when| if)?|salvo(?: si| que| cuando)?|excepto|a menos que"
    r"|(?:does|do) not apply (?:to|if|when)|doesn't apply (?:to|if|when)|no se aplican? (?:a|si|cuando)|se excluyen?)\b",
    _F,
)
_EXCEPTION_BEFORE: Final = re.compile(
    r"\b(?:(?:is|are) excluded from|(?:is|are) exempt from|(?:est[aá]n?|quedan?) exclu\w+ de"
    r"|no tienen? (?:ese|este|el|la|esa) (?:l[ií]mite|plazo))\b",
    _F,
)
_NEVER_FOR: Final = re.compile(
    r"\b(?:never (?:available|possible|allowed) for|nunca (?:es|son|est[aá]n?) (?:posible|disponible)s? para)\b", _F
)
# The case runs to the end of its clause; ", including people on parole" still names it.
_CASE_END: Final = re.compile(
    r"[;.()]|,(?!\s+(?:including|such as|like|incluid\w*|incluyendo|como)\b)|,?\s+(?:and|but|y|pero)\s+(?!(?:\w+\s+){0,2}\w+,)",
    _F,
)
CASE_WORDS: Final = 10
# Words any case shares with any claim: naming one of them is not naming the case.
_CASE_NOISE: Final = frozenset(
    {"offen", "delit", "crime", "perso", "dia", "day", "year", "ano", "month", "mes", "hay", "hab", "haya"}
)
# "unless it first gives notice" after "may not deny": a condition to meet (the gates' job), not a case set apart.
_UNLESS: Final = re.compile(r"^(?:unless|a menos que|salvo (?:si|que|cuando))$", _F)
# A clause that states the exception itself ("except when you testify", "are not covered by that limit").
_STATES_EXCEPTION: Final = re.compile(
    r"\bexcep\w*|\bnot covered\b|\bno (?:est[aá]n? )?cubiert\w*|\bno (?:lo |la |los |las )?cubre\b"
    r"|\bother than\b|\bno other\b[^,;]*\bbut\b|\baparte de\b|\bsalvo\b|\bfuera de\b",
    _F,
)
EXCEPTION_RULE_SHARED: Final = 2


@dataclass(frozen=True)
class _Exception:
    case: frozenset[str]  # stems that name the case (none of the rule's own)
    rule: str  # the rule the case is set apart from (or the refusal itself)
    negated: bool  # what the entry says of the case: True when it is refused or not covered by a "can"


def _rule_negated(rule: str) -> bool:
    return _negated(_main_part(_WHO_BEFORE_MODAL.sub(" ", fold(rule))))


@lru_cache(maxsize=2048)
def _exceptions(sentences: tuple[str, ...]) -> tuple[_Exception, ...]:
    """Every case the entry sets apart from a rule, with what the entry says of it."""
    found: list[_Exception] = []
    for index, sentence in enumerate(sentences):
        previous = sentences[index - 1] if index else ""
        never = _NEVER_FOR.search(sentence)
        if never:
            case = sentence[never.end() :]  # a list of offences: all of it is the case
            found.append(_Exception(_case_stems(case) - _CASE_NOISE, f"{previous} {sentence}", negated=True))
            continue
        after, before = _EXCEPTION_AFTER.search(sentence), _EXCEPTION_BEFORE.search(sentence)
        if after:
            case, rule = _case_text(sentence[after.end() :]), sentence[: after.start()]
            if _UNLESS.match(after.group(0)) and _NEGATOR.search(_WHO_BEFORE_MODAL.sub(" ", fold(rule or previous))):
                continue
        elif before:
            case, rule = sentence[: before.start()], ""
        else:
            continue
        if len(content_stems(rule)) < EXCEPTION_RULE_SHARED:
            rule = previous  # "The rule does not apply to …": the rule is the sentence before
        if len(content_stems(rule)) < EXCEPTION_RULE_SHARED:
            continue
        stems = _case_stems(case) - _case_stems(rule) - _CASE_NOISE
        if stems:
            found.append(_Exception(stems, rule, negated=not _rule_negated(rule)))
    return tuple(found)


def _case_text(text: str) -> str:
    end = _CASE_END.search(text)
    return " ".join((text[: end.start()] if end else text).split()[:CASE_WORDS])


def _exception_check(clause: str, record: EvidenceRecord, claim: str) -> ClaimCheck | None:
    """A clause that names a case the entry sets apart: contradicted when it gives the case the rule's polarity,
    supported (its other checks skipped) when it says what the entry says of the case."""
    stance = stance_of(clause)
    folded = fold(clause)
    if stance.modality == "optional" or _ELIDED.search(folded) or _STATES_EXCEPTION.search(folded):
        return None
    if _EXCEPTION_AFTER.search(folded) or _EXCEPTION_BEFORE.search(folded) or _EXCLUSION.search(folded):
        return None
    agreeing = None
    for exception in _exceptions(tuple(_entry_sentences(claim, record))):
        if not _case_stems(clause) & exception.case:
            continue
        if _case_denied(folded, exception.case):
            continue  # "if you are not behind on restitution", "only if you had no new conviction": not the case
        if len(content_stems(clause) & content_stems(exception.rule)) < EXCEPTION_RULE_SHARED:
            continue
        if stance.negated != exception.negated:
            return ClaimCheck(
                "contradicted", claim, record.slug, "gives the rule to a case the entry sets apart", exception.rule
            )
        agreeing = agreeing or ClaimCheck("supported", claim, record.slug, "", exception.rule)
    return agreeing


# Words that deny what follows them: "not behind", "no new conviction", "sin condena", "without a conviction".
_DENIERS: Final = frozenset(
    {"no", "not", "never", "without", "sin", "ni", "nunca", "isn", "aren", "wasn", "weren", "don"}
)
CASE_DENIAL_WINDOW: Final = 3


def _case_denied(folded_clause: str, case: frozenset[str]) -> bool:
    """Whether the clause speaks of the set-apart case only to deny it (a denier just before its first word):
    "if you are not behind on restitution, the judge must review" is the rule's own case, not the exception's."""
    words = _TOKEN.findall(folded_clause)
    for index, word in enumerate(words):
        if stem(word) in case:
            return bool(_DENIERS & set(words[max(0, index - CASE_DENIAL_WINDOW) : index]))
    return False


# What a person can still be serving: "even if you still have probation left", "aunque siga en parole".
_SERVING: Final = frozenset({"parol", "prob", "super", "manda", "confi", "priso", "sente", "liber"})


def _unfinished_finding(claim: str, units: Sequence[str], record: EvidenceRecord) -> ClaimCheck | None:
    """ "Even if you still have probation left" against any part of the entry that allows it only once that
    part of the sentence is over ("must have fully discharged the sentence, including … probation")."""
    claim_f = fold(claim)
    even = _EVEN_DURING.search(claim_f)
    if not even or not stance_of(claim_f[: even.start()]).permits or _negated(_main_part(claim_f[: even.start()])):
        return None
    serving = content_stems(" ".join(claim_f[even.end() :].split()[:6])) & _SERVING
    for unit in (*units, *_entry_sentences(claim, record)):
        stance = stance_of(unit)
        if serving and stance.gate == "after" and stance.strong and serving & content_stems(unit):
            return ClaimCheck(
                "contradicted", claim, record.slug, "says it holds while serving what the entry requires over", unit
            )
    return None


# "…, aunque hay excepciones para ciertos delitos", "though there are exceptions for …": a concession, not a rule.
_HEDGE_CLAUSE: Final = re.compile(
    r"^\W*(?:(?:though|although|but|aunque|pero)\s+)?(?:there are|hay|with|con)\s+(?:some\s+|algunas\s+)?"
    r"(?:exceptions|excepciones)\b[^;]{0,200}$",
    _F,
)


def _clauses_finding(
    claim: str, clauses: Sequence[str], units: Sequence[str], record: EvidenceRecord, quote: str
) -> ClaimCheck | None:
    """Compare each clause of the claim with its own best support; then the whole claim's place and requirement."""
    for clause in clauses:
        if _HEDGE_CLAUSE.match(fold(clause)):
            continue
        exception = _exception_check(clause, record, claim) if _has_polarity(clause) else None
        if exception is not None:
            if exception.outcome == "contradicted":
                return exception
            stance = stance_of(clause)
            if stance.gate != "immediate" or stance.negated:
                continue  # what the entry says of the case it sets apart; "right away" is still checked below
        # The support is chosen by what the clause asserts (its main part, without a leading "After the
        # program," or "If no charges were filed,"); its stance is read from the whole clause.
        spans = _candidates(_LEADING_PHRASE.sub("", clause), units) or _candidates(clause, units)
        if not spans and quote and _has_polarity(clause):
            spans = [(1.0, 99, quote)]  # the draft named this span as the clause's support
        if not spans:
            continue
        finding = _clause_finding(clause, spans, record, claim, units) or _gate_finding(clause, spans, record, claim)
        # The clause without its trailing condition may rest on another part of the entry ("The clerk can
        # refuse your case | if you file a Statement …"): it must agree with that part too.
        main = _main_part(_LEADING_PHRASE.sub("", clause))
        main_spans = _candidates(main, units)
        if main_spans and main_spans[0][2] != spans[0][2]:
            main_finding = _clause_finding(clause, main_spans, record, claim, units)
            if finding is None:
                finding = main_finding
            elif (
                main_finding is None
                and _polarity_only(finding)
                and (_holds_predicate(main, main_spans[0][2]) or _holds_better(main, main_spans[0][2], spans[0][2]))
            ):
                # "If your case was dismissed because …, the court may not charge a fee": the condition
                # matched one sentence, the rule it states is another one, and that one agrees.
                finding = None
        if finding is not None:
            return finding
    return (
        _home_finding(claim, units, record)
        or _requirement_finding(claim, units, record)
        or _waived_condition_finding(claim, units, record)
        or _scope_finding(claim, units, record)
        or _concession_finding(claim, units, record)
        or _discretion_finding(claim, units, record)
        or _wait_finding(claim, record)
        or _clock_finding(claim, record)
        or _removed_finding(claim, record)
        or _automatic_finding(claim, units, record)
        or _unfinished_finding(claim, units, record)
    )


# "agencies are not allowed to take into account rehab" against "They may consider … rehabilitation": a
# discretion the entry grants, said to be forbidden. The verb and what it governs must both match.
_DENIED_VERB: Final = re.compile(
    r"\b(?:(?:may|can|could|must) not|cannot|can't|not (?:be )?allowed to|prohibited from|barred from|forbidden to"
    r"|no (?:puede|pueden|podra|podran|se permite|esta permitido|les esta permitido)|tienen? prohibido)\s+([a-z]+)"
    r"((?:\s+\S+){0,6})",
    _F,
)
_ALLOWED_VERB: Final = re.compile(
    r"\b(?<!not )(?<!no )(?:may|can|could|puede|pueden|podra|podran)\s+(?!not\b|no\b)([a-z]+)((?:\s+\S+){0,6})", _F
)


# "does not stop the person from enrolling, testing or applying", "no le impide inscribirse": each verb allowed.
_NOT_STOPPED: Final = re.compile(
    r"\b(?:(?:does not|doesn't|do not|don't|will not|won't)\s+(?:stop|prevent|bar|keep)\s+(?:\w+\s+){0,3}?from"
    r"|no\s+(?:le |les |te )?(?:impide|impiden|prohibe|prohiben))"
    r"\s+([a-z]+(?:(?:,\s*|\s+or\s+|\s+o\s+)[a-z]+)*)",
    _F,
)


def _phrased(text: str) -> str:
    folded = fold(text)
    for pattern, word in _PHRASES:
        folded = pattern.sub(word, folded)
    return folded


def _discretion_finding(claim: str, units: Sequence[str], record: EvidenceRecord) -> ClaimCheck | None:
    """ "May not consider X" where the entry says "may consider X"."""
    units = [*units, *(sentence for text in entry_texts(record) for sentence in sentences_of(text))]
    stems = content_stems(claim)
    for unit in units:
        excluded = _EXCLUSION.search(fold(unit))
        if excluded and stems & content_stems(fold(unit)[excluded.end() : excluded.end() + _EXCLUDED_SPAN]):
            return None  # "a DWI case cannot petition": the case the entry sets apart, left to the exception check
    for denied in _DENIED_VERB.finditer(_phrased(claim)):
        verb, governed = stem(denied.group(1)), content_stems(denied.group(2))
        if not governed:
            continue
        for unit in units:
            for allowed in _ALLOWED_VERB.finditer(_phrased(unit)):
                if stem(allowed.group(1)) == verb and governed & content_stems(allowed.group(2)):
                    return ClaimCheck(
                        "contradicted", claim, record.slug, "says it is not allowed; the entry allows it", unit
                    )
            for kept in _NOT_STOPPED.finditer(_phrased(unit)):
                verbs = {stem(w) for w in re.findall(r"[a-z]+", kept.group(1)) if w not in ("or", "o")}
                if verb in verbs and content_stems(claim) & content_stems(unit) - verbs:
                    return ClaimCheck(
                        "contradicted",
                        claim,
                        record.slug,
                        "says it is not allowed; the entry says nothing stops it",
                        unit,
                    )
    return None


def _notice_events(folded: str) -> frozenset[str]:
    anchors = " | ".join(m.group(1) for m in _TIME_ANCHOR.finditer(folded))
    return frozenset(name for name, pattern in _NOTICE_EVENTS if pattern.search(anchors))


def _clock_finding(claim: str, record: EvidenceRecord) -> ClaimCheck | None:
    """ "Within thirty days after you get it" where the entry's thirty days run from when it is mailed."""
    claim_f = fold(claim)
    claimed = _time_quantities(claim_f)
    events = _notice_events(claim_f)
    if not claimed or not events:
        return None
    for text in entry_texts(record):
        for sentence in sentences_of(text):
            folded = fold(sentence)
            if not claimed & _time_quantities(folded):
                continue
            support = _notice_events(folded)
            if support and not support & events:
                return ClaimCheck(
                    "contradicted",
                    claim,
                    record.slug,
                    f"counts from {min(events)}; the entry from {min(support)}",
                    sentence,
                )
    return None


# "removed the rule that a drug conviction … cuts off aid", "will no longer affect", "ya no afecta": what the entry
# says is over, which a claim must not state as the rule today.
_REMOVED: Final = re.compile(
    r"\b(?:removed|eliminated|repealed|ended|struck|elimin[oó]|derog[oó]|quit[oó])\s+(?:the\s+|la\s+|el\s+)?"
    r"(?:rule|requirement|ban|penalty|question|regla|requisito|prohibici[oó]n|pena|pregunta)\s+(?:that|que)?\s*([^.;]*)"
    r"|\b(?:will no longer|no longer|ya no)\s+((?:affects?|applies|apply|counts?|cuts?|bars?|disqualif\w+|be (?:required|asked|applied)"
    r"|afecta\w*|aplica\w*|se aplica\w*|cuenta\w*|impide\w*|se (?:pide|pregunta|exige))\b[^.;]*)",
    _F,
)
_STILL: Final = re.compile(r"\b(?:still|todav[ií]a|a[uú]n|sigue|siguen|continues?|contin[uú]a)\b", _F)
_OVER_WORDS: Final = re.compile(
    r"\b(?:removed|eliminated|repealed|ended|struck|no longer|ya no|elimin\w+|derog\w+|quit[oó]|anymore|not any more"
    r"|dej[oó] de|termin[oó] con|puso fin)\b",
    _F,
)
REMOVED_SHARED: Final = 2
REMOVED_COVERAGE: Final = 0.7


def _removed_finding(claim: str, record: EvidenceRecord) -> ClaimCheck | None:
    """ "Still cuts off your eligibility" where the entry says the rule that cut it off was removed."""
    claim_f = fold(claim)
    if _OVER_WORDS.search(claim_f) or _negated(_main_part(claim_f)):
        return None
    stems, still = content_stems(claim), bool(_STILL.search(claim_f))
    for text in entry_texts(record):
        for m in _REMOVED.finditer(fold(text)):
            ended = content_stems(m.group(1) or m.group(2) or "")
            shared = stems & ended
            if len(shared) >= REMOVED_SHARED and (still or len(shared) >= REMOVED_COVERAGE * len(ended)):
                return ClaimCheck(
                    "contradicted", claim, record.slug, "states as today's rule what the entry says ended"
                )
    return None


# "la probatoria termina sola a los dos años", "it ends automatically": no one decides, where the entry's rule
# is a decision someone may make ("the judge may reduce or terminate").
_AUTOMATIC: Final = re.compile(
    r"\b(?:automatically|autom[aá]ticamente|de forma autom[aá]tica"
    r"|(?:ends?|ended|expires?|expired|stops?|terminates?|goes away|comes off|drops? off)\s+(?:on its own|by itself)"
    r"|(?:termina|acaba|se termina|se acaba|se cancela|se borra|vence)\s+(?:sol[oa]|por s[ií] sol[oa]))\b",
    _F,
)


def _automatic_finding(claim: str, units: Sequence[str], record: EvidenceRecord) -> ClaimCheck | None:
    """ "Ends by itself after two years" where the best matching part of the entry says someone may end it."""
    claim_f = fold(claim)
    if not _AUTOMATIC.search(claim_f) or _negated(_main_part(claim_f)):
        return None
    spans = _candidates(_AUTOMATIC.sub(" ", claim_f), units)
    if not spans:
        return None
    best = spans[0][2]
    if _ALLOWED_VERB.search(fold(best)) and not _AUTOMATIC.search(fold(best)):
        return ClaimCheck(
            "contradicted", claim, record.slug, "says it happens by itself; the entry leaves it to a decision", best
        )
    return None


_WAIT: Final = re.compile(r"\b(?:wait\w*|esper\w*|plazo de espera)\b", _F)
WAIT_SHARED: Final = 2


def _crime_classes(text: str) -> frozenset[str]:
    folded = fold(text)
    return frozenset(
        name for name, pattern in (("felony", _FELONY_ONLY), ("misdemeanor", _MISDEMEANOR)) if pattern.search(folded)
    )


def _wait_finding(claim: str, record: EvidenceRecord) -> ClaimCheck | None:
    """ "Right away, no waiting" where another sentence of the entry sets a wait for that case ("felonies
    generally have a five-year wait"). The wait counts when it names the claim's class of crime, or, naming
    none, shares the claim's subject."""
    stance = stance_of(claim)
    if stance.gate != "immediate" or stance.negated or _time_quantities(fold(claim)):
        return None
    classes = _crime_classes(claim)
    stems = content_stems(claim)
    for text in entry_texts(record):
        for sentence in sentences_of(text):
            folded = fold(sentence)
            wait = _WAIT.search(folded)
            if wait is None or not _time_quantities(folded):
                continue
            named = _crime_classes(sentence)
            if named and not named & classes:
                continue
            if not named and len(stems & content_stems(sentence) - content_stems(wait.group(0))) < WAIT_SHARED:
                continue
            return ClaimCheck("contradicted", claim, record.slug, "says 'right away'; the entry sets a wait", sentence)
    return None


_POLARITY_DETAILS: Final = frozenset({"says the opposite of the entry"})
# The main predicate's support must hold most of what it says to outweigh a condition-matched span.
MAIN_SUPPORT_COVERAGE: Final = 0.6


def _polarity_only(finding: ClaimCheck) -> bool:
    return finding.detail in _POLARITY_DETAILS


# The verb a modal governs, negated or not: "no te puede cobrar" -> cobr, "may not charge" -> charg.
_MODAL_VERB: Final = re.compile(
    r"\b(?:may|can|must|cannot|can't|puede|pueden|podra|podran|debe|deben)\s+(?:(?:not|no)\s+)?([a-z]+)", _F
)


def _holds_better(main: str, support: str, other: str) -> bool:
    """The main predicate's span shares at least as many of its content words as the span its condition
    matched, and the verb its modal governs: "…, the court may not charge any fee" is judged by the
    sentence about charging, not the one about the case."""
    stems = content_stems(main)
    verbs = _verbs(_MODAL_VERB, fold(main))
    return (
        _score(stems, support)[1] >= _score(stems, other)[1]
        and bool(verbs & _verbs(_MODAL_VERB, fold(support)))
        and not verbs & _verbs(_MODAL_VERB, fold(other))
    )


def _holds_predicate(main: str, support: str) -> bool:
    """The support span holds most of the content words of the clause's main predicate."""
    coverage, shared = _score(content_stems(main), support)
    return coverage >= MAIN_SUPPORT_COVERAGE and shared >= MIN_ENTRY_SHARED


def check_claim_against(
    claim: str, records: Sequence[EvidenceRecord], *, quote: str = "", others: Sequence[EvidenceRecord] = ()
) -> ClaimCheck:
    """Judge a claim citing several entries: supported if one entry supports it, else the worst finding.

    `others` are the turn's other retrieved entries: when one of them holds the claim clearly better than
    every cited entry, the claim cites the wrong entry (unsupported, naming the entry that says it).
    """
    checks = [check_claim(claim, record, quote=quote) for record in records]
    supported = [check for check in checks if check.outcome == "supported"]
    if supported and others and not quote:
        cited = max(entry_coverage(claim, record) for record in records)
        other = max(others, key=lambda record: entry_coverage(claim, record))
        other_coverage = entry_coverage(claim, other)
        if other_coverage >= WRONG_ENTRY_FLOOR and other_coverage - cited >= WRONG_ENTRY_MARGIN:
            first = supported[0]
            return ClaimCheck(
                "unsupported", claim, first.entry, f"this is what {other.slug} says, not the cited entry", first.support
            )
    if supported:
        return supported[0]
    contradicted = [c for c in checks if c.outcome == "contradicted"]
    return contradicted[0] if contradicted else checks[0]
