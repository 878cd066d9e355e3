"""Where the person is going: a region code, a Texas county, a city or a ZIP — or another state."""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path
from typing import Final

from plans.types import OutOfTexas, PlanError
from resources.selectors import resolve_place
from resources.types import Place
from vocab import REGIONS, fold

_DATA: Final = Path(__file__).resolve().parent / "data" / "tx_counties.csv"

_OTHER_STATES: Final = (
    *"alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho illinois".split(),
    *"indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota mississippi missouri".split(),
    *"montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee utah vermont virginia washington wisconsin".split(),
    "wyoming",
    "new hampshire",
    "new jersey",
    "new mexico",
    "new york",
    "north carolina",
    "north dakota",
    "rhode island",
    "south carolina",
    "south dakota",
    "west virginia",
    "nuevo mexico",
    "nueva york",
    "luisiana",
    "mexico",
    "chihuahua",
    "coahuila",
    "nuevo leon",
    "tamaulipas",
)
_STATE_CODES: Final = (
    *"AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA".split(),
    *"RI SC SD TN UT VT VA WA WV WI WY".split(),
)
_COUNTY_RE: Final = re.compile(
    r"\b([a-z][a-z .']*?)\s+(?:county|co\.)\b|\bcondado\s+de\s+([a-z][a-z .']*?)(?=[,.;]|\s+(?:en|on|y|and|texas|tx)\b|$)"
)


@cache
def _counties() -> dict[str, str]:
    with _DATA.open(encoding="utf-8") as handle:
        return {fold(row["county"]): row["seat"] for row in csv.DictReader(handle)}


def _other_state(text: str, folded: str) -> bool:
    if re.search(r"\btexas\b|\btx\b", folded) and not re.search(r"\bnot\s+(?:in\s+)?texas\b", folded):
        return False
    if any(re.search(rf"\b{re.escape(state)}\b", folded) for state in _OTHER_STATES):
        return True
    return any(re.search(rf",\s*{code}\b", text) for code in _STATE_CODES)


def _out_of_texas() -> OutOfTexas:
    return OutOfTexas(
        field="region",
        code="out_of_state",
        message_en="Pathways only covers Texas. For another state, call 2-1-1 or ask your release officer for local help.",
        message_es="Pathways solo cubre Texas. Para otro estado, llame al 2-1-1 o pida ayuda local a su oficial.",
    )


def _unknown(what: str) -> PlanError:
    return PlanError(
        field="region",
        code=f"unknown_{what}",
        message_en="Which Texas county or city are you going to? I could not find that one.",
        message_es="¿A qué condado o ciudad de Texas va? No encontré ese lugar.",
    )


def county_in(text: str) -> str | None:
    """The Texas county a text names ("Bexar County", "condado de Bexar"), as written in our table."""
    folded = fold(text)
    for found in _COUNTY_RE.finditer(folded):
        name = (found.group(1) or found.group(2) or "").strip()
        words = name.split()
        # "going to bexar county": try the longest tail first ("jim wells", then "wells").
        for start in range(len(words)):
            candidate = " ".join(words[start:])
            if candidate in _counties():
                return candidate
    return None


def names_a_county(text: str) -> bool:
    return bool(_COUNTY_RE.search(fold(text)))


def resolve_destination(text: str) -> tuple[str, Place | None]:
    """(region, place) for a region code, Texas county, city or ZIP; raises PlanError / OutOfTexas."""
    raw = (text or "").strip()
    if not raw:
        raise PlanError(
            field="region",
            code="missing",
            message_en="Which Texas county or city are you going to?",
            message_es="¿A qué condado o ciudad de Texas va?",
        )
    if raw in REGIONS:
        return raw, None
    folded = fold(raw)
    county = county_in(raw)
    # A Texas county's own name may be a state's ("Washington County"): look for a state outside it.
    outside = (
        re.sub(rf"\b{re.escape(county)}\s+county\b|\bcondado\s+de\s+{re.escape(county)}\b", " ", folded)
        if county
        else folded
    )
    if _other_state(raw, outside):
        raise _out_of_texas()
    if county is not None:
        place = resolve_place(f"{_counties()[county]}, TX")  # the cue lets ambiguous seat names (Crockett, Tyler) match
        if place is not None:
            return place.region, Place(f"{county.title()} County", place.region, place.lat, place.lon, place.zip)
    elif names_a_county(raw):
        raise _unknown("county")
    place = resolve_place(raw)
    if place is None:
        raise _unknown("place")
    return place.region, place
