"""Plain values the directory hands to other apps (the workflow imports these names)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Place:
    """A Texas place found in a message: a city or ZIP resolved to a region and a centroid."""

    name: str
    region: str
    lat: float
    lon: float
    zip: str | None = None


@dataclass(frozen=True)
class ResourceCard:
    """One directory entry as shown to a person: a service at (at most) one location.

    `name` is the service's public name, `organization` its provider, `service` a one-line
    description of what it does. Statewide phone lines carry `lat`/`lon` None (never a map pin).
    """

    id: str
    slug: str
    name: str
    organization: str
    service: str
    phone: str
    phone_display: str
    address: str
    city: str
    region: str
    lat: float | None
    lon: float | None
    hours: str
    languages: tuple[str, ...]
    url: str
    status: str
    alert: str
    last_verified_at: str | None
    distance_km: float | None
    open_now: bool | None
    is_statewide_line: bool
    categories: tuple[str, ...]
    # What a person needs before going: the documents to bring and who is taken (HSDS attributes
    # set where a source says so: walk_in, accepts_records, id_not_required…; absent = unknown).
    documents: tuple[str, ...] = ()
    attributes: tuple[tuple[str, bool], ...] = ()
    # Who is eligible, in the card's language.
    eligibility: str = ""
    # For a Spanish card: the fields shown in English because no Spanish was written yet (for staff).
    untranslated: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (tuples become lists, attributes a {code: bool} object)."""
        data = asdict(self)
        data["languages"] = list(self.languages)
        data["categories"] = list(self.categories)
        data["documents"] = list(self.documents)
        data["attributes"] = dict(self.attributes)
        data["untranslated"] = list(self.untranslated)
        return data


@dataclass(frozen=True)
class CoverageCell:
    """Verified local entries for one region-by-need (slugs sorted), against the cell's target."""

    region: str
    need: str
    target: int
    slugs: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.slugs)

    @property
    def filled(self) -> bool:
        return self.count >= self.target

    def as_dict(self) -> dict[str, Any]:
        return {
            "region": self.region,
            "need": self.need,
            "count": self.count,
            "target": self.target,
            "entries": list(self.slugs),
        }


@dataclass(frozen=True)
class CoverageReport:
    """The directory's coverage matrix, its gaps, and entries whose check is old or undated."""

    checked_on: str
    total_services: int
    cells: tuple[CoverageCell, ...]
    stale: tuple[tuple[str, str], ...]  # (slug, last_verified_at) checked more than STALE_AFTER_DAYS ago
    undated: tuple[str, ...]  # active services never checked against their source by the project

    @property
    def empty(self) -> tuple[CoverageCell, ...]:
        return tuple(cell for cell in self.cells if cell.count == 0)

    @property
    def below_target(self) -> tuple[CoverageCell, ...]:
        return tuple(cell for cell in self.cells if not cell.filled)

    def as_dict(self) -> dict[str, Any]:
        return {
            "checked_on": self.checked_on,
            "total_services": self.total_services,
            "cells": [cell.as_dict() for cell in self.cells],
            "filled": sum(1 for cell in self.cells if cell.filled),
            "empty": [f"{cell.region}/{cell.need}" for cell in self.empty],
            "below_target": [f"{cell.region}/{cell.need}" for cell in self.below_target],
            "stale": [{"slug": slug, "last_verified_at": when} for slug, when in self.stale],
            "undated": list(self.undated),
        }
