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

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (tuples become lists, attributes a {code: bool} object)."""
        data = asdict(self)
        data["languages"] = list(self.languages)
        data["categories"] = list(self.categories)
        data["documents"] = list(self.documents)
        data["attributes"] = dict(self.attributes)
        return data
