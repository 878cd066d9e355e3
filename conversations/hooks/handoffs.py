"""Handoff messages: who can help, said warmly and briefly, in the person's language.

Every text fits two SMS segments (<= 306 GSM-7 characters in English) so a crisis handoff arrives
whole. Numbers come from the verified reference list (988, NDVH, RAINN, 211 Texas) or are national
constants (911, Poison Control); legal aid is named by website because its phone numbers are not
verified yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, NamedTuple

__all__ = ["HANDOFF_CATEGORIES", "Handoff", "Line", "handoff_for"]


class Line(NamedTuple):
    """One place to reach a person: a name and at least one of phone, text instruction or website.

    A tuple so it serializes straight to JSON (the workflow stores handoffs in turn state).
    """

    name: str
    phone: str = ""
    text: str = ""  # e.g. "Text START to 88788"
    url: str = ""


@dataclass(frozen=True, slots=True)
class Handoff:
    category: str
    language: str
    text: str
    lines: tuple[Line, ...]


L988: Final = Line("988 Suicide & Crisis Lifeline", phone="988", text="Text 988", url="https://988lifeline.org")
L911: Final = Line("Emergency services", phone="911")
NDVH: Final = Line(
    "National Domestic Violence Hotline",
    phone="1-800-799-7233",
    text="Text START to 88788",
    url="https://www.thehotline.org",
)
POISON: Final = Line("Poison Control", phone="1-800-222-1222", url="https://www.poison.org")
RAINN: Final = Line("RAINN National Sexual Assault Hotline", phone="1-800-656-4673", url="https://www.rainn.org")
TX211: Final = Line("2-1-1 Texas", phone="2-1-1 or 1-877-541-7905", url="https://www.211texas.org")
TEXASLAWHELP: Final = Line("TexasLawHelp.org", url="https://texaslawhelp.org")
LONE_STAR: Final = Line("Lone Star Legal Aid", url="https://www.lonestarlegal.org")
TRLA: Final = Line("Texas RioGrande Legal Aid", url="https://www.trla.org")
LAWHELP: Final = Line("LawHelp.org", url="https://www.lawhelp.org")
US211: Final = Line("211", phone="211", url="https://www.211.org")

_TEXTS: Final[dict[str, dict[str, str]]] = {
    "suicide_self_harm": {
        "en": (
            "I'm really glad you reached out. You don't have to carry this alone. Call or text 988 "
            "(Suicide & Crisis Lifeline), free, 24/7. They also help people worried about someone "
            "else. If anyone is in danger now or took something, call 911."
        ),
        "es": (
            "Gracias por contármelo. No tienes que cargar con esto solo. Llama o manda un texto al 988 "
            "(Línea de Crisis y Suicidio), gratis, 24/7; marca 2 para español. También ayudan si te "
            "preocupa otra persona. Si alguien está en peligro o tomó algo, llama al 911."
        ),
    },
    "domestic_violence": {
        "en": (
            "What's happening to you is not okay, and you deserve to be safe. National Domestic "
            "Violence Hotline: call 1-800-799-7233 or text START to 88788, free and confidential, "
            "24/7. If you're in danger right now, call 911."
        ),
        "es": (
            "Lo que te está pasando no está bien y mereces estar a salvo. Línea Nacional de Violencia "
            "Doméstica: llama al 1-800-799-7233 o manda START al 88788, gratis y confidencial, 24/7. "
            "Si estás en peligro ahora, llama al 911."
        ),
    },
    "medical_emergency_overdose": {
        "en": (
            "Call 911 now. If someone isn't breathing or won't wake up, tell the operator and stay "
            "with them. Use Narcan (naloxone) if you have it. Poison Control: 1-800-222-1222, 24/7."
        ),
        "es": (
            "Llama al 911 ahora. Si alguien no respira o no despierta, díselo al operador y quédate "
            "con esa persona. Usa Narcan (naloxona) si lo tienes. Control de Envenenamientos: "
            "1-800-222-1222, 24/7."
        ),
    },
    "immediate_danger": {
        "en": (
            "Please call 911 now. If you can, get to a safe place with other people around. "
            "When you're safe, I'm here to help with next steps."
        ),
        "es": (
            "Por favor llama al 911 ahora. Si puedes, ve a un lugar seguro con más gente. "
            "Cuando estés a salvo, aquí estoy para ayudarte con lo que sigue."
        ),
    },
    "sexual_assault": {
        "en": (
            "I'm so sorry that happened. It was not your fault. RAINN's National Sexual Assault "
            "Hotline is free, confidential and 24/7: 1-800-656-4673. If you're hurt or in danger "
            "right now, call 911."
        ),
        "es": (
            "Siento mucho lo que te pasó. No fue tu culpa. La línea nacional de RAINN sobre agresión "
            "sexual es gratis, confidencial y 24/7: 1-800-656-4673. Si estás herido o en peligro "
            "ahora, llama al 911."
        ),
    },
    "housing_emergency": {
        "en": (
            "Let's get you somewhere safe tonight. Call 2-1-1 (or 1-877-541-7905): 211 Texas can find "
            "open shelters and emergency help near you, 24/7. If you're in danger, call 911."
        ),
        "es": (
            "Busquemos un lugar seguro para esta noche. Llama al 2-1-1 (o 1-877-541-7905): 211 Texas "
            "encuentra refugios abiertos y ayuda de emergencia cerca de ti, 24/7. Si estás en "
            "peligro, llama al 911."
        ),
    },
    "legal_aid": {
        "en": (
            "I can share what the rules say, but I can't give legal advice about your own case. "
            "For free legal help, TexasLawHelp.org lists legal aid by county, including Lone Star "
            "Legal Aid and Texas RioGrande Legal Aid. 2-1-1 can also connect you."
        ),
        "es": (
            "Puedo compartir lo que dicen las reglas, pero no puedo darte consejo legal sobre tu caso. "
            "Para ayuda legal gratis, TexasLawHelp.org tiene asistencia legal por condado, como Lone "
            "Star Legal Aid y Texas RioGrande Legal Aid. El 2-1-1 también te conecta."
        ),
    },
    "out_of_state": {
        "en": (
            "Pathways covers Texas only, so I can't speak to another state's rules. Dial 2-1-1 in "
            "most of the US to reach local help, and LawHelp.org can point you to free legal aid "
            "in your state."
        ),
        "es": (
            "Pathways solo cubre Texas, así que no puedo hablar de las reglas de otro estado. Marca el "
            "2-1-1 en casi todo el país para ayuda local, y LawHelp.org te orienta a ayuda legal "
            "gratis en tu estado."
        ),
    },
    "uncertain": {
        "en": (
            "I'm not certain about this one, and I don't want to guess. 211 Texas can connect you "
            "with someone who knows: call 2-1-1 (or 1-877-541-7905), 24/7."
        ),
        "es": (
            "No estoy seguro de esto y no quiero adivinar. 211 Texas te conecta con alguien que sabe: "
            "llama al 2-1-1 (o 1-877-541-7905), 24/7."
        ),
    },
    "bound_breach": {
        "en": (
            "Sorry, I couldn't finish a reliable answer just now. Please try again in a little "
            "while, or call 2-1-1 (1-877-541-7905) for help now. If you're in danger, call 911."
        ),
        "es": (
            "Perdón, no pude terminar una respuesta confiable. Intenta de nuevo en un rato, o llama "
            "al 2-1-1 (1-877-541-7905) para ayuda ahora. Si estás en peligro, llama al 911."
        ),
    },
}

_LINES: Final[dict[str, tuple[Line, ...]]] = {
    "suicide_self_harm": (L988, L911),
    "domestic_violence": (NDVH, L911),
    "medical_emergency_overdose": (L911, POISON),
    "immediate_danger": (L911,),
    "sexual_assault": (RAINN, L911),
    "housing_emergency": (TX211, L911),
    "legal_aid": (TEXASLAWHELP, LONE_STAR, TRLA, TX211),
    "out_of_state": (US211, LAWHELP),
    "uncertain": (TX211,),
    "bound_breach": (TX211, L911),
}

# Names the workflow may use for the same handoff.
_ALIASES: Final = {
    "gated": "uncertain",
    "deadline": "bound_breach",
    "loop": "bound_breach",
    "bound": "bound_breach",
    "legal_advice": "legal_aid",
}

HANDOFF_CATEGORIES: Final = tuple(_TEXTS)
LANGUAGES: Final = ("en", "es")


def handoff_for(category: str, language: str) -> Handoff:
    """The handoff for a crisis or workflow category, in `language` ("en" or "es").

    Fails safe rather than raising: an unknown category gets the "uncertain" (211 Texas) handoff
    and an unknown language gets English.
    """
    key = _ALIASES.get(category, category)
    if key not in _TEXTS:
        key = "uncertain"
    lang = language if language in LANGUAGES else "en"
    return Handoff(category=key, language=lang, text=_TEXTS[key][lang], lines=_LINES[key])
