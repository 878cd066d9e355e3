"""Offline Texas gazetteer: city names, aliases and ZIP prefixes → region and centroid (see data/README.md)."""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from resources.types import Place
from vocab import fold

DATA_DIR = Path(__file__).resolve().parent / "data"

# Areas people name instead of a city; coordinates are the area's main city.
AREAS: dict[str, tuple[str, float, float]] = {
    "Dallas-Fort Worth": ("dallas_fort_worth", 32.7767, -96.7970),
    "Rio Grande Valley": ("rio_grande_valley", 26.2034, -98.2300),
}

_ZIP = re.compile(r"(?<!\d)(\d{5})(?:-\d{4})?(?!\d)")
# A word just before an ambiguous name that makes it a place: "in Tyler", "cerca de Mission".
_BEFORE_CUE = re.compile(r"(?:\b(?:in|near|from|at|to|around|outside|en|cerca de|de|desde|por)\s+)$", re.IGNORECASE)
_AFTER_CUE = re.compile(r"^\s*,?\s*(?:tx|texas)\b", re.IGNORECASE)
_LOCATION_CUE = re.compile(r"(?:\b(?:in|near|around|en|cerca de|live in|staying in)\s+)$", re.IGNORECASE)
# Where the person says they are now: the strongest cue.
_HERE_CUE = re.compile(
    r"\b(?:i'?m|im|i am|we'?re|we|i live|we live|living|staying|stayin|currently|right now|rn|now|here|"
    r"estoy|estamos|vivo|vivimos|aqui|aca|ando|andamos|me quedo|ahorita|ahora)(?: \w+)?\s+(?:in|at|en|por|off)\s+(?:the\s+|el\s+|la\s+)?$",
    re.IGNORECASE,
)
# "staying with my aunt in X", "vivo con mi tía en X": the relative's home is where the person is.
_WITH_CUE = re.compile(
    r"\b(?:staying|stayin|living|live|stay|crashing|quedo|quedando|vivo|viviendo|estoy)\s+(?:with|w|con)\b[^.,;!?]{0,30}\s(?:in|en)\s+$",
    re.IGNORECASE,
)
# Places that are not where the person is (LABELING.md): birthplaces, former units and jails,
# destinations, where other people live.
_ELSEWHERE_CUE = re.compile(
    r"\b(?:born|raised|grew up|naci|naci en|nacio|unit|unidad|walls|prison|prision|jail|carcel|locked up|did time|"
    r"moving|move|going|headed|heading|mudo|mudarme|mudamos|voy|vamos|transfer(?:red)?|visit(?:ing)?|"
    r"lives|live[sd]? there|vive|viven|llegar|sent|mandar(?:on)?|mom|mama|dad|papa|sister|brother|hermana|hermano|tia|aunt|"
    # "son" only as a child ("my son"): alone it is also Spanish "are" ("cuales son los shelters en dallas").
    r"cousin|primo|prima|(?:my|his|her|our|your) sons?|daughter|hijo|hija|wife|esposa|husband|esposo)\b[^.,;!?]{0,24}$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _City:
    name: str
    region: str
    lat: float
    lon: float
    ambiguous: bool


@lru_cache(maxsize=1)
def _cities() -> dict[str, _City]:
    cities: dict[str, _City] = {}
    with (DATA_DIR / "tx_cities.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            city = _City(row["name"], row["region"], float(row["lat"]), float(row["lon"]), row["ambiguous"] == "1")
            cities[fold(city.name)] = city
    for name, (region, lat, lon) in AREAS.items():
        cities[fold(name)] = _City(name, region, lat, lon, ambiguous=False)
    return cities


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    with (DATA_DIR / "tx_aliases.csv").open(newline="") as handle:
        return {fold(row["alias"]): fold(row["city"]) for row in csv.DictReader(handle)}


@lru_cache(maxsize=1)
def _name_pattern() -> re.Pattern[str]:
    names = sorted(set(_cities()) | set(_aliases()), key=len, reverse=True)
    alternation = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?<![\w-])({alternation})(?![\w-])")


@lru_cache(maxsize=1)
def _zip_tables() -> tuple[dict[str, Place], list[tuple[int, int, Place]]]:
    prefixes: dict[str, Place] = {}
    with (DATA_DIR / "tx_zip3.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            prefixes[row["prefix"]] = Place(row["name"], row["region"], float(row["lat"]), float(row["lon"]))
    ranges: list[tuple[int, int, Place]] = []
    with (DATA_DIR / "tx_zip_ranges.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            place = Place(row["name"], row["region"], float(row["lat"]), float(row["lon"]))
            ranges.append((int(row["first"]), int(row["last"]), place))
    return prefixes, ranges


def unambiguous_city_names() -> list[str]:
    """City and area names the region lookup reads without a cue ("Pflugerville is far"); ambiguous ones
    (Allen, Mission, Tyler…) need "in" or ", TX" and are left out."""
    return sorted(city.name for city in _cities().values() if not city.ambiguous)


def city_count() -> int:
    return len(_cities()) - len(AREAS)


def place_for_zip(zip_code: str) -> Place | None:
    """The region and centroid of a Texas ZIP (5-digit exceptions first, then its 3-digit prefix)."""
    prefixes, ranges = _zip_tables()
    if not re.fullmatch(r"\d{5}", zip_code):
        return None
    number = int(zip_code)
    for first, last, place in ranges:
        if first <= number <= last:
            return Place(place.name, place.region, place.lat, place.lon, zip_code)
    base = prefixes.get(zip_code[:3])
    return Place(base.name, base.region, base.lat, base.lon, zip_code) if base else None


def place_for_city(name: str) -> Place | None:
    """Exact (accent/case-insensitive) lookup of a city, area or alias."""
    key = fold(name.strip())
    key = _aliases().get(key, key)
    city = _cities().get(key)
    return Place(city.name, city.region, city.lat, city.lon, None) if city else None


def find_city(text: str) -> Place | None:
    """The city named in free text; ambiguous names (Allen, Mission…) need a cue like "in" or ", TX"."""
    folded = fold(text)
    best: tuple[int, int, _City] | None = None
    for found in _name_pattern().finditer(folded):
        key = _aliases().get(found.group(1), found.group(1))
        city = _cities().get(key)
        if city is None:
            continue
        before, after = folded[max(0, found.start() - 20) : found.start()], folded[found.end() :]
        if city.ambiguous and not (_BEFORE_CUE.search(before) or _AFTER_CUE.match(after)):
            continue
        # Prefer where the person says they are ("im in Waco") over any other city mentioned; a
        # birthplace, a former unit or a destination is never where they are.
        wide = folded[max(0, found.start() - 40) : found.start()]
        if _HERE_CUE.search(wide) or _WITH_CUE.search(wide):
            cue = -1
        elif _ELSEWHERE_CUE.search(wide):
            continue
        else:
            cue = 0 if _LOCATION_CUE.search(before) else 1
        rank = (cue, found.start())
        if best is None or rank < best[:2]:
            best = (*rank, city)
    if best is None:
        return None
    city = best[2]
    return Place(city.name, city.region, city.lat, city.lon, None)


def find_zip(text: str) -> Place | None:
    for found in _ZIP.finditer(text):
        place = place_for_zip(found.group(1))
        if place is not None:
            return place
    return None


def nearest_city(lat: float, lon: float) -> Place | None:
    """The listed city closest to a point (used to give a bare point a region)."""
    best: tuple[float, _City] | None = None
    for city in _cities().values():
        distance = haversine_km(lat, lon, city.lat, city.lon)
        if best is None or distance < best[0]:
            best = (distance, city)
    if best is None or best[0] > 250:
        return None
    city = best[1]
    return Place(city.name, city.region, city.lat, city.lon, None)


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    radius = 6371.0088
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * radius * math.asin(math.sqrt(a))
