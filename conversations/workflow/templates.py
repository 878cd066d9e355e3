"""The deterministic draft: answers the question from reviewed key points, then the places.

Used with no API key, and whenever the model fails or runs out of time. It leads with the key point
that matches what was asked (an eligibility question gets the eligibility point first, a cost
question the cost point), each sentence cited; then the entry's caveat ("Note: …"), the places and
the disclaimer. It returns its claims as data too: one statement per cited sentence, with the
entry and the verbatim quote it rests on. Each revision level makes the reply shorter and plainer,
so an audit soft_block on length or readability can be satisfied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

NOT_ADVICE = {
    "en": "This is general information, not legal advice.",
    "es": "Esto es información general, no es asesoría legal.",
}
# Used only for evidence that carries no key points (an entry added before they were written).
INTRO = {
    "en": "Here is what Texas rules say:",
    "es": "Esto es lo que dicen las reglas de Texas:",
}
NOTE = {"en": "Note:", "es": "Nota:"}
SMS_NOTE_CHARS = 140

# What kind of answer a question asks for: its key point leads the reply.
_QUESTION_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "cost",
        re.compile(
            r"\b(?:cost|costs|how much|price|fee|fees|free|pay|charge|cu[aá]nto (?:cuesta|cobran|vale|hay que pagar)|cuesta|costo|cuota|gratis|pagar|cobran)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "deadline",
        re.compile(
            r"\b(?:when|how long|how soon|deadline|how many days|by when|cu[aá]ndo|cu[aá]nto tiempo|plazo|fecha l[ií]mite)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "eligibility",
        re.compile(
            r"\b(?:can i|can you|may i|am i|allowed|eligible|qualify|is it legal|do i (?:still )?(?:get|lose)|puedo|me dejan|tengo derecho|elegible|califico|es legal)\b"
            r"|^\W*(?:can|may|am|is|do)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "process",
        re.compile(
            r"\b(?:how do i|how can i|how to|where do i|what do i need|c[oó]mo|d[oó]nde|qu[eé] necesito)\b",
            re.IGNORECASE,
        ),
    ),
)


def question_kind(query: str) -> str | None:
    """The kind of answer a question asks for (cost, deadline, eligibility, process), if any."""
    for kind, pattern in _QUESTION_KINDS:
        if pattern.search(query):
            return kind
    return None


NO_ASSERT = {
    "en": "I'm not certain about the rule for your question, so I won't guess.",
    "es": "No estoy seguro de la regla para su pregunta, así que no voy a adivinar.",
}
NO_ASSERT_HELP = {
    "en": "211 Texas (call 2-1-1) or a legal aid office can check it with you.",
    "es": "211 Texas (llame al 2-1-1) o una oficina de ayuda legal pueden revisarlo con usted.",
}
PLACES = {
    "en": "Places that can help:",
    "es": "Lugares que pueden ayudar:",
}
NO_LOCAL = {
    "en": "I don't have a local listing for this in your area yet. These statewide lines can help, and 2-1-1 can find local help:",
    "es": "Todavía no tengo un lugar local para esto en su zona. Estas líneas estatales pueden ayudar, y el 2-1-1 puede encontrar ayuda local:",
}
NO_PLACES = {
    "en": "For help near you, call 211 Texas (2-1-1).",
    "es": "Para ayuda cerca de usted, llame a 211 Texas (2-1-1).",
}

# "Where can I find food?" or "who hires felons in Houston" asks for a place or a service, not a rule:
# with no rule to cite, the reply leads with the places (or 2-1-1) instead of saying it is unsure about
# a rule nobody asked for. The honest "not certain" line is kept for a question that asks a rule
# ("can I…", "am I allowed", "eligible", "ley") and for the needs that are rules by nature.
_ASKS_PLACE = re.compile(
    r"\b(?:where|find|near(?: me)?|nearby|closest|shelter|food bank|pantry|i need|need (?:a|an|some)|looking for|"
    r"d[oó]nde|encontrar|cerca|albergue|refugio|despensa|necesito|busco)\b",
    re.IGNORECASE,
)
_ASKS_RULE = re.compile(
    r"(?<!ayuda )\blegal\b(?! (?:aid|help|services|clinic|office))|"
    r"\b(?:allowed|eligible|eligibility|illegal|laws?|rules?|banned|barred|disqualif\w*|requirements?|required|"
    r"if i can|permitid\w*|elegible|leyes|ley|reglas?|prohibid\w*|requisitos?|si puedo|qualify|califico|"
    r"me dejan|tengo derecho|es legal|tengo que|do i (?:still )?have to|have the right)\b"
    r"|(?<!where )(?<!how )\b(?:can|may|could) (?:i|we|they|felons?|a felon|someone on parole)\b|\bam i\b"
    r"|(?<!donde )(?<!dónde )(?<!como )(?<!cómo )\bpuedo\b",
    re.IGNORECASE,
)
# Needs whose questions are about rules whatever their wording ("help with my record", "voting after prison").
RULE_NEEDS = frozenset({"legal_record", "voting", "supervision"})


def asks_for_a_place(query: str) -> bool:
    """True for a request for places or services ("food in San Antonio?") that asks no rule."""
    return bool(_ASKS_PLACE.search(query)) and not _ASKS_RULE.search(query)


def asks_a_rule(query: str, need: str | None = None) -> bool:
    """True when the message asks what a rule says: only then is "not certain about the rule" the honest line.

    A request for food tonight or a job asks no rule; a need such as voting or a record is a rule
    question unless the message only asks where to go.
    """
    if _ASKS_RULE.search(query):
        return True
    return need in RULE_NEEDS and not _ASKS_PLACE.search(query)


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# A full stop after these is part of a legal abbreviation ("U.S.", "Tex.", "art."), not a sentence end.
_ABBREVIATION = re.compile(
    r"(?:\b(?:U\.S|U\.S\.C|C\.F\.R|Tex|Gov't|Crim|Proc|Admin|Ann|Stat|Civ|Fam|Occ|Transp|Hum|Res|Elec|Health|"
    r"Saf|Pen|Const|art|arts|No|Nos|ch|e\.g|i\.e|St|Dr|Inc|Dept|Sec|sec|v|vs|Jr|Sr|Co)\.)$"
)


def _sentences(text: str) -> list[str]:
    parts: list[str] = []
    for piece in _SENTENCE.split(text.strip()):
        if parts and _ABBREVIATION.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {piece}"
        elif piece.strip():
            parts.append(piece.strip())
    return parts


def _cited(summary: str, citation: str, *, max_sentences: int) -> str:
    """Attach the citation to every sentence, so each claim carries its own source."""
    parts = _sentences(summary)[:max_sentences]
    return " ".join(f"{sentence.rstrip('.')} [{citation}]." for sentence in parts)


def _points(
    evidence: Sequence[Mapping[str, Any]], kind: str | None
) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """(evidence, key point) pairs, the asked kind first, then retrieval order, then the entry's own order."""
    pairs = [(item, point) for item in evidence for point in (item.get("key_points") or [])]
    return sorted(pairs, key=lambda pair: 0 if kind and pair[1].get("kind") == kind else 1)


