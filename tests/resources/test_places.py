"""resolve_place: Texas cities and ZIPs in free text → region and centroid, offline."""

from __future__ import annotations

import pytest

from resources import places
from resources.selectors import region_for_place, resolve_place
from resources.taxonomy import REGIONS
from resources.types import Place


def test_it_ships_at_least_150_texas_cities_each_with_a_known_region() -> None:
    assert places.city_count() >= 150
    for city in places._cities().values():
        assert city.region in REGIONS
        assert 25.8 <= city.lat <= 36.6 and -106.7 <= city.lon <= -93.5, city


@pytest.mark.parametrize(
    ("text", "name", "region"),
    [
        ("I just got out and I'm in Houston", "Houston", "houston"),
        ("necesito comida en San Antonio", "San Antonio", "san_antonio"),
        ("staying with my aunt in north richland hills", "North Richland Hills", "dallas_fort_worth"),
        ("Ft. Worth", "Fort Worth", "dallas_fort_worth"),
        ("released to El Paso yesterday", "El Paso", "el_paso"),
        ("I'm in the RGV", "Rio Grande Valley", "rio_grande_valley"),
        ("Lubbock", "Lubbock", "west_texas"),
        ("cerca de Édinburg", "Edinburg", "rio_grande_valley"),
        ("Waco", "Waco", "austin"),  # Central Texas, as LABELING.md files it
        ("cuales son los shelters en dallas", "Dallas", "dallas_fort_worth"),  # "son" is "are", not a child
    ],
)
def test_it_finds_a_city_in_a_message(text: str, name: str, region: str) -> None:
    place = resolve_place(text)
    assert place is not None
    assert (place.name, place.region) == (name, region)


def test_ambiguous_city_names_need_a_place_cue() -> None:
    assert resolve_place("my son Tyler needs a job") is None
    assert resolve_place("I'm on a mission to find work") is None
    assert resolve_place("I live in Tyler").name == "Tyler"
    assert resolve_place("mission, tx").name == "Mission"


def test_a_zip_resolves_through_its_prefix_and_exceptions() -> None:
    houston = resolve_place("my zip is 77002")
    assert houston.region == "houston" and houston.zip == "77002"
    laredo = resolve_place("78041")
    assert (laredo.name, laredo.region) == ("Laredo", "other")
    assert resolve_place("78207").region == "san_antonio"
    assert resolve_place("79901").region == "el_paso"
    assert resolve_place("10001") is None  # New York: not Texas
    assert resolve_place("call 713-970-7000") is None  # digits inside a phone number are no ZIP


def test_city_and_zip_together_keep_the_city_centre_and_the_zip() -> None:
    place = resolve_place("Houston 77002")
    assert place == Place("Houston", "houston", 29.7604, -95.3698, "77002")


def test_region_for_place_accepts_a_place_text_or_point() -> None:
    assert region_for_place(Place("Austin", "austin", 30.27, -97.74)) == "austin"
    assert region_for_place("I am in Corpus Christi") == "corpus_christi"
    assert region_for_place((31.76, -106.48)) == "el_paso"
    assert region_for_place((40.7, -74.0)) is None
    assert region_for_place("nowhere in particular") is None


@pytest.mark.parametrize(
    "text",
    [
        "moving to Beaumont",
        "born in houston",
        "my mom lives in Austin",
        "got out of the unit in Huntsville",
        "voy a mudarme a Dallas",
    ],
)
def test_a_place_that_is_not_where_the_person_is_does_not_count(text: str) -> None:
    # LABELING.md: birthplaces, former units, destinations and where other people live are not the region.
    assert places.find_city(text) is None


def test_where_the_person_says_they_are_beats_other_places() -> None:
    assert places.find_city("mi hija vive en laredo pero yo estoy aqui en corpus").region == "corpus_christi"
    assert places.find_city("got out of the Walls in Huntsville, now in Fort Worth").region == "dallas_fort_worth"
    assert places.find_city("stayin in killeen rn").region == "austin"  # Central Texas is austin in LABELING.md
    assert places.find_city("el caso es en el condado de Bexar").region == "san_antonio"
