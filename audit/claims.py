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
from dataclasses import dataclass
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


_STOP: Final = frozenset(
    """a an the and or but if of to in on at by for from with as is are was were be been being it its this that
    these those there their they them he she his her you your yours we our us i me my who whom which what when where
    while how than then so such not no nor do does did done has have had having can could may might must shall should
    will would also any all each every some more most other only own same very just about into over under up down out
    per via s t after before until once while during right away get gets got despues antes hasta mientras durante
    el la los las un una unos unas y o pero si de del al a en con por para como es son fue ser esta este estos estas
    ese esa eso lo le les se su sus usted ustedes que qué cual cuando donde mientras muy mas más tambien también ya
    puede pueden debe deben tiene tienen hay""".split()
)
# Words every entry and every claim share: they say nothing about which rule is meant.
_GENERIC: Final = frozenset(
    "texas tex law laws rule rules person people persons someone state federal code section gov elec ley leyes regla "
    "reglas persona personas estado codigo seccion general generally generalmente felony felonies felon felons "
    "delito delitos grave graves conviction convictions convicted condena condenas condenada condenado".split()
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
    "probatoria": "probation",
    "lowered": "reduce",
    "lower": "reduce",
    "bajar": "reducir",
    "kids": "child",
    "hijos": "hijo",
}
_TOKEN: Final = re.compile(r"[a-z0-9$]+(?:[.,]\d+)*")


def stem(word: str) -> str:
    """A crude en/es stem: enough to match "voter"/"vote"/"votar", "sentence"/"sentencia"."""
    w = _SYNONYMS.get(word, word)
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "i"
    elif w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    if len(w) > 3:
        w = _SUFFIXES.sub("", w) or w
    return w[:5]


def content_stems(text: str) -> frozenset[str]:
    """The stems of the words that carry meaning (no stop words, no generic legal words, no numbers)."""
    words = _TOKEN.findall(fold(text))
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
}
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
_WEAK_NUMBER_WORDS: Final = frozenset({"one", "una", "uno", "first", "second", "once"})


def numbers_in(text: str) -> frozenset[float]:
    """Every number a text states (digits, "$10,000", "ten", "diez", "tenth")."""
    folded = fold(text)
    found: set[float] = set()
    for m in _DIGITS.finditer(folded):
        whole = m.group(1).replace(",", "")
        frac = m.group(2)
        # "§ 508.182" or "42a.301" style section numbers are masked before this runs; "1.5" stays a number.
        found.add(float(f"{whole}.{frac}") if frac else float(whole))
    for m in _WORD_NUMBER.finditer(folded):
        word = m.group(1).lower()
        if word in _WEAK_NUMBER_WORDS and not m.group(2):
            continue
        found.add(float(_NUMBER_WORDS[word]))
    return frozenset(found)


