"""Build a day-one release plan (deterministic: the step table, curated corpus entries, the directory).

Public surface: `plan_request_make`, `plan_build`, `plan_request_from_message` (chat: "I get out
Friday, going to Bexar County, on parole"), and `plans.render` for text and SMS parts.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from corpus.selectors import corpus_entry_get
from plans.dates import TZ, Ambiguous, parse_when
from plans.location import resolve_destination
from plans.steps import DISCLAIMER, STEPS, WHEN_OFFSETS
from plans.types import LANGUAGES, SUPERVISION, PlanError, PlanPlace, PlanRequest, PlanRule, PlanStep, ReleasePlan
from resources.selectors import match, service_card_get
from resources.types import ResourceCard
from vocab import NEED_CATEGORIES, fold

PLACES_PER_STEP: Final = 3
MAX_DAYS_AHEAD: Final = 366


def plan_request_make(
    *,
    release_date: dt.date,
    destination: str,
    supervision: str = "unknown",
    needs: tuple[str, ...] = (),
    language: str = "en",
    today: dt.date | None = None,
) -> PlanRequest:
    """Validate the inputs and resolve where the person is going; raises PlanError (OutOfTexas)."""
    today = today or dt.datetime.now(TZ).date()
    if language not in LANGUAGES:
        raise PlanError(
            field="language",
            code="unknown_language",
            message_en="Language must be en or es.",
            message_es="El idioma debe ser en o es.",
        )
    if supervision not in SUPERVISION:
        raise PlanError(
            field="supervision",
            code="unknown_supervision",
            message_en=f"Supervision must be one of: {', '.join(SUPERVISION)}.",
            message_es=f"La supervisión debe ser una de: {', '.join(SUPERVISION)}.",
        )
    unknown = sorted(set(needs) - set(NEED_CATEGORIES))
    if unknown:
        raise PlanError(
            field="needs",
            code="unknown_need",
            message_en=f"Unknown needs: {', '.join(unknown)}.",
            message_es=f"Necesidades desconocidas: {', '.join(unknown)}.",
        )
    if release_date < today:
        raise PlanError(
            field="release_date",
            code="in_the_past",
            message_en="That release date is in the past. What date do you get out?",
            message_es="Esa fecha de salida ya pasó. ¿Qué día sale?",
        )
    if release_date > today + dt.timedelta(days=MAX_DAYS_AHEAD):
        raise PlanError(
            field="release_date",
            code="too_far",
            message_en="A plan can start at most a year ahead.",
            message_es="Un plan puede empezar como máximo un año antes.",
        )
    region, place = resolve_destination(destination)
    return PlanRequest(
        release_date=release_date,
        region=region,
        place_name=place.name if place else None,
        lat=place.lat if place else None,
        lon=place.lon if place else None,
        supervision=supervision,
        needs=tuple(sorted(set(needs))),
        language=language,
    )


def _rules(slugs: tuple[str, ...], language: str) -> tuple[PlanRule, ...]:
    rules = []
    for slug in slugs:
        hit = corpus_entry_get(slug=slug, language=language)
        # Only verified, reviewed, sourced entries may be shown as a rule; otherwise the step stands without it.
        if hit is not None and hit.assertable and hit.url:
            rules.append(
                PlanRule(slug=hit.slug, citation=hit.citation, url=hit.url, summary=hit.summary, caveat=hit.caveat)
            )
    return tuple(rules)


def _place(card: ResourceCard) -> PlanPlace:
    return PlanPlace(
        id=card.id,
        name=card.name,
        organization=card.organization,
        phone=card.phone,
        phone_display=card.phone_display,
        address=card.address,
        city=card.city,
        hours=card.hours,
        url=card.url,
        distance_km=card.distance_km,
        is_statewide_line=card.is_statewide_line,
    )


def _places(need: str | None, pinned: tuple[str, ...], request: PlanRequest) -> tuple[PlanPlace, ...]:
    """The office that does this step first (when active), then the nearest matches for the need."""
    near = (request.lat, request.lon) if request.lat is not None and request.lon is not None else None
    first = [
        card for card in (service_card_get(key=slug) for slug in pinned) if card is not None and card.status == "active"
    ]
    matched: list[ResourceCard] = []
    if need is not None:
        matched = match(
            category=need, region=request.region, near=near, language=request.language, limit=PLACES_PER_STEP
        )
    # Matching orders by region, then distance bucket; within what it returned, nearest first, lines without a distance last.
    matched.sort(key=lambda card: (card.distance_km is None, card.distance_km or 0.0))
    cards = first + [card for card in matched if card.id not in {pin.id for pin in first}]
    return tuple(_place(card) for card in cards[:PLACES_PER_STEP])


def plan_build(*, request: PlanRequest) -> ReleasePlan:
    """The ordered checklist for a validated request, in its language."""
    index = 1 if request.language == "es" else 0
    steps: list[PlanStep] = []
    for spec in STEPS:
        if request.supervision not in spec.applies_to:
            continue
        if spec.only_if_need and spec.only_if_need not in request.needs:
            continue
        steps.append(
            PlanStep(
                key=spec.key,
                order=len(steps) + 1,
                when=spec.when,
                date=request.release_date + dt.timedelta(days=WHEN_OFFSETS[spec.when]),
                title=spec.title[index],
                action=spec.action[index],
                bring=tuple(item[index] for item in spec.bring),
                rules=_rules(spec.rules, request.language),
                places=_places(spec.need, spec.pinned, request),
            )
        )
    return ReleasePlan(request=request, steps=tuple(steps), disclaimer=DISCLAIMER[index])


# --- chat: "I get out Friday, going to Bexar County, on parole" ----------------------------------
_RELEASE_CUE: Final = re.compile(
    r"\b(?:i\s*(?:get|am getting|'m getting|m getting)\s+out|getting\s+out|get\s+released|i(?:'m| am)?\s+(?:being\s+)?released|"
    r"release\s+date|i\s+come\s+home|salgo|saldre|me\s+(?:sueltan|liberan|dejan\s+salir)|mi\s+fecha\s+de\s+salida)\b"
)
_SUPERVISION_CUES: Final = (
    ("mandatory_supervision", re.compile(r"\bmandatory\s+supervision\b|\bsupervision\s+obligatoria\b")),
    ("probation", re.compile(r"\bprobation\b|\bprobatoria\b|\blibertad\s+a\s+prueba\b|\bsupervision\s+comunitaria\b")),
    ("parole", re.compile(r"\bparole\b|\blibertad\s+condicional\b|\bpalabra\b")),
    (
        "none",
        re.compile(
            r"\bdischarg|\bflat\b|\bno\s+supervision\b|\bsin\s+supervision\b|\bcumpli\s+(?:toda\s+)?mi\s+condena\b"
        ),
    ),
)


def is_plan_request(text: str) -> bool:
    """Whether a message asks for (or gives the facts of) a release plan: a release cue is required."""
    return bool(_RELEASE_CUE.search(fold(text)))


def plan_request_from_message(text: str, *, now: dt.datetime, language: str = "en") -> PlanRequest | PlanError | None:
    """Read a release plan request from a chat/SMS message (redacted text is fine: dates and places survive).

    None when the message is not about release; a PlanError (with `field`) when a fact is missing,
    unclear ("friday" said on a Friday), in the past or outside Texas — the caller asks or hands off.
    """
    folded = fold(text)
    if not _RELEASE_CUE.search(folded):
        return None
    when = parse_when(text, now=now)
    if isinstance(when, Ambiguous) or when is None:
        return PlanError(
            field="release_date",
            code="ambiguous" if when else "missing",
            message_en="What date do you get out? For example: March 14.",
            message_es="¿Qué día sale? Por ejemplo: 14 de marzo.",
        )
    supervision = next((kind for kind, cue in _SUPERVISION_CUES if cue.search(folded)), "unknown")
    # The whole message is the destination text: counties, cities, ZIPs and other states are found inside it.
    destination = text
    try:
        return plan_request_make(
            release_date=when.date,
            destination=destination,
            supervision=supervision,
            language=language,
            today=now.astimezone(TZ).date(),
        )
    except PlanError as exc:
        return exc
