"""Fixed SMS texts (keywords, notices) in English and Spanish, and keyword parsing.

Fixed texts never go through the workflow or the approval queue: they are compliance answers
(STOP/START/HELP) or operational notices, written here once and reviewed like code.
"""

from __future__ import annotations

import re
from typing import Final

from vocab import fold

NOTICE_VERSION: Final = "sms-notice-v1"

# Keyword -> (action, language it implies or None for "the contact's language").
KEYWORDS: Final[dict[str, tuple[str, str | None]]] = {
    "STOP": ("stop", None),
    "STOPALL": ("stop", None),
    "UNSUBSCRIBE": ("stop", None),
    "CANCEL": ("stop", None),
    "END": ("stop", None),
    "QUIT": ("stop", None),
    "PARAR": ("stop", "es"),
    "START": ("start", None),
    "UNSTOP": ("start", None),
    "HELP": ("help", None),
    "AYUDA": ("help", "es"),
    "MORE": ("more", None),
    "MAS": ("more", "es"),
}

TEXTS: Final[dict[str, dict[str, str]]] = {
    "opt_out_confirmation": {
        "en": "Pathways: you are unsubscribed and will get no more texts from this number. Reply START to resume.",
        "es": "Pathways: se dio de baja y no recibirá más mensajes de este número. Responda START para volver.",
    },
    "opt_in_confirmation": {
        "en": "Pathways: you will get texts from us again. Reply HELP for help, STOP to end.",
        "es": "Pathways: volverá a recibir nuestros mensajes. Responda AYUDA para ayuda, PARAR para terminar.",
    },
    "help": {
        "en": (
            "Pathways helps people coming home from prison or jail in Texas find rules and local help. "
            "In crisis? Call or text 988 (Suicide & Crisis Lifeline). Emergency: call 911. Reply STOP to end, "
            "DELETE to erase your texts."
        ),
        "es": (
            "Pathways ayuda a personas que salen de prisión o cárcel en Texas a encontrar reglas y ayuda local. "
            "¿En crisis? Llame o envíe un texto al 988 (Línea 988 de Prevención del Suicidio y Crisis). "
            "Emergencia: llame al 911. Responda PARAR para terminar, BORRAR para borrar sus mensajes."
        ),
    },
    "more_none": {
        "en": "Pathways: there is nothing more to send. Text your question any time.",
        "es": "Pathways: no hay nada más que enviar. Escriba su pregunta cuando quiera.",
    },
    "rate_limit": {
        "en": "Pathways: we got several messages at once. We saved them all and will answer in a few minutes.",
        "es": "Pathways: recibimos varios mensajes a la vez. Los guardamos todos y responderemos en unos minutos.",
    },
    "first_contact": {
        "en": (
            "Privacy: Pathways keeps a copy of these texts with personal details removed, and a case manager "
            "may read them. Reply STOP to end, HELP for help."
        ),
        "es": (
            "Privacidad: Pathways guarda una copia de estos mensajes sin datos personales, y un administrador "
            "de casos puede leerlos. Responda PARAR para terminar, AYUDA para ayuda."
        ),
    },
    "more_hint": {"en": "(Reply MORE for the rest)", "es": "(Responda MAS para el resto)"},
    # The label of a place's documents, as its web card says it ("Bring" / "Lleve").
    "bring": {"en": "Bring:", "es": "Lleve:"},
}

_NOT_WORD = re.compile(r"[^A-Z]+")


def text_for(key: str, language: str) -> str:
    """A fixed text in `language` (English when the language is unknown)."""
    table = TEXTS[key]
    return table.get(language) or table["en"]


def keyword_match(body: str) -> tuple[str, str | None, str] | None:
    """Return (action, implied language, keyword) when the whole message is one keyword, else None.

    Case, accents, surrounding spaces and punctuation are ignored ("Stop.", "más"); a keyword inside a
    sentence ("stop asking me") is an ordinary message, as with carriers' own keyword handling.
    """
    if len(body) > 40:
        return None
    folded = fold(body).upper()
    word = _NOT_WORD.sub("", folded) if len(folded.split()) <= 2 else ""
    # "STOP ALL" sent with a space is the same keyword as STOPALL.
    if word in KEYWORDS:
        action, language = KEYWORDS[word]
        return action, language, word
    return None