_ZERO_COST: Final = re.compile(
    r"\bfree\b|\bno (?:fee|cost|charge)\b|\bat no (?:cost|charge)\b|\bwithout (?:a )?(?:fee|cost|charge)\b|\bcosts? nothing\b"
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

# Negators flip a sentence; "bar"-type words are negative in themselves: "does not apply the ban" is
# positive (two negatives), "is barred" negative (one), "is not barred" positive (two).
_NEGATOR: Final = re.compile(
    r"\b(?:not|none|cannot|never|no longer|nunca|jam[aá]s|ya no|ni|ningun[oa]?)\b|n't\b|\bno\b(?! (?:divulgaci\w*|contest|later|more than|less than|m[aá]s de|menos de))",
    _F,
)
# Only predicative uses count ("is barred", "bans"): "a letter about whether you are eligible" asserts nothing.
_NEGATIVE_WORD: Final = re.compile(
    r"\b(?:is|are|be|becomes?|was|were|remains?|stays?)\s+(?:\w+\s+)?(?:ineligible|barred|banned|prohibited|disqualified|denied|excluded)\b"
    r"|\b(?:bars|bans|prohibits|denies|excludes|disqualifies|loses)\b"
    r"|\b(?:est[aá]n?|es|son|queda\w*|sigue\w*)\s+(?:\w+\s+)?(?:prohibid|inelegible|excluid|descalificad)\w*|\bproh[ií]be\w*|\bniega\w*|\bexcluye\w*|\bpierde\w*",
    _F,
)


def _negated(text: str) -> bool:
    return (len(_NEGATOR.findall(text)) + len(_NEGATIVE_WORD.findall(text))) % 2 == 1


_UNTIL: Final = re.compile(r"\b(?:until|unless|hasta que|hasta|a menos que)\b", _F)
_ONLY_AFTER: Final = re.compile(r"\b(?:only (?:after|once|when)|s[oó]lo (?:despu[eé]s de|cuando|una vez que))\b", _F)
_AFTER: Final = re.compile(
    r"\b(?:only after|only once|only when|after|once|as soon as|when (?:the|your|their|his|her)|solo despu[eé]s de|s[oó]lo despu[eé]s de"
    r"|despu[eé]s de(?: que)?|una vez que|cuando (?:termine|cumpla|haya|se|su|la|el))\b(?!\s+\d)",
    _F,
)
_DURING: Final = re.compile(
    r"\b(?:while|during|still on|on (?:parole|probation|mandatory supervision|supervision|community supervision)"
    r"|mientras|durante|todav[ií]a en|a[uú]n en|estando en)\b",
    _F,
)
_IMMEDIATE: Final = re.compile(
    r"\b(?:right away|right (?:after|when) (?:you|they) (?:get out|are released|leave)|immediately|at once|automatically|as soon as (?:you|they|a person) (?:are|is|get|gets) (?:out|released)"
    r"|the day (?:you|they) (?:get out|are released)|de inmediato|inmediatamente|enseguida|autom[aá]ticamente|en cuanto sal\w+)\b",
    _F,
)
_ANCHOR_STOP: Final = re.compile(
    r",|;|\bwhich\b|\bincluding\b|\bincluded\b|\bincluye\w*|\bincluid\w*|\bque incluye|\band\b(?= (?:a|the|any)\b)", _F
)


@dataclass(frozen=True)
class Stance:
    """What a sentence asserts, reduced to what the checker compares."""

    negated: bool
    gate: Literal["after", "during", "immediate", None]
    anchor: frozenset[str]  # content stems of the gate's condition ("the whole sentence is fully discharged")
    strong: bool = False  # "not ... until X", "only after X": X is required, not just a point in time
    permits: bool = False  # says something is allowed ("can vote", "is eligible", "puede votar")

    def _replace_permits(self, permits: bool) -> Stance:
        return Stance(self.negated, self.gate, self.anchor, self.strong, permits)


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
_LEAD: Final = re.compile(r"^\W*(?:not yet|yes|no|todav[ií]a no|a[uú]n no|s[ií])\s*[:,\u2014-]\s*", _F)


def stance_of(text: str) -> Stance:
    """Read a sentence's polarity and gate: "not ... until X" and "only after X" are both "after X"."""
    t = _LEAD.sub("", fold(text))
    return _stance(t)._replace_permits(bool(_PERMISSION.search(t)))


def _stance(t: str) -> Stance:
    until = _UNTIL.search(t)
    after = _AFTER.search(t)
    negated = _negated(t[: until.start()] if until else t)
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
    r"|required|counts?|restor\w*|lets?|allows?|bars?|get|gets|vote|until|after|only|right"
    r"|puede\w*|podr\w*|debe\w*|tiene\w* que|elegible\w*|calific\w*|permit\w*|prohib\w*|cuenta|requier\w*|devuelve\w*"
    r"|hasta|despu[eé]s|solo|s[oó]lo|derecho)\b",
    _F,
)


def _has_polarity(text: str) -> bool:
    folded = fold(text)
    return bool(_POLAR_WORDS.search(folded) or _NEGATOR.search(folded))


def asserts_something(text: str) -> bool:
    """A cited sentence worth checking: a number, a cost, a can/cannot/must, or three content words."""
    return (
        bool(numbers_in(text))
        or _has_polarity(text)
        or bool(_ZERO_COST.search(fold(text)))
        or len(content_stems(text)) >= 3
    )


def _compare(claim: Stance, support: Stance) -> str | None:  # noqa: PLR0911 - one return per kind of disagreement
    """Return why the claim contradicts the support span, or None when they agree."""
    if support.gate == "after" and support.strong:
        if claim.gate == "after":
            if support.anchor and claim.anchor and not (claim.anchor & support.anchor):
                return "states a different condition than the entry"
            return None
        if claim.gate in ("during", "immediate") and not claim.negated:
            return "says it is allowed before the condition the entry sets is met"
        if claim.gate is None and not claim.negated and claim.permits:
            return "leaves out the condition the entry sets (only after it is met)"
        return None
    if claim.gate == "immediate" and not claim.negated and support.gate != "immediate":
        return "says 'right away' or 'automatically', which the entry does not say"
    if support.gate == "after" and claim.gate in ("during", "immediate") and not claim.negated:
        return "says it is allowed before the condition the entry sets is met"
    if (
        claim.negated != support.negated
        and claim.gate in (None, "after")
        and support.gate != "during"
        and not support.strong
    ):
        return "says the opposite of the entry"
    return None


