"""match(): region first, statewide fallback, nearest first, open-now and language tie-breaks, filters."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.db import connection

from resources.errors import UnknownAttribute, UnknownCategory, UnknownRegion
from resources.hours import Rule, is_open, minute_of_week
from resources.models import Location, Schedule, Service
from resources.selectors import match
from resources.taxonomy import NEED_CATEGORIES, REGIONS
from tests.resources.conftest import make_org, make_service

CHICAGO = ZoneInfo("America/Chicago")
TUESDAY_10AM = dt.datetime(2025, 6, 3, 10, 0, tzinfo=CHICAGO)
TUESDAY_11PM = dt.datetime(2025, 6, 3, 23, 0, tzinfo=CHICAGO)


@pytest.mark.django_db
def test_the_real_directory_covers_every_region_and_every_need(directory: dict[str, int]) -> None:
    assert Service.objects.count() >= 70
    for category in NEED_CATEGORIES:
        assert Service.objects.filter(categories__contains=[category]).exists(), category
    for region in REGIONS:
        if region == "statewide":
            assert Service.objects.filter(is_statewide=True).exists()
        else:
            assert Service.objects.filter(service_at_locations__location__region=region).exists(), region


@pytest.mark.django_db
def test_statewide_hotlines_are_crisis_lines_without_a_map_pin(directory: dict[str, int]) -> None:
    numbers = {"988-lifeline": "988", "ndvh": "+18007997233", "211-texas": "211", "rainn": "+18006564673"}
    for slug, number in numbers.items():
        service = Service.objects.get(slug=slug)
        assert service.is_crisis_line and service.is_statewide
        assert service.phones.order_by("rank").first().number == number
    cards = match(category="health", region="statewide", limit=10)
    assert "988-lifeline" in {card.slug for card in cards}
    assert all(card.lat is None and card.lon is None and card.is_statewide_line for card in cards)


@pytest.mark.django_db
def test_houston_housing_lists_houston_entries_first(directory: dict[str, int]) -> None:
    cards = match(category="housing", region="houston", limit=5, now=TUESDAY_10AM)
    regions = [card.region for card in cards]
    assert len(cards) == 5
    assert regions[0] == "houston" and regions[-1] == "statewide"
    assert regions == sorted(regions, key=lambda region: region == "statewide")  # regional block first
    assert cards[0].slug == "star-of-hope-mdc" and cards[0].open_now is True  # 24/7 shelter outranks unknown hours


@pytest.mark.django_db
def test_a_sparse_region_is_filled_with_statewide_services(directory: dict[str, int]) -> None:
    cards = match(category="voting", region="el_paso", limit=3)
    assert cards and all(card.is_statewide_line for card in cards)
    assert "tx-sos-elections" in {card.slug for card in cards}
    cards = match(category="food", region="corpus_christi", limit=5)
    assert cards[0].region == "corpus_christi"
    assert cards[-1].is_statewide_line


@pytest.mark.django_db
def test_nearest_first_when_a_point_is_known() -> None:
    org = make_org("geo")
    make_service(org, "far", region="dallas_fort_worth", lat=32.7555, lon=-97.3308, city="Fort Worth")
    make_service(org, "near", region="dallas_fort_worth", lat=32.7767, lon=-96.7970, city="Dallas")
    cards = match(category="housing", region="dallas_fort_worth", near=(32.78, -96.80))
    assert [card.slug for card in cards[:2]] == ["near", "far"]
    assert cards[0].distance_km < 2 < cards[1].distance_km


@pytest.mark.django_db
def test_without_a_region_a_point_picks_its_region() -> None:
    org = make_org("geo2")
    make_service(org, "ep", region="el_paso", lat=31.76, lon=-106.48, city="El Paso")
    make_service(org, "hou", region="houston")
    assert [card.slug for card in match(category="housing", region=None, near=(31.77, -106.44))] == ["ep"]


@pytest.mark.django_db
def test_open_now_then_language_break_ties() -> None:
    org = make_org("ties")
    make_service(org, "closed-es", languages=("en", "es"), hours=("MO,TU,WE,TH,FR", "08:00", "09:00"))
    make_service(org, "unknown-hours")
    make_service(org, "open-en", hours=("MO,TU,WE,TH,FR", "08:00", "17:00"))
    make_service(org, "open-es", languages=("es",), hours=("TU", "09:00", "12:00"))
    slugs = [card.slug for card in match(category="housing", region="houston", language="es", now=TUESDAY_10AM)]
    assert slugs == ["open-es", "open-en", "unknown-hours", "closed-es"]
    cards = match(category="housing", region="houston", now=TUESDAY_10AM)
    assert {card.slug: card.open_now for card in cards} == {
        "open-es": True,
        "open-en": True,
        "unknown-hours": None,
        "closed-es": False,
    }


@pytest.mark.django_db
def test_defunct_and_closed_services_are_never_offered() -> None:
    org = make_org("status")
    make_service(org, "gone", status="defunct")
    make_service(org, "paused", status="temporarily_closed")
    make_service(org, "old", status="inactive")
    make_service(org, "statewide-gone", status="defunct", statewide=True)
    assert match(category="housing", region="houston") == []


@pytest.mark.django_db
def test_a_needed_reentry_attribute_filters() -> None:
    org = make_org("attrs")
    make_service(org, "needs-id")
    make_service(org, "no-id-ok", attributes={"id_not_required": True})
    make_service(org, "says-no", attributes={"id_not_required": False})
    cards = match(category="housing", region="houston", needs=("id_not_required",))
    assert [card.slug for card in cards] == ["no-id-ok"]


@pytest.mark.django_db
def test_unknown_category_region_or_attribute_is_a_clear_error() -> None:
    with pytest.raises(UnknownCategory, match="crisis"):
        match(category="crisis", region="houston")
    with pytest.raises(UnknownRegion) as excinfo:
        match(category="food", region="oklahoma")
    assert excinfo.value.http_status == 400 and excinfo.value.code == "unknown_region"
    with pytest.raises(UnknownAttribute):
        match(category="food", region="houston", needs=("pets_allowed",))


@pytest.mark.django_db
def test_a_service_with_many_locations_in_a_region_shows_once() -> None:
    from resources.models import Location, ServiceAtLocation

    org = make_org("multi")
    service = make_service(org, "multi-site")
    for index in range(6):
        location = Location.objects.create(
            organization=org,
            city="Houston",
            region="houston",
            latitude=29.7 + index / 100,
            longitude=-95.3,
            geo_precision="exact",
        )
        ServiceAtLocation.objects.create(service=service, location=location)
    make_service(org, "other-one")
    assert sorted(card.slug for card in match(category="housing", region="houston")) == ["multi-site", "other-one"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("rule", "moment", "expected"),
    [
        (("MO,TU,WE,TH,FR", "08:00", "17:00"), TUESDAY_10AM, True),
        (("MO,TU,WE,TH,FR", "08:00", "17:00"), TUESDAY_11PM, False),
        (("MO,TU,WE,TH,FR,SA,SU", "00:00", "23:59"), TUESDAY_11PM, True),
        (("TU", "20:00", "06:00"), TUESDAY_11PM, True),  # overnight, same evening
        (("MO", "20:00", "06:00"), dt.datetime(2025, 6, 3, 3, 0, tzinfo=CHICAGO), True),  # spill-over into Tuesday
        (("MO", "20:00", "06:00"), dt.datetime(2025, 6, 3, 7, 0, tzinfo=CHICAGO), False),
        (("SA,SU", "09:00", "12:00"), TUESDAY_10AM, False),
        (("SU", "22:00", "02:00"), dt.datetime(2025, 6, 2, 1, 30, tzinfo=CHICAGO), True),  # Sunday night into Monday
        (("MO,TU,WE,TH,FR", "08:00", "17:00"), dt.datetime(2025, 6, 3, 16, 59, 30, tzinfo=CHICAGO), True),
        (("MO,TU,WE,TH,FR", "08:00", "17:00"), dt.datetime(2025, 6, 3, 17, 0, tzinfo=CHICAGO), False),
    ],
)
def test_sql_and_python_open_now_agree(rule: tuple[str, str, str], moment: dt.datetime, expected: bool) -> None:
    service = make_service(make_org("hours"), "hours", hours=rule)
    schedule = Schedule.objects.get(service=service)
    python = is_open([Rule(schedule.byday, schedule.opens_at, schedule.closes_at)], moment)
    with connection.cursor() as cursor:  # the expression match() ranks on
        cursor.execute(
            "SELECT %s::int <@ ANY(open_ranges) FROM resources_service WHERE id = %s",
            [minute_of_week(moment), service.pk],
        )
        sql = cursor.fetchone()[0]
    assert python is expected
    assert sql is expected


@pytest.mark.django_db
def test_a_local_entry_with_a_street_address_comes_before_one_without_even_if_nearer() -> None:
    org = make_org("addr")
    make_service(org, "no-address-near", region="dallas_fort_worth", lat=32.7767, lon=-96.7970, city="Dallas")
    Location.objects.filter(service_at_locations__service__slug="no-address-near").update(address_1="")
    make_service(org, "with-address-far", region="dallas_fort_worth", lat=32.7555, lon=-97.3308, city="Fort Worth")
    cards = match(category="housing", region="dallas_fort_worth", near=(32.78, -96.80))
    assert [card.slug for card in cards[:2]] == ["with-address-far", "no-address-near"]


@pytest.mark.django_db
def test_the_real_directory_answers_an_id_request_in_dallas_with_a_dps_office_first(directory: dict[str, int]) -> None:
    cards = match(category="id_documents", region="dallas_fort_worth", near=(32.7767, -96.7970), limit=3)
    assert cards[0].slug == "dps-garland-driver-license-center" and cards[0].address.startswith("4445 Saturn Road")
    assert cards[1].slug == "dps-fort-worth-driver-license-center"
