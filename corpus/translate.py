"""Spanish key terms of the corpus's domain, carried into the English index.

MiniLM (the embedding model) is English-centred, and the English full-text vectors hold the
richest wording of each entry, so a Spanish question misses entries that an English one finds.
There is no multilingual embedding model that installs offline from a PyPI wheel here, so the
question is expanded instead: each reentry term recognised in it (accent-folded, SMS spellings
included) adds its English equivalent. Deterministic, a dictionary lookup, no model.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Final

# Spanish (folded, lower-case) → English. Longer phrases are matched before their words.
GLOSSARY: Final[dict[str, str]] = {
    # supervision
    "libertad condicional": "parole", "libertad bajo palabra": "parole", "bajo palabra": "parole",
    "parol": "parole", "la parol": "parole", "parole": "parole", "supervision obligatoria": "mandatory supervision",
    "probatoria": "probation", "probation": "probation", "libertad a prueba": "probation",
    "supervision comunitaria": "community supervision probation", "oficial de parole": "parole officer",
    "oficial de libertad": "parole officer", "mi oficial": "parole officer", "agente de libertad": "parole officer",
    "mi po": "parole officer", "cuota de supervision": "supervision fee", "cuotas": "fees", "cuota": "fee",
    "multas": "fines fees", "multa": "fine fee", "pagar la parole": "parole fee", "condiciones": "conditions",
    "mudarme": "move residence", "mudarse": "move residence", "cambiarme de condado": "move county residence",
    "otro condado": "another county", "condado": "county", "viajar": "travel", "permiso de viaje": "travel permit",
    "reportarme": "report", "reportarse": "report", "terminar antes": "early termination", "terminacion anticipada": "early termination",
    "salir antes": "early release", "junta de libertad": "parole board", "junta de parole": "parole board",
    "registro de ofensores sexuales": "sex offender registration", "ofensor sexual": "sex offender",
    "registrarme como ofensor": "sex offender registration", "registro": "registration",
    # record
    "antecedentes penales": "criminal record", "antecedentes": "criminal record", "record criminal": "criminal record",
    "mi record": "my criminal record", "expediente": "record", "borrar": "expunge expunction", "limpiar": "clear expunge",
    "eliminar": "expunge", "expungir": "expunge", "sellar": "seal nondisclosure", "no divulgacion": "nondisclosure",
    "orden de no divulgacion": "order of nondisclosure", "adjudicacion diferida": "deferred adjudication",
    "deferred": "deferred adjudication", "desestimaron": "dismissed", "desestimado": "dismissed", "retiraron los cargos": "charges dismissed",
    "cargos": "charges", "absuelto": "acquitted", "inocente": "acquitted not guilty", "arresto": "arrest",
    "me arrestaron": "arrested", "perdon": "pardon", "indulto": "pardon", "gobernador": "governor",
    "verificacion de antecedentes": "background check", "revision de antecedentes": "background check",
    "background": "background check", "condena": "conviction", "convicto": "convicted", "convicted": "convicted",
    "delito grave": "felony", "felonia": "felony", "felony": "felony", "delito menor": "misdemeanor", "misdemeanor": "misdemeanor",
    "manejar borracho": "DWI", "dwi": "DWI", "peticion": "petition", "solicitud": "application petition",
    # voting
    "votar": "vote voting", "voto": "vote", "elecciones": "election", "registrarme para votar": "register to vote",
    "registro de votantes": "voter registration", "votante": "voter", "lista de votantes": "voter roll",
    "cumplir la sentencia": "sentence fully discharged", "sentencia": "sentence", "postularme": "run for office",
    "cargo publico": "public office", "jurado": "jury service",
    # ids
    "identificacion": "identification ID card", "credencial": "ID card", "tarjeta de identificacion": "identification card",
    "mi id": "ID card", "la id": "ID card", "licencia de manejar": "driver license", "licencia de conducir": "driver license",
    "licencia": "license", "acta de nacimiento": "birth certificate", "certificado de nacimiento": "birth certificate",
    "tarjeta del seguro social": "social security card", "seguro social": "social security",
    "papeles": "documents", "documentos": "documents", "tarjeta de tdcj": "TDCJ ID card", "dps": "DPS driver license office",
    "recargos": "surcharges", "suspendieron": "suspended", "suspension": "suspension", "suspendida": "suspended",
    # housing
    "vivienda": "housing", "vivienda publica": "public housing", "seccion 8": "section 8 housing voucher",
    "section 8": "section 8 housing voucher", "casero": "landlord", "dueno": "landlord", "arrendador": "landlord",
    "rentar": "rent", "renta": "rent", "apartamento": "apartment", "desalojo": "eviction", "desalojaron": "evicted",
    "casa de transicion": "halfway house transitional housing", "albergue": "shelter", "refugio": "shelter",
    "donde vivir": "housing place to live", "donde quedarme": "housing place to stay",
    # employment
    "trabajo": "job employment", "empleo": "employment job", "chamba": "job", "jale": "job", "contratar": "hire",
    "contratan": "hire", "patron": "employer", "empleador": "employer", "empleadores": "employers", "jefe": "employer boss",
    "licencia ocupacional": "occupational license", "licencia de trabajo": "occupational license",
    "carta de evaluacion": "criminal history evaluation letter", "credito fiscal": "tax credit", "impuestos": "tax",
    "despedir": "fire terminate", "despidieron": "fired", "negligencia": "negligent hiring",
    "electricista": "electrician license", "barbero": "barber license", "plomero": "plumber license",
    "cosmetologia": "cosmetology license",
    # benefits, food, health
    "estampillas": "SNAP food stamps", "cupones": "SNAP food stamps", "food stamps": "SNAP food stamps",
    "beneficios": "benefits", "asistencia": "assistance", "ayuda del gobierno": "public benefits",
    "tanf": "TANF", "snap": "SNAP", "seguro medico": "Medicaid health coverage", "medicaid": "Medicaid",
    "medicare": "Medicare", "ssi": "SSI", "discapacidad": "disability", "incapacidad": "disability",
    "cheque": "benefit check", "comida": "food", "despensa": "food pantry", "banco de comida": "food bank",
    "banco de alimentos": "food bank", "hambre": "food", "salud mental": "mental health", "medicinas": "medication",
    "medicamentos": "medication", "doctor": "doctor health care", "tratamiento": "treatment",
    "drogas": "drug", "droga": "drug", "delito de drogas": "drug felony conviction",
    # family, education, legal aid
    "manutencion": "child support", "pension alimenticia": "child support", "child support": "child support",
    "custodia": "custody", "mis hijos": "children", "mi hijo": "child", "mi hija": "child", "patria potestad": "parental rights",
    "derechos de padre": "parental rights", "preso": "incarcerated", "encarcelado": "incarcerated",
    "carcel": "jail incarceration", "prision": "prison incarceration", "pinta": "prison", "tanque": "jail",
    "estudiar": "education school", "escuela": "school", "universidad": "college", "colegio": "college",
    "beca": "grant financial aid", "ayuda financiera": "financial aid", "prepa": "high school diploma GED",
    "ged": "GED", "diploma": "diploma", "abogado": "lawyer legal aid", "ayuda legal": "legal aid",
    "corte": "court", "costos de corte": "court costs", "demanda": "lawsuit civil case",
    "armas": "firearm gun", "arma": "firearm gun", "pistola": "handgun firearm", "licencia de pistola": "handgun license",
    "salir de tdcj": "release from TDCJ", "cuando salga": "release", "al salir": "release",
    "me soltaron": "released", "sali": "released", "dinero de salida": "release money gate money",
    # English slang and shorthand of the same domain, said the way people text it.
    "got out": "released from prison", "just got out": "released from prison", "get out": "release from prison",
    "getting out": "release from prison", "locked up": "incarcerated", "did time": "incarcerated prison",
    "id": "identification ID card", "my id": "identification ID card", "state id": "state identification card",
    "dl": "driver license", "drivers license": "driver license", "ss card": "social security card",
    "po": "parole officer", "p o": "parole officer", "off paper": "sentence discharged", "on paper": "on supervision",
    "ebt": "SNAP food benefits", "ankle monitor": "electronic monitoring conditions",
    "violate me": "revoke parole violation", "violated": "revocation violation", "wipe": "expunge", "wiped": "expunged",
    "seal": "seal nondisclosure", "sealed": "sealed nondisclosure", "clear my record": "expunge criminal record",
    "felon": "felony conviction", "halfway house": "halfway house transitional housing",
}

_WORD = re.compile(r"[a-z0-9ñ]+")


def fold(text: str) -> str:
    """Lower-case and strip accents (the corpus's one folding for matching words; FTS folds its own)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    terms = sorted(GLOSSARY, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(" + "|".join(re.escape(term) for term in terms) + r")(?![a-z0-9])")


def english_terms(text: str) -> str:
    """The English equivalents of the Spanish domain terms in `text` (empty when there are none)."""
    folded = " ".join(_WORD.findall(fold(text)))
    seen: list[str] = []
    for found in _pattern().finditer(folded):
        english = GLOSSARY[found.group(1)]
        if english not in seen:
            seen.append(english)
    return " ".join(seen)


def expand(text: str) -> str:
    """The question with the English terms of its Spanish words appended (unchanged when none)."""
    extra = english_terms(text)
    return f"{text} ({extra})" if extra else text