# --------------------------------------------------------------------------------------------
# The check
# --------------------------------------------------------------------------------------------

MIN_SHARED_STEMS: Final = 2
MIN_COVERAGE: Final = 0.34


def entry_texts(record: EvidenceRecord) -> tuple[str, ...]:
    """The reviewed texts a claim may rest on: the source excerpt and the summaries (never the caveat)."""
    return tuple(t for t in (record.excerpt, record.summary, *record.summaries) if t)


def _candidates(claim: str, texts: Sequence[str]) -> list[tuple[float, int, str]]:
    claim_stems = content_stems(claim)
    scored: list[tuple[float, int, str]] = []
    if not claim_stems:
        return scored
    for text in texts:
        for sentence in sentences_of(text):
            shared = claim_stems & content_stems(sentence)
            coverage = len(shared) / len(claim_stems)
            if len(shared) >= min(MIN_SHARED_STEMS, len(claim_stems)) and coverage >= MIN_COVERAGE:
                scored.append((coverage, len(shared), sentence))
    scored.sort(key=lambda item: (-item[0], -item[1]))
    return scored


_ES_WORDS: Final = re.compile(r"\b(?:el|la|los|las|que|de|del|una?|por|para|con|puede|debe|tiene|est[aá]|son|se)\b", _F)
_EN_WORDS: Final = re.compile(r"\b(?:the|that|of|to|and|a|an|for|with|can|must|has|have|is|are|be)\b", _F)


def language_of(text: str) -> str:
    """'es' or 'en' by function words (good enough to pair a claim with the entry text in its language)."""
    return "es" if len(_ES_WORDS.findall(text)) > len(_EN_WORDS.findall(text)) else "en"


def check_claim(claim: str, record: EvidenceRecord, *, quote: str = "") -> ClaimCheck:  # noqa: PLR0911 - a verdict per check, in order
    """Judge one rule-stating sentence against one cited entry (its quote first, else the best span)."""
    all_texts = entry_texts(record)
    if quote_in(claim, all_texts):
        return ClaimCheck("supported", claim, record.slug, "", claim)  # the claim is a verbatim span of the entry
    language = language_of(claim)
    texts = tuple(t for t in all_texts if language_of(t) == language)
    whole = " ".join(all_texts)
    claim_numbers = numbers_in(claim)
    missing = sorted(n for n in claim_numbers if n not in numbers_in(whole))
    if missing:
        shown = ", ".join(f"{n:g}" for n in missing)
        return ClaimCheck("contradicted", claim, record.slug, f"states {shown}, which the entry does not say")
    if _ZERO_COST.search(fold(claim)) and not _ZERO_COST.search(fold(whole)):
        if _COST_WORDS.search(whole):
            return ClaimCheck("contradicted", claim, record.slug, "says it is free; the entry names a cost")
        return ClaimCheck("unsupported", claim, record.slug, "says it is free; the entry does not say so")
    if quote and quote_in(quote, all_texts):
        spans = [(1.0, 99, quote)]
    elif not texts:
        # No reviewed text in the claim's language (evidence records from before both summaries were
        # carried): words cannot be compared across languages, so only numbers and "free" were checked.
        return ClaimCheck("supported", claim, record.slug, "no text in the claim's language; numbers checked only")
    else:
        spans = _candidates(claim, texts)
    if not spans:
        return ClaimCheck("unsupported", claim, record.slug, "the cited entry does not say this")
    claim_stance = stance_of(claim)
    polar = [span for span in spans if _has_polarity(span[2])] or spans
    best = polar[0][2]
    support_stance = stance_of(best)
    polar_support = support_stance.negated or support_stance.gate is not None
    reason = _compare(claim_stance, support_stance) if _has_polarity(claim) or polar_support else None
    if reason:
        return ClaimCheck("contradicted", claim, record.slug, reason, best)
    return ClaimCheck("supported", claim, record.slug, "", best)


def check_claim_against(claim: str, records: Sequence[EvidenceRecord], *, quote: str = "") -> ClaimCheck:
    """Judge a claim citing several entries: supported if one entry supports it, else the worst finding."""
    checks = [check_claim(claim, record, quote=quote) for record in records]
    for check in checks:
        if check.outcome == "supported":
            return check
    contradicted = [c for c in checks if c.outcome == "contradicted"]
    return contradicted[0] if contradicted else checks[0]
