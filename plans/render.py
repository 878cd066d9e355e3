"""The release plan as text: a printable sheet and SMS parts (each ≤ the SMS budget, numbered)."""

from __future__ import annotations

from plans.steps import WHEN_LABELS
from plans.types import PlanError, PlanStep, ReleasePlan

_MONTHS_ES = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)
_DAYS_ES = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")
_BRING = ("Bring", "Lleve")
_RULE = ("Rule", "Norma")
_PLACES = ("Where", "Dónde")
_TITLE = ("Your first week: release plan", "Su primera semana: plan de salida")
_RESEND = ("Reply PLAN to get this plan again.", "Responda PLAN para recibir este plan otra vez.")


def day_label(step: PlanStep, language: str) -> str:
    index = 1 if language == "es" else 0
    label = WHEN_LABELS[step.when][index]
    date = step.date
    if language == "es":
        return f"{label} ({_DAYS_ES[date.weekday()]} {date.day} de {_MONTHS_ES[date.month - 1]})"
    return f"{label} ({date.strftime('%a %b')} {date.day})"


def _place_line(place: object) -> str:
    name = place.name  # type: ignore[attr-defined]
    phone = place.phone_display  # type: ignore[attr-defined]
    distance = place.distance_km  # type: ignore[attr-defined]
    tail = (
        f", {distance:g} km" if distance is not None and distance >= 1 else ""
    )  # city-centre coordinates: under 1 km is noise
    return f"{name}{': ' + phone if phone else ''}{tail}"


def plan_text(plan: ReleasePlan) -> str:
    """The whole plan as plain text (printable; the admin sheet uses the same data as HTML)."""
    language = plan.request.language
    index = 1 if language == "es" else 0
    lines = [_TITLE[index], ""]
    for step in plan.steps:
        lines.append(f"{step.order}. {step.title} — {day_label(step, language)}")
        lines.append(f"   {step.action}")
        if step.bring:
            lines.append(f"   {_BRING[index]}: {'; '.join(step.bring)}")
        for rule in step.rules:
            lines.append(f"   {_RULE[index]}: {rule.summary} [{rule.citation}] {rule.url}")
        for place in step.places:
            lines.append(f"   {_PLACES[index]}: {_place_line(place)}")
        lines.append("")
    lines.append(plan.disclaimer)
    return "\n".join(lines)


def plan_sms_parts(plan: ReleasePlan, *, max_chars: int = 320) -> list[str]:
    """Short SMS parts: one per step (title, day, first place, citation), numbered "(1/7)"; the
    last carries the disclaimer and how to get the plan again. A part never exceeds `max_chars`."""
    language = plan.request.language
    index = 1 if language == "es" else 0
    bodies = []
    for step in plan.steps:
        text = f"{step.order}. {step.title} - {day_label(step, language)}. "
        if step.places:
            text += _place_line(step.places[0]) + ". "
        if step.bring:
            text += f"{_BRING[index]}: {step.bring[0]}. "
        if step.rules:
            text += f"[{step.rules[0].citation}]"
        bodies.append(text.strip())
    bodies.append(f"{plan.disclaimer} {_RESEND[index]}")
    total = len(bodies)
    parts = []
    for number, body in enumerate(bodies, start=1):
        prefix = f"({number}/{total}) "
        room = max_chars - len(prefix)
        parts.append(prefix + (body if len(body) <= room else body[: room - 1].rsplit(" ", 1)[0] + "…"))
    return parts


def plan_error_text(error: PlanError, language: str) -> str:
    return error.message(language)
