"""Plain frozen values of the release plan (what the CLI, the chat card, SMS and the admin print show)."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from typing import Any, Final

SUPERVISION: Final = ("parole", "mandatory_supervision", "probation", "none", "unknown")
LANGUAGES: Final = ("en", "es")


class PlanError(ValueError):
    """A plan that cannot be made as asked; `field` names the input, messages are en/es."""

    http_status = 400

    def __init__(self, *, field: str, code: str, message_en: str, message_es: str) -> None:
        super().__init__(message_en)
        self.field = field
        self.code = code
        self.message_en = message_en
        self.message_es = message_es

    def message(self, language: str) -> str:
        return self.message_es if language == "es" else self.message_en

    def as_json(self, language: str = "en") -> dict[str, str]:
        return {"field": self.field, "code": self.code, "message": self.message(language)}


class OutOfTexas(PlanError):
    """The place is in another state: Pathways is Texas-only (the caller shows the Texas-only handoff)."""


@dataclass(frozen=True)
class PlanRequest:
    release_date: dt.date
    region: str
    place_name: str | None = None
    lat: float | None = None
    lon: float | None = None
    supervision: str = "unknown"
    needs: tuple[str, ...] = ()
    language: str = "en"


@dataclass(frozen=True)
class PlanRule:
    """A rule a step rests on: only assertable corpus entries, with citation and source."""

    slug: str
    citation: str
    url: str
    summary: str
    caveat: str


@dataclass(frozen=True)
class PlanPlace:
    id: str
    name: str
    organization: str
    phone: str
    phone_display: str
    address: str
    city: str
    hours: str
    url: str
    distance_km: float | None
    is_statewide_line: bool


@dataclass(frozen=True)
class PlanStep:
    key: str
    order: int
    when: str  # release_day | next_day | first_week
    date: dt.date
    title: str
    action: str
    bring: tuple[str, ...]
    rules: tuple[PlanRule, ...]
    places: tuple[PlanPlace, ...]


@dataclass(frozen=True)
class ReleasePlan:
    request: PlanRequest
    steps: tuple[PlanStep, ...]
    disclaimer: str
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def as_json(self) -> dict[str, Any]:
        """The stable JSON of `manage.py plan --json` and the chat card."""
        request = asdict(self.request)
        request["release_date"] = self.request.release_date.isoformat()
        request["needs"] = list(self.request.needs)
        steps = []
        for step in self.steps:
            data = asdict(step)
            data["date"] = step.date.isoformat()
            data["bring"] = list(step.bring)
            data["rules"] = [asdict(rule) for rule in step.rules]
            data["places"] = [asdict(place) for place in step.places]
            steps.append(data)
        return {
            "request": request,
            "language": self.request.language,
            "steps": steps,
            "disclaimer": self.disclaimer,
            "warnings": list(self.warnings),
        }
