"""Reads of the directory: deterministic matching and place resolution (no model is ever asked).

Ranking, in order: region tier (services located in the person's region, then statewide services
to fill a sparse region), within the region a location with a street address before one without
(an entry with no confirmed address is not offered as the local place), distance bucket when a point is known (5 km buckets, because most
coordinates are city centres and finer ordering would be noise), open now, language, a source-
verified entry, the most recently verified, then name. Defunct, inactive and temporarily closed
services are never offered, nor a service under a live closure notice (resources.notices).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import psycopg
from django.db import connection

from resources import places
from resources.errors import UnknownAttribute, UnknownCategory, UnknownRegion
from resources.hours import Rule, is_open, local_now, minute_of_week, summarize
from resources.models import Attribute, Phone, RequiredDocument, Schedule, Service, ServiceAtLocation
from resources.notices import ShownNotice, live_notices, notice_line
from resources.taxonomy import (
    ATTRIBUTES_TAXONOMY,
    CORE_NEEDS,
    COVERAGE_REGIONS,
    METRO_REGIONS,
    METRO_TARGET,
    NEED_CATEGORIES,
    REENTRY_ATTRIBUTES,
    REGIONAL_TARGET,
    REGIONS,
    STALE_AFTER_DAYS,
    stable_id,
)
from resources.types import CoverageCell, CoverageReport, Place, ResourceCard
from resources.validators import display_phone

DISTANCE_BUCKET_KM = 5.0
KM_PER_DEGREE = 111.195

__all__ = [
    "REFERRAL_SLUG",
    "CoverageReport",
    "Place",
    "ResourceCard",
    "coverage",
    "match",
    "referral_card",
    "region_for_place",
    "resolve_place",
    "service_card_get",
    "service_cards",
]

# The statewide referral line offered whenever a region has no local listing for a need.
REFERRAL_SLUG = "211-texas"


def resolve_place(text: str) -> Place | None:
    """Find a Texas ZIP or city in a message and return its region and centroid (offline)."""
    if not text:
        return None
    by_zip = places.find_zip(text)
    by_city = places.find_city(text)
    if by_zip and by_city:
        if by_city.region == by_zip.region:
            # The city centre is more precise than the ZIP's sectional centre; keep both facts.
            return Place(by_city.name, by_city.region, by_city.lat, by_city.lon, by_zip.zip)
        return by_zip
    return by_zip or by_city


def region_for_place(place: Place | str | tuple[float, float] | None) -> str | None:
    """The taxonomy region of a Place, a message naming one, or a (lat, lon) point."""
    if place is None:
        return None
    if isinstance(place, Place):
        return place.region
    if isinstance(place, tuple):
        nearest = places.nearest_city(*place)
        return nearest.region if nearest else None
    resolved = resolve_place(place)
    return resolved.region if resolved else None


def _check(category: str, region: str | None, needs: Iterable[str]) -> None:
    if category not in NEED_CATEGORIES:
        raise UnknownCategory(f"Unknown need category {category!r}; use one of: {', '.join(NEED_CATEGORIES)}.")
    if region is not None and region not in REGIONS:
        raise UnknownRegion(f"Unknown region {region!r}; use one of: {', '.join(REGIONS)}.")
    unknown = sorted(set(needs) - set(REENTRY_ATTRIBUTES))
    if unknown:
        raise UnknownAttribute(f"Unknown reentry attributes {unknown}; use: {', '.join(REENTRY_ATTRIBUTES)}.")


# One statement per match: candidates of both tiers found through the match_keys GIN index
# ("<category>@<region>"), ranked and limited in PostgreSQL, with each card's phones, hours and
# (for statewide lines) mailing address aggregated alongside — one round trip whatever the
# directory size. DISTINCT ON keeps one row (the nearest location) per service.
_MATCH_SQL = """
WITH regional AS (
    SELECT DISTINCT ON (s.id) s.id AS service_id, l.id AS location_id, {bucket} AS bucket,
        CASE WHEN l.address_1 <> '' AND l.location_type = 'physical' THEN 0 ELSE 1 END AS address_rank
    FROM resources_service s
    JOIN resources_serviceatlocation sal ON sal.service_id = s.id
    JOIN resources_location l ON l.id = sal.location_id AND l.region = %(region)s
    WHERE %(regional)s AND s.match_keys @> ARRAY[%(regional_key)s]::varchar(64)[]
      AND s.status = 'active' AND NOT s.is_statewide {needs}
      AND NOT EXISTS (SELECT 1 FROM resources_servicenotice n WHERE n.service_id = s.id AND n.kind = 'closure'
                      AND n.review_status <> 'undone' AND n.starts_at <= %(now)s AND n.ends_at > %(now)s)
    ORDER BY s.id, address_rank, bucket NULLS LAST, l.id
), statewide AS (
    SELECT s.id AS service_id, NULL::uuid AS location_id, NULL::double precision AS bucket, 0 AS address_rank
    FROM resources_service s
    WHERE s.match_keys @> ARRAY[%(statewide_key)s]::varchar(64)[] AND s.status = 'active' AND s.is_statewide {needs}
      AND NOT EXISTS (SELECT 1 FROM resources_servicenotice n WHERE n.service_id = s.id AND n.kind = 'closure'
                      AND n.review_status <> 'undone' AND n.starts_at <= %(now)s AND n.ends_at > %(now)s)
), ranked AS (
    SELECT c.tier, c.service_id, c.location_id, c.bucket, c.address_rank,
        CASE WHEN %(minute)s::int <@ ANY(s.open_ranges) THEN 0
             WHEN cardinality(s.open_ranges) > 0 THEN 2
             ELSE 1 END AS open_rank,
        CASE WHEN %(language)s::text IS NULL OR s.languages @> ARRAY[%(language)s]::varchar(16)[] THEN 0 ELSE 1 END AS lang_rank,
        s.source_verified, s.last_verified_at, s.name
    FROM (SELECT 0 AS tier, * FROM regional UNION ALL SELECT 1 AS tier, * FROM statewide) c
    JOIN resources_service s ON s.id = c.service_id
    ORDER BY c.tier, c.address_rank, c.bucket NULLS LAST, open_rank, lang_rank, s.source_verified DESC,
             s.last_verified_at DESC NULLS LAST, s.name, s.id
    LIMIT %(limit)s
)
SELECT r.tier, s.id, s.slug, s.name, s.description, s.url, s.languages, s.categories, s.status, s.alert,
    s.last_verified_at, s.is_statewide, o.name AS organization,
    s.description_es, s.alert_es, s.eligibility, s.eligibility_es,
    (SELECT json_agg(json_build_object('kind', n.kind, 'text', n.text, 'text_es', n.text_es, 'ends_at', n.ends_at)
                     ORDER BY n.kind DESC, n.created_at DESC)
       FROM resources_servicenotice n WHERE n.service_id = s.id AND n.review_status <> 'undone'
        AND n.starts_at <= %(now)s AND n.ends_at > %(now)s) AS notices,
    l.address_1, l.address_2, l.city, l.postal_code, l.region, l.latitude, l.longitude,
    (SELECT json_agg(json_build_object('number', p.number, 'type', p.type, 'extension', p.extension,
                                       'description', p.description) ORDER BY p.rank, p.id)
       FROM resources_phone p WHERE p.service_id = s.id) AS phones,
    (SELECT json_agg(json_build_object('byday', sc.byday, 'opens_at', sc.opens_at, 'closes_at', sc.closes_at,
                                       'description', sc.description) ORDER BY sc.id)
       FROM resources_schedule sc WHERE sc.service_id = s.id) AS schedules,
    (SELECT json_build_object('address_1', ml.address_1, 'address_2', ml.address_2, 'city', ml.city,
                              'postal_code', ml.postal_code)
       FROM resources_serviceatlocation msal JOIN resources_location ml ON ml.id = msal.location_id
       WHERE r.location_id IS NULL AND msal.service_id = s.id AND ml.address_1 <> ''
       ORDER BY ml.id LIMIT 1) AS mailing