def shorten(text: str, limit: int) -> str:
    """The first sentence of `text`, cut at a word before `limit` characters with "…" when longer."""
    first = _sentences(text)[0] if _sentences(text) else text
    if len(first) <= limit:
        return first
    cut = first[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def note_line(caveat: str, lang: str, *, channel: str) -> str:
    """A caveat as the reply shows it: "Note: …" whole on the web, its first sentence shortened by SMS."""
    caveat = caveat.strip()
    text = shorten(caveat, SMS_NOTE_CHARS) if channel == "sms" else caveat
    return f"{NOTE[lang if lang in NOTE else 'en']} {text}"


def _caveat_line(item: Mapping[str, Any], lang: str, channel: str) -> str | None:
    caveat = str(item.get("caveat") or "").strip()
    return note_line(caveat, lang, channel=channel) if caveat else None


def _resource_line(resource: Mapping[str, Any], channel: str) -> str:
    phone = resource.get("phone_display") or resource.get("phone") or ""
    city = resource.get("city") or ""
    bits = [str(resource.get("name", ""))]
    if phone:
        bits.append(str(phone))
    if city and channel == "web":
        bits.append(str(city))
    return "- " + ", ".join(bit for bit in bits if bit)


def render(
    *,
    language: str,
    channel: str,
    evidence: Sequence[Mapping[str, Any]],
    gated: bool,
    resources: Sequence[Mapping[str, Any]],
    level: int = 0,
    query: str = "",
    need: str | None = None,
) -> str:
    """Render a reply in `language`; level 0 is full, 1 compact, 2 minimal."""
    return render_structured(
        language=language,
        channel=channel,
        evidence=evidence,
        gated=gated,
        resources=resources,
        level=level,
        query=query,
        need=need,
    )[0]


def render_structured(
    *,
    language: str,
    channel: str,
    evidence: Sequence[Mapping[str, Any]],
    gated: bool,
    resources: Sequence[Mapping[str, Any]],
    level: int = 0,
    query: str = "",
    need: str | None = None,
) -> tuple[str, list[dict[str, str]]]:
    """Render a reply and its statements ({text, entry, quote} for each cited sentence)."""
    lang = language if language in NOT_ADVICE else "en"
    lines: list[str] = []
    statements: list[dict[str, str]] = []
    max_points = (3, 2, 1)[min(level, 2)] if channel == "web" else (2, 1, 1)[min(level, 2)]
    max_evidence = (2, 1, 1)[min(level, 2)]
    max_sentences = (3, 2, 1)[min(level, 2)]
    max_resources = (3 if channel == "web" else 2, 2, 1)[min(level, 2)]
    hedged = False
    if gated or not evidence:
        if asks_a_rule(query, need):
            lines.append(NO_ASSERT[lang] + " " + NO_ASSERT_HELP[lang])
            hedged = True
    else:
        points = _points(evidence, question_kind(query))[:max_points]
        if points:
            for item, point in points:
                citation = str(item["citation"])
                sentences = _sentences(str(point[lang]))
                if channel == "sms" and level >= 1:
                    # A shorter SMS keeps each point's direct answer and the caveat before the point's
                    # restatement (Spanish runs about a third longer and would otherwise lose the note).
                    sentences = sentences[:1]
                for sentence in sentences:
                    lines.append(f"{sentence.rstrip('.')} [{citation}].")
                    statements.append(
                        {
                            "text": sentence.rstrip("."),
                            "entry": str(item["slug"]),
                            "quote": str(point.get(f"quote_{lang}") or ""),
                        }
                    )
            # The caveat that qualifies the answer: the lead point's entry's.
            note = _caveat_line(points[0][0], lang, channel) if level < 2 else None
            if note:
                lines.append(note)
        else:
            lines.append(INTRO[lang])
            lines.extend(
                _cited(str(item["summary"]), str(item["citation"]), max_sentences=max_sentences)
                for item in evidence[:max_evidence]
            )
    if resources:
        lines.append(NO_LOCAL[lang] if any(item.get("no_local_listing") for item in resources) else PLACES[lang])
        lines.extend(_resource_line(resource, channel) for resource in resources[:max_resources])
    elif not gated or not hedged:
        lines.append(NO_PLACES[lang])
    if not gated and evidence:
        lines.append(NOT_ADVICE[lang])
    return "\n".join(lines), statements
