"""Deterministic intake: language, top need, supervision status and hand-off signals from redacted text.

"Don't spend an LLM call on a decision an if can make": these rules decide most messages; the
intake node asks Haiku only when they are unsure (no need matched, or two needs tie).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vocab import NEED_CATEGORIES, fold

# Keyword stems per need, English and Spanish (accent-folded). Weight 2 = strongly indicative.
_NEED_TERMS: dict[str, tuple[tuple[str, int], ...]] = {
    "housing": (
        ("housing", 2),
        ("shelter", 2),
        ("apartment", 2),
        ("rent", 1),
        ("landlord", 2),
        ("place to stay", 2),
        ("place to live", 2),
        ("somewhere to sleep", 2),
        ("where to sleep", 2),
        ("sleep tonight", 2),
        ("homeless", 2),
        ("halfway house", 2),
        ("transitional housing", 2),
        ("section 8", 2),
        ("public housing", 2),
        ("eviction", 2),
        ("lease", 1),
        ("vivienda", 2),
        ("albergue", 2),
        ("refugio", 2),
        ("donde dormir", 2),
        ("donde quedarme", 2),
        ("apartamento", 2),
        ("renta", 1),
        ("casa de transicion", 2),
        ("alquiler", 2),
        ("dueno", 1),
        ("techo", 1),
        ("housing authority", 2),
        ("motel", 1),
        ("room", 1),
        ("cuarto", 1),
        # Added by the evaluation harness (issue 11): phrasings found missing in the pinned traces.
        ("somewhere to stay", 2),
        ("donde vivir", 2),
        ("lugar para vivir", 2),
    ),
    "id_documents": (
        ("id card", 2),
        ("state id", 2),
        (" id ", 2),
        ("identification", 2),
        ("driver license", 2),
        ("drivers license", 2),
        ("driver's license", 2),
        ("birth certificate", 2),
        ("social security card", 2),
        ("ss card", 2),
        ("dps", 1),
        ("documents", 1),
        ("papers", 1),
        ("identificacion", 2),
        ("acta de nacimiento", 2),
        ("licencia", 2),
        ("tarjeta de seguro social", 2),
        ("documentos", 1),
        ("credencial", 2),
        ("my id", 2),
        ("an id", 2),
        ("lost id", 2),
        ("replacement card", 2),
        ("tdcj id", 2),
        ("release card", 1),
        ("un id", 2),
        ("mi id", 2),
        ("certificado de nacimiento", 2),
        ("identificación", 2),
    ),
    "employment": (
        ("job", 2),
        ("jobs", 2),
        ("work", 1),
        ("employ", 2),
        ("hire", 2),
        ("hiring", 2),
        ("resume", 2),
        ("interview", 2),
        ("workforce", 2),
        ("background check", 1),
        ("career", 1),
        ("paycheck", 1),
        ("trabajo", 2),
        ("empleo", 2),
        ("chamba", 2),
        ("contratan", 2),
        ("entrevista", 2),
        ("trabajar", 2),
        ("occupational license", 2),
        ("license to work", 2),
        ("cdl", 2),
        ("forklift", 1),
        ("construction", 1),
        ("wotc", 2),
        ("bonding", 1),
        ("employer", 2),
        ("employers", 2),
        ("employment", 2),
        ("contratar", 2),
        ("empleador", 2),
        ("empleadores", 2),
        ("patrones", 1),
        ("tdlr", 2),
        ("evaluation letter", 2),
        ("get licensed", 2),
        ("licensing", 2),
        ("electrician", 2),
        ("electricista", 2),
        ("barber", 2),
        ("barbero", 2),
        ("plumber", 2),
        ("plomero", 2),
        ("hvac", 2),
        ("cosmetology", 2),
    ),
    "legal_record": (
        ("expunge", 2),
        ("expunction", 2),
        ("record sealed", 2),
        ("seal my record", 2),
        ("nondisclosure", 2),
        ("non-disclosure", 2),
        ("criminal record", 2),
        ("my record", 2),
        ("background", 1),
        ("clear my record", 2),
        ("pardon", 2),
        ("deferred adjudication", 2),
        ("borrar mi record", 2),
        ("borrar mis antecedentes", 2),
        ("antecedentes", 2),
        ("record criminal", 2),
        ("limpiar mi record", 2),
        ("sellar", 2),
        # "perdón" alone is mostly an apology ("perdon, estoy en kyle"); the clemency is asked for by name.
        ("perdon del gobernador", 2),
        ("perdon oficial", 2),
        ("indulto", 2),
        ("fines", 1),
        ("court costs", 2),
        ("warrant", 1),
        ("orden de arresto", 1),
        ("occupational driver", 1),
        ("expunged", 2),
        ("expungement", 2),
        ("arrest record", 2),
        ("arrest", 1),
    ),
    "voting": (
        ("vote", 2),
        ("voting", 2),
        ("voter", 2),
        ("register to vote", 2),
        ("ballot", 2),
        ("election", 2),
        ("votar", 2),
        ("voto", 2),
        ("elecciones", 2),
        ("registrarme para votar", 2),
        ("jury", 1),
    ),
    "supervision": (
        ("parole", 2),
        ("probation", 2),
        ("parole officer", 2),
        (" po ", 2),
        ("my po", 2),
        ("check in", 1),
        ("check-in", 1),
        ("report to", 1),
        ("ankle monitor", 2),
        ("conditions", 1),
        ("travel permit", 2),
        ("mandatory supervision", 2),
        ("sex offender registration", 2),
        ("register as", 1),
        ("curfew", 1),
        ("libertad condicional", 2),
        ("probatoria", 2),
        ("oficial de libertad", 2),
        ("mi oficial", 2),
        ("parol", 2),
        ("reportarme", 2),
        ("grillete", 2),
        ("supervision", 2),
        ("parole office", 2),
        ("violation", 1),
    ),
    "benefits": (
        ("benefits", 2),
        # LABELING.md files SNAP under benefits, not food ("food stamps" outweighs its "food").
        ("snap", 3),
        ("food stamps", 3),
        ("lone star card", 3),
        ("estampillas", 3),
        ("cupones de comida", 3),
        ("tanf", 2),
        ("ssi", 2),
        ("ssdi", 2),
        ("disability", 1),
        ("social security", 1),
        ("medicaid", 2),
        ("unemployment", 2),
        ("cash assistance", 2),
        ("beneficios", 2),
        ("ayuda del gobierno", 2),
        ("seguro social", 1),
        ("discapacidad", 1),
        ("lifeline phone", 2),
        ("free phone", 2),
        ("veterans", 1),
        ("va benefits", 2),
        ("telefono gratis", 2),
        ("celular gratis", 2),
        ("lifeline", 2),
    ),
    "food": (
        ("food", 2),
        ("hungry", 2),
        ("eat", 1),
        ("food bank", 2),
        ("pantry", 2),
        ("meal", 2),
        ("groceries", 2),
        ("wic", 2),
        ("comida", 2),
        ("hambre", 2),
        ("despensa", 2),
        ("banco de comida", 2),
        ("comer", 1),
        ("cupones", 2),
    ),
    "health": (
        ("doctor", 2),
        ("clinic", 2),
        ("medication", 2),
        ("meds", 2),
        ("prescription", 2),
        ("mental health", 2),
        ("therapy", 2),
        ("counseling", 2),
        ("rehab", 2),
        ("substance", 2),
        ("addiction", 2),
        ("recovery", 1),
        ("health insurance", 2),
        ("hospital", 1),
        ("dentist", 2),
        ("hiv", 2),
        ("hepatitis", 2),
        ("insulin", 2),
        ("salud", 2),
        ("medico", 2),
        ("medicina", 2),
        ("clinica", 2),
        ("receta", 2),
        ("salud mental", 2),
        ("terapia", 2),
        ("adiccion", 2),
        ("sick", 1),
        ("enfermo", 1),
        ("aa meeting", 2),
        ("na meeting", 2),
        ("sober", 1),
        ("detox", 2),
        ("psychiatr", 2),
    ),
    "transportation": (
        ("bus", 2),
        ("ride", 1),
        ("transportation", 2),
        ("bus pass", 2),
        ("metro", 1),
        ("train", 1),
        ("get to", 1),
        ("car", 1),
        ("gas money", 2),
        ("license suspended", 2),
        ("suspended license", 2),
        ("transporte", 2),
        ("camion", 2),
        ("autobus", 2),
        ("pasaje", 2),
        ("raite", 2),
        ("ride to", 2),
        ("bus ticket", 2),
        ("greyhound", 2),
        ("driving", 1),
        ("manejar", 1),
        ("license got suspended", 2),
        ("license was suspended", 2),
        ("surcharge", 2),
        ("surcharges", 2),
        ("drp", 2),
        ("driver responsibility", 2),
        ("suspendieron la licencia", 2),
        ("licencia suspendida", 2),
    ),
    "family": (
        ("child support", 2),
        ("custody", 2),
        ("my kids", 2),
        ("my children", 2),
        ("my son", 1),
        ("my daughter", 1),
        ("visitation", 2),
        ("cps", 2),
        ("family", 1),
        ("divorce", 2),
        ("wife", 1),
        ("husband", 1),
        ("pension alimenticia", 2),
        ("manutencion", 2),
        ("custodia", 2),
        ("mis hijos", 2),
        ("mi hijo", 1),
        ("mi hija", 1),
        ("visitas", 1),
        ("familia", 1),
        ("divorcio", 2),
        ("reunite", 1),
        ("parental rights", 2),
        ("patria potestad", 2),
        ("derechos de padre", 2),
        ("derechos de madre", 2),
    ),
    "education": (
        ("ged", 2),
        ("school", 2),
        ("college", 2),
        ("class", 1),
        ("classes", 1),
        ("pell", 2),
        ("fafsa", 2),
        ("financial aid", 2),
        ("degree", 2),
        ("training program", 2),
        ("certificate program", 2),
        ("hse", 2),
        ("escuela", 2),
        ("universidad", 2),
        ("estudiar", 2),
        ("clases", 2),
        ("diploma", 2),
        ("colegio", 1),
        ("ayuda financiera", 2),
        ("trade school", 2),
        ("welding", 1),
    ),
    "legal_aid": (
        ("lawyer", 2),
        ("attorney", 2),
        ("legal aid", 2),
        ("legal help", 2),
        ("free legal", 2),
        ("public defender", 2),
        ("abogado", 2),
        ("ayuda legal", 2),
        ("asesoria legal", 2),
        ("court", 1),
        ("corte", 1),
        ("sue", 1),
        ("legal advice", 2),
        ("defensor publico", 2),
        ("plea", 2),
        ("prosecutor", 2),
        ("fiscal", 2),
        ("declararme culpable", 2),
        ("file a case", 2),
        ("filing fee", 2),
        ("fee waiver", 2),
    ),
    # Questions whose rules the corpus files under "other" (guns, juries, public office).
    "other": (
        ("gun", 2),
        ("guns", 2),
        ("firearm", 2),
        ("firearms", 2),
        ("pistola", 2),
        ("arma de fuego", 2),
        ("jury duty", 2),
        ("serve on a jury", 2),
        ("jury service", 2),
        ("jurado", 2),
        ("run for office", 2),
        ("public office", 2),
    ),
}

_NEED_PATTERNS: dict[str, list[tuple[re.Pattern[str], int]]] = {
    need: [(re.compile(r"(?<![a-z])" + re.escape(term.strip()) + r"(?![a-z])"), weight) for term, weight in terms]
    for need, terms in _NEED_TERMS.items()
}

_ES_WORDS = frozenset(
    "el la los las de del que y en un una por para con como donde dónde puedo necesito tengo quiero mi mis "
    "es esta estoy sali salí hola ayuda gracias porque pero cuanto cuánto cuesta hay trabajo vivienda me "
    "se su sus al lo le nos usted ustedes ya muy bien aqui aquí tambien también sobre eso esa este".split()
)
_EN_WORDS = frozenset(
    "the a an of and to in is i my me you can how where what need get do does for with just got out on "
    "it im i'm am are was have help please who when this that there from your need about any".split()
)

_STATES = (
    "alabama|alaska|arizona|arkansas|california|colorado|connecticut|delaware|florida|georgia|hawaii|idaho|"
    "illinois|indiana|iowa|kansas|kentucky|louisiana|maine|maryland|massachusetts|michigan|minnesota|"
    "mississippi|missouri|montana|nebraska|nevada|new hampshire|new jersey|new mexico|new york|north carolina|"
    "north dakota|ohio|oklahoma|oregon|pennsylvania|rhode island|south carolina|south dakota|tennessee|utah|"
    "vermont|virginia|washington state|west virginia|wisconsin|wyoming|nuevo mexico|nueva york|luisiana|"
    "california|florida"
)
_OUT_OF_STATE = re.compile(
    rf"\b(?:in|from|to|of|en|de|a|under)\s+(?P<state>{_STATES})\b|\b(?P<state2>{_STATES})\s+(?:law|laws|parole|probation|prison|ley|leyes)\b"
)
_TEXAS = re.compile(r"\b(?:texas|tx|tdcj|houston|dallas|austin|san antonio|el paso|fort worth)\b")

_LEGAL_ADVICE = re.compile(
    r"\b(?:should i (?:plead|take (?:the|a) (?:plea|deal)|sign|fight|appeal|tell (?:my|the) (?:po|judge|officer))|"
    r"what should i (?:say|do) (?:in|at|about) (?:court|my (?:case|hearing|trial))|can you (?:be|represent) (?:my|me)|"
    r"will i (?:win|go back|get revoked)|how do i beat (?:my|the) (?:case|charge)|"
    r"(?:debo|deberia) (?:declararme|aceptar (?:el|la) (?:trato|acuerdo|oferta))|que (?:digo|hago) en (?:la )?corte|"
    r"voy a ganar|should i (?:just )?(?:skip|miss|not go to|stop (?:going|reporting)))\b"
)
_HUMAN_REQUEST = re.compile(
    r"(?:^\s*(?:agent|human|humano|persona|operator|representative)\s*[.!?]*\s*$|"
    r"\b(?:talk|speak|chat)\s+(?:to|with)\s+(?:a|an|my|someone|somebody)?\s*(?:real\s+)?(?:person|human|agent|case ?manager|somebody|someone)\b|"
    r"\b(?:hablar con (?:una persona|alguien|un humano|mi (?:manejador|trabajador)a? de caso))\b|\bquiero un humano\b)"
)
_SUPERVISION = (
    ("parole", re.compile(r"\b(?:on parole|parolee|paroled|parole officer|libertad condicional|parol)\b")),
    ("probation", re.compile(r"\b(?:on probation|probation officer|community supervision|probatoria)\b")),
    ("mandatory_supervision", re.compile(r"\bmandatory supervision\b")),
    ("none", re.compile(r"\b(?:off paper|discharged|done with parole|termine mi|flat timed?|maxed out)\b")),
)
_NEEDS_ATTRIBUTES = (
    (
        "id_not_required",
        re.compile(
            r"\b(?:no (?:id|identification|identificacion)|don'?t have (?:an |my )?id|lost my id|sin (?:id|identificacion))\b"
        ),
    ),
    ("accepts_records", re.compile(r"\b(?:felony|felon|record|convicted|conviction|antecedentes|delito grave)\b")),
    ("walk_in", re.compile(r"\b(?:tonight|right now|today|walk[- ]in|ahorita|hoy|esta noche)\b")),
)
_FOLLOW_UP = re.compile(
    r"^(?:and |y |what about|how about|and what about|what if|que tal|y (?:si|en|eso|para)|and in|y cuanto|how much|"
    r"cuanto|where is that|donde (?:queda|esta) eso|and for|what else|anything else|algo mas|otra cosa|same|lo mismo)"
)


_CONTEXT_NEEDS = frozenset({"supervision", "legal_record"})


@dataclass(frozen=True)
class IntakeGuess:
    """What the rules concluded, and whether they are sure enough to skip the model."""

    language: str
    top_need: str
    scores: dict[str, int] = field(default_factory=dict)
    supervision: str = "unknown"
    out_of_state: str | None = None
    legal_advice: bool = False
    human_request: bool = False
    needs: tuple[str, ...] = ()
    sure: bool = True


def detect_language(text: str, hint: str | None = None) -> str:
    """Return 'es' or 'en' from the message itself; the hint only breaks ties (Spanglish → dominant)."""
    words = re.findall(r"[a-záéíóúñü']+", text.lower())
    spanish = sum(1 for word in words if word in _ES_WORDS) + 2 * len(re.findall(r"[ñáéíóú¿¡]", text.lower()))
    english = sum(1 for word in words if word in _EN_WORDS)
    if spanish > english:
        return "es"
    if english > spanish:
        return "en"
    return hint if hint in {"en", "es"} else "en"


def score_needs(text: str) -> dict[str, int]:
    """Score each need category by weighted keyword hits in the folded text."""
    folded = f" {fold(text)} "
    scores: dict[str, int] = {}
    for need, patterns in _NEED_PATTERNS.items():
        score = sum(weight for pattern, weight in patterns if pattern.search(folded))
        if score:
            scores[need] = score
    return scores


def is_follow_up(text: str) -> bool:
    """A short message that leans on the previous turn ('what about Dallas?', 'y eso cuánto cuesta?')."""
    folded = fold(text).strip()
    return bool(_FOLLOW_UP.match(folded)) or (len(folded.split()) <= 4 and not score_needs(folded))


def out_of_state(text: str) -> str | None:
    """Name another US state the question is about, unless Texas is also in play."""
    folded = fold(text)
    match = _OUT_OF_STATE.search(folded)
    if not match or _TEXAS.search(folded):
        return None
    return (match.group("state") or match.group("state2")).title()


def guess(text: str, *, language_hint: str | None = None) -> IntakeGuess:
    """Apply every rule to one redacted message."""
    folded = fold(text)
    scores = score_needs(text)
    ranked = sorted(scores.items(), key=lambda item: (-item[1], NEED_CATEGORIES.index(item[0])))
    # Supervision and a record are often context ("on parole", "I have a felony"), not the need itself:
    # when one ties with a concrete need, the concrete need wins.
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1] and ranked[0][0] in _CONTEXT_NEEDS:
        concrete = [item for item in ranked if item[0] not in _CONTEXT_NEEDS and item[1] == ranked[0][1]]
        if concrete:
            ranked = [concrete[0]] + [item for item in ranked if item != concrete[0]]
    top_need = ranked[0][0] if ranked else "other"
    tie = len(ranked) > 1 and ranked[0][1] == ranked[1][1] and ranked[1][0] not in _CONTEXT_NEEDS
    supervision = next((label for label, pattern in _SUPERVISION if pattern.search(folded)), "unknown")
    needs = tuple(label for label, pattern in _NEEDS_ATTRIBUTES if pattern.search(folded))
    return IntakeGuess(
        language=detect_language(text, language_hint),
        top_need=top_need,
        scores=scores,
        supervision=supervision,
        out_of_state=out_of_state(text),
        legal_advice=bool(_LEGAL_ADVICE.search(folded)),
        human_request=bool(_HUMAN_REQUEST.search(folded)),
        needs=needs,
        sure=bool(ranked) and not tie,
    )


def wants_human(text: str) -> bool:
    """Whether the message as sent asks for a person ('AGENT', 'talk to a person', 'HUMANO')."""
    return bool(_HUMAN_REQUEST.search(fold(text)))