FROM ranked r
JOIN resources_service s ON s.id = r.service_id
JOIN resources_organization o ON o.id = s.organization_id
LEFT JOIN resources_location l ON l.id = r.location_id
ORDER BY r.tier, r.address_rank, r.bucket NULLS LAST, r.open_rank, r.lang_rank, r.source_verified DESC,
         r.last_verified_at DESC NULLS LAST, r.name, r.service_id
"""


# Values travel as bound parameters; only the parameter's name is numbered.
_NEED_CLAUSE = (
    " AND EXISTS (SELECT 1 FROM resources_attribute a WHERE a.service_id = s.id"
    " AND a.taxonomy_term_id = %(need{index})s AND a.value = 'true')"
)


def match(
    *,
    category: str,
    region: str | None,
    near: tuple[float, float] | None = None,
    language: str | None = None,
    limit: int = 5,
    needs: tuple[str, ...] = (),
    now: dt.datetime | None = None,
) -> list[ResourceCard]:
    """Up to `limit` active services for a need: the person's region first, statewide to fill the rest.

    `needs` are reentry attribute codes that must be "true" (e.g. "id_not_required"). With `near`
    but no region, the region of the nearest known city is used. `now` is for tests.
    """
    _check(category, region, needs)
    if limit <= 0:
        return []
    moment = local_now(now)
    if region is None and near is not None:
        region = region_for_place(near)
    params: dict[str, object] = {
        "regional": region is not None and region != "statewide",
        "region": region or "",
        "regional_key": f"{category}@{region}",
        "statewide_key": f"{category}@statewide",
        "minute": minute_of_week(moment),
        "now": moment,
        "language": language,
        "limit": limit,
    }
    bucket = "NULL::double precision"
    if near is not None:
        # Equirectangular distance in 5 km buckets: exact enough inside a region and cheap to sort.
        params.update(
            {
                "lat0": near[0],
                "lon0": near[1],
                "cos0": math.cos(math.radians(near[0])),
                "per_bucket": KM_PER_DEGREE / DISTANCE_BUCKET_KM,
            }
        )
        bucket = (
            "floor(sqrt(power(l.latitude - %(lat0)s, 2) + power((l.longitude - %(lon0)s) * %(cos0)s, 2))"
            " * %(per_bucket)s)"
        )
    need_sql = ""
    for index, need in enumerate(needs):
        params[f"need{index}"] = stable_id("term", ATTRIBUTES_TAXONOMY, need)
        need_sql += _NEED_CLAUSE.replace("{index}", str(index))
    sql = _MATCH_SQL.format(bucket=bucket, needs=need_sql)
    connection.ensure_connection()
    # Server-side binding (not Django's client-side interpolation) keeps the statement text fixed,
    # so it can be a prepared statement whose plan PostgreSQL may cache: on the real directory,
    # planning this statement costs more than running it.
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, prepare=True)
        columns = [column.name for column in cursor.description or []]
        rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    # The texts and live notices came with the ranking statement: no query per part for them.
    texts = {str(row["id"]): row for row in rows}
    notices = {
        str(row["id"]): [
            SimpleNamespace(**{**notice, "ends_at": dt.datetime.fromisoformat(notice["ends_at"])})
            for notice in row["notices"]
        ]
        for row in rows
        if row["notices"]
    }
    cards = [_card_from_row(row, near=near, now=moment) for row in rows]
    return _with_extras(cards, language, texts=texts, notices=notices)


def _texts(ids: list[str]) -> dict[str, dict[str, Any]]:
    """The card texts in both languages, for cards not built by the ranking statement."""
    fields = ("id", "description", "description_es", "alert_es", "eligibility", "eligibility_es")
    return {str(row["id"]): row for row in Service.objects.filter(pk__in=ids).values(*fields)}


def _with_extras(
    cards: list[ResourceCard],
    language: str | None,
    *,
    texts: dict[str, dict[str, Any]] | None = None,
    notices: Mapping[str, Sequence[ShownNotice]] | None = None,
) -> list[ResourceCard]:
    """Add what a person needs before going (documents to bring, who is taken, who is eligible), live
    notices (an urgent alert or closure shows at once) and, for Spanish, the Spanish text.

    A Spanish card falls back to English field by field and names those fields in `untranslated`,
    so staff can see what still needs a translation. One more query per part for the few matched
    cards; the ranking statement stays a single, cached plan.
    """
    if not cards:
        return cards
    ids = [card.id for card in cards]
    spanish = language == "es"
    untranslated: dict[str, set[str]] = {card.id: set() for card in cards}
    documents: dict[str, list[str]] = {card.id: [] for card in cards}
    for doc in RequiredDocument.objects.filter(service_id__in=ids).order_by("id"):
        key = str(doc.service_id)
        if spanish and not doc.document_es:
            untranslated[key].add("documents")
        documents[key].append((doc.document_es or doc.document) if spanish else doc.document)
    attributes: dict[str, list[tuple[str, bool]]] = {card.id: [] for card in cards}
    for attr in (
        Attribute.objects.filter(service_id__in=ids).select_related("taxonomy_term").order_by("taxonomy_term__code")
    ):
        attributes[str(attr.service_id)].append((attr.taxonomy_term.code, attr.value == "true"))
    texts = texts if texts is not None else _texts(ids)
    notices = notices if notices is not None else live_notices(ids)
    hours: dict[str, str] = {}
    if spanish:
        rules: dict[str, list[Rule]] = {card.id: [] for card in cards}
        for schedule in Schedule.objects.filter(service_id__in=ids).order_by("id"):
            # The Spanish description, else the hours generated in Spanish (an English-only note is dropped).
            key = str(schedule.service_id)
            if schedule.description and not schedule.description_es:
                untranslated[key].add("hours")
            rules[key].append(Rule(schedule.byday, schedule.opens_at, schedule.closes_at, schedule.description_es))
        hours = {key: summarize(value, "es") for key, value in rules.items()}
    result = []
    for card in cards:
        row = texts.get(card.id, {})
        changes: dict[str, Any] = {"documents": tuple(documents[card.id]), "attributes": tuple(attributes[card.id])}
        eligibility, alert = row.get("eligibility") or "", card.alert
        if spanish:
            # Field by field: the Spanish text, else the English one (named in `untranslated`).
            for name, english, translated in (
                ("service", row.get("description"), row.get("description_es")),
                ("eligibility", eligibility, row.get("eligibility_es")),
                ("alert", alert, row.get("alert_es")),
            ):
                if english and not translated:
                    untranslated[card.id].add(name)
            changes["service"] = (row.get("description_es") or card.service)[:200]
            eligibility, alert = row.get("eligibility_es") or eligibility, row.get("alert_es") or alert
            changes["hours"] = hours.get(card.id) or card.hours
        lines = [notice_line(notice, language=language) for notice in notices.get(card.id, [])]
        if spanish and any(not notice.text_es for notice in notices.get(card.id, [])):
            untranslated[card.id].add("alert")
        changes["alert"] = " — ".join([*lines, alert] if alert else lines)
        changes["eligibility"] = eligibility[:300]
        changes["untranslated"] = tuple(sorted(untranslated[card.id]))
        result.append(dataclasses.replace(card, **changes))
    return result


def _card_from_row(row: dict[str, Any], *, near: tuple[float, float] | None, now: dt.datetime) -> ResourceCard:
    service = SimpleNamespace(
        pk=row["id"],
        slug=row["slug"],
        name=row["name"],
        description=row["description"],
        url=row["url"],
        languages=row["languages"],
        categories=row["categories"],
        status=row["status"],
        alert=row["alert"],
        last_verified_at=row["last_verified_at"],
        is_statewide=row["is_statewide"],
        organization=SimpleNamespace(name=row["organization"]),
    )
    location = None
    if row["tier"] == 0:
        location = SimpleNamespace(
            address_1=row["address_1"],
            address_2=row["address_2"],
            city=row["city"],
            postal_code=row["postal_code"],
            region=row["region"],
            latitude=row["latitude"],
            longitude=row["longitude"],
        )
    phones = [SimpleNamespace(**phone) for phone in row["phones"] or []]
    rules = [
        Rule(rule["byday"], _parse_time(rule["opens_at"]), _parse_time(rule["closes_at"]), rule["description"])
        for rule in row["schedules"] or []
    ]
    mailing = _address(SimpleNamespace(**row["mailing"])) if row["mailing"] else ""
    details = {row["id"]: (phones, rules, (mailing,) if mailing else ())}
    return _card(service, location, details, near=near, now=now)  # type: ignore[arg-type]


def _parse_time(value: object) -> dt.time | None:
    return dt.time.fromisoformat(str(value)) if value else None


def service_cards(
    service_ids: Sequence[uuid.UUID | str], *, near: tuple[float, float] | None = None, language: str | None = None
) -> list[ResourceCard]:
    """Cards for known services (e.g. to re-show a card), each at its first location."""
    moment = local_now()
    services = Service.objects.filter(pk__in=service_ids).select_related("organization")
    details = _details([service.pk for service in services])
    cards = []
    for service in services:
        sal = service.service_at_locations.select_related("location").order_by("location_id").first()
        cards.append(_card(service, sal.location if sal else None, details, near=near, now=moment))
    return _with_extras(cards, language)


def referral_card() -> ResourceCard | None:
    """The 2-1-1 Texas card (statewide information and referral), or None if it is not loaded or not active."""
    service_id = Service.objects.filter(slug=REFERRAL_SLUG, status="active").values_list("pk", flat=True).first()
    return service_cards([service_id])[0] if service_id else None


def _details(service_ids: list[uuid.UUID]) -> dict[object, tuple[list[Phone], list[Rule], tuple[str, ...]]]:
    """Phones, schedules and statewide-location addresses for the chosen services in three queries."""
    phones: dict[object, list[Phone]] = {pk: [] for pk in service_ids}
    rules: dict[object, list[Rule]] = {pk: [] for pk in service_ids}
    addresses: dict[object, list[str]] = {pk: [] for pk in service_ids}
    for phone in Phone.objects.filter(service_id__in=service_ids).order_by("rank", "id"):
        phones[phone.service_id].append(phone)
    for schedule in Schedule.objects.filter(service_id__in=service_ids).order_by("id"):
        rules[schedule.service_id].append(
            Rule(schedule.byday, schedule.opens_at, schedule.closes_at, schedule.description)
        )
    for sal in (
        ServiceAtLocation.objects.filter(service_id__in=service_ids).select_related("location").order_by("location_id")
    ):
        addresses[sal.service_id].append(_address(sal.location))
    return {pk: (phones[pk], rules[pk], tuple(address for address in addresses[pk] if address)) for pk in service_ids}


def _address(location: object) -> str:
    if location is None:
        return ""
    parts = [location.address_1, location.address_2]  # type: ignore[attr-defined]
    street = ", ".join(part for part in parts if part)
    city = location.city  # type: ignore[attr-defined]
    tail = " ".join(part for part in (f"{city}, TX" if city else "", location.postal_code) if part)  # type: ignore[attr-defined]
    return ", ".join(part for part in (street, tail) if part) if street else ""


def _card(
    service: Service, location: object, details: dict, *, near: tuple[float, float] | None, now: dt.datetime
) -> ResourceCard:
    phones, rules, statewide_addresses = details[service.pk]
    voice = next((phone for phone in phones if phone.type == "voice"), None) or (phones[0] if phones else None)
    phone_display = ""
    if voice is not None:
        phone_display = display_phone(voice.number)
        if voice.type == "text" and voice.description:
            phone_display = voice.description
        elif voice.extension:
            phone_display += f" ext. {voice.extension}"
    statewide_line = service.is_statewide
    lat = lon = None
    distance = None
    address, city = "", ""
    region = "statewide" if statewide_line else ""
    if location is not None:
        address, city, region = _address(location), location.city, location.region  # type: ignore[attr-defined]
        lat, lon = location.latitude, location.longitude  # type: ignore[attr-defined]
        if near is not None and lat is not None and lon is not None:
            distance = round(places.haversine_km(near[0], near[1], lat, lon), 1)
    elif statewide_addresses:
        address = statewide_addresses[0]
    description = service.description.split(". ")[0].strip()
    return ResourceCard(
        id=str(service.pk),
        slug=service.slug,
        name=service.name,
        organization=service.organization.name,
        service=description[:200],
        phone=voice.number if voice else "",
        phone_display=phone_display,
        address=address,
        city=city,
        region=region,
        lat=lat,
        lon=lon,
        hours=summarize(rules),
        languages=tuple(service.languages),
        url=service.url,
        status=service.status,
        alert=service.alert,
        last_verified_at=service.last_verified_at.isoformat() if service.last_verified_at else None,
        distance_km=distance,
        open_now=is_open(rules, now),
        is_statewide_line=statewide_line,
        categories=tuple(service.categories),
    )


def coverage(*, today: dt.date | None = None) -> CoverageReport:
    """The region-by-core-need matrix of verified local entries, plus entries whose check is old or missing.

    An entry counts for a cell when it is active, not a statewide line, names its source, was seen
    in that source with its phone or address (`source_verified`), and has a physical location in the
    region with a street address: an entry without a confirmed address is not counted as local.
    """
    today = today or local_now().date()
    cells: dict[tuple[str, str], set[str]] = {
        (region, need): set() for region in COVERAGE_REGIONS for need in CORE_NEEDS
    }
    rows = (
        ServiceAtLocation.objects.filter(
            service__status="active",
            service__is_statewide=False,
            service__source_verified=True,
            location__location_type="physical",
            location__region__in=COVERAGE_REGIONS,
        )
        .exclude(service__source_url="")
        .exclude(location__address_1="")
        .values_list("location__region", "service__slug", "service__categories")
    )
    for region, slug, categories in rows:
        for need in categories:
            if (region, need) in cells:
                cells[(region, need)].add(slug)
    active = Service.objects.filter(status="active").order_by("slug")
    stale_before = today - dt.timedelta(days=STALE_AFTER_DAYS)
    stale = tuple(
        (slug, when.isoformat())
        for slug, when in active.filter(last_verified_at__lt=stale_before).values_list("slug", "last_verified_at")
        if when is not None  # lt never matches NULL; this tells the type checker so
    )
    undated = tuple(active.filter(last_verified_at__isnull=True).values_list("slug", flat=True))
    return CoverageReport(
        checked_on=today.isoformat(),
        total_services=Service.objects.count(),
        cells=tuple(
            CoverageCell(
                region, need, METRO_TARGET if region in METRO_REGIONS else REGIONAL_TARGET, tuple(sorted(slugs))
            )
            for (region, need), slugs in cells.items()
        ),
        stale=stale,
        undated=undated,
    )


def service_card_get(*, key: str) -> ResourceCard | None:
    """One active-or-not service's card by its id (UUID) or slug, or None when there is no such service."""
    service_id: uuid.UUID | None
    try:
        service_id = uuid.UUID(str(key))
    except ValueError:
        service_id = Service.objects.filter(slug=key).values_list("pk", flat=True).first()
    if service_id is None:
        return None
    cards = service_cards([service_id])
    return cards[0] if cards else None
