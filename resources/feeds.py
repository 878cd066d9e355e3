"""Partner HSDS feeds: fetch (bounded, no redirects elsewhere), validate against HSDS 3.0, and turn
differences into ChangeRequests.

A feed never writes live data. Any failure — timeout, HTTP error, oversized body, malformed JSON, a
document that is not HSDS (validated against the official schema before anything is compared), an
invalid value, a refused redirect — is recorded on a FeedRefresh row and nothing else is written.

Rows are matched by HSDS id, then by a stable natural key (a service's name, a phone's number, a
schedule's days and times, a location's street and city), never by position: a phone whose id and
number both differ is a removal plus an addition, not an edit of whichever phone came first.
A feed service we do not have becomes one "create" request (with its phones, hours and locations),
a service of ours missing from the feed one "delete" request; a child list is only compared when
the feed includes it.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from jsonschema import Draft202012Validator, FormatChecker

from resources import places
from resources.errors import FeedError
from resources.hsds import NEEDS_TAXONOMY
from resources.models import FeedRefresh, Location, Organization, Phone, Schedule, Service
from resources.services import (
    RETIRED_STATUS,
    TARGETS,
    change_diff,
    change_request_propose,
    children_diff,
    new_instance,
    removal_diff,
)
from resources.taxonomy import STATUS_FROM_HSDS
from resources.validators import normalize_phone

DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 3
MAX_RECORDED_ERRORS = 5
SCHEMA_PATH = Path(__file__).resolve().parent / "data" / "hsds" / "service.json"

# HSDS service key -> our Service field. Only keys present in the feed are compared.
_SERVICE_KEYS = {
    "name": "name",
    "description": "description",
    "url": "url",
    "email": "email",
    "alert": "alert",
    "fees_description": "fees",
    "eligibility_description": "eligibility",
    "application_process": "application_process",
}
_PHONE_KEYS = {"number": "number", "extension": "extension", "type": "type", "description": "description"}
_SCHEDULE_KEYS = {"byday": "byday", "opens_at": "opens_at", "closes_at": "closes_at", "description": "description"}
_LOCATION_KEYS = {"name": "name", "latitude": "latitude", "longitude": "longitude"}
_ADDRESS_KEYS = {"address_1": "address_1", "address_2": "address_2", "city": "city", "postal_code": "postal_code"}

Plan = list[tuple[str, Any, str, dict, list]]  # (target_type, target_id, action, diff, children)


# --- fetching --------------------------------------------------------------------------------


def _strict_default() -> bool:
    return bool(getattr(settings, "PRODUCTION", False))


def url_problem(url: str, *, strict: bool) -> str | None:
    """Why a feed URL may not be fetched, or None. Strict (production): https to public addresses only.

    The host is resolved and every address checked, so a name pointing at 127.0.0.1, 10.x,
    169.254.169.254 (cloud metadata) or another internal host is refused too.
    """
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        return "not an http(s) URL"
    if not strict:
        return None
    if parts.scheme != "https":
        return "not https"
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or 443, type=socket.SOCK_STREAM)
    except OSError:
        return "the host does not resolve"
    for info in infos:
        # The sockaddr of an IPv4/IPv6 result starts with the address text (typeshed allows an int for other families).
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not address.is_global or address.is_multicast:
            return f"the host resolves to a non-public address ({address})"
    return None


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return (parts.scheme, (parts.hostname or "").lower(), parts.port)


def feed_fetch(url: str, *, timeout: float, max_bytes: int, strict: bool | None = None) -> tuple[Any, int]:
    """GET and parse a JSON feed (document, bytes read), refusing slow, failing, oversized or malformed ones.

    Redirects are followed by hand: only within the feed's own host (http → https allowed), and in
    strict mode every hop must pass `url_problem` — a feed cannot bounce the fetcher to an internal address.
    """
    strict = _strict_default() if strict is None else strict
    problem = url_problem(url, strict=strict)
    if problem:
        raise FeedError("refused_url", f"The feed URL is refused: {problem}.")
    host = _origin(url)[1]
    try:
        with httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=False) as client:
            current = url
            for _hop in range(MAX_REDIRECTS + 1):
                with client.stream("GET", current, headers={"Accept": "application/json"}) as response:
                    if response.is_redirect:
                        target = str(response.url.join(response.headers.get("location", "")))
                        if _origin(target)[1] != host:
                            raise FeedError("redirect_refused", "The feed redirects to another host.")
                        problem = url_problem(target, strict=strict)
                        if problem:
                            raise FeedError("redirect_refused", f"The feed redirects to a refused URL: {problem}.")
                        current = target
                        continue
                    return _read(response, max_bytes)
            raise FeedError("redirect_refused", f"The feed redirects more than {MAX_REDIRECTS} times.")
    except httpx.TimeoutException as exc:
        raise FeedError("timeout", f"The feed did not answer within {timeout} seconds.") from exc
    except httpx.HTTPError as exc:
        raise FeedError("unreachable", f"The feed could not be fetched ({type(exc).__name__}).") from exc


def _read(response: httpx.Response, max_bytes: int) -> tuple[Any, int]:
    if response.status_code != 200:
        raise FeedError("http_error", f"The feed answered HTTP {response.status_code}.")
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise FeedError("too_large", f"The feed is larger than {max_bytes} bytes.")
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise FeedError("too_large", f"The feed is larger than {max_bytes} bytes.")
    try:
        return json.loads(bytes(body).decode("utf-8")), len(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FeedError("invalid_json", "The feed is not valid JSON.") from exc


# --- validation --------------------------------------------------------------------------------


class FeedInvalid(FeedError):
    """The document is not HSDS 3.0: `errors` holds the first schema errors (path and message)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("not_hsds", f"The feed is not valid HSDS 3.0: {errors[0]}")
        self.errors = errors


@functools.cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")), format_checker=FormatChecker())


def feed_services(document: Any) -> list[dict[str, Any]]:
    """The services of an HSDS page ({"contents": […]}), {"services": […]} or a bare list, each
    validated against the official HSDS 3.0 service schema; FeedInvalid with the first errors."""
    if isinstance(document, list):
        services, prefix = document, ""
    elif isinstance(document, dict) and isinstance(document.get("contents"), list):
        services, prefix = document["contents"], "contents/"
    elif isinstance(document, dict) and isinstance(document.get("services"), list):
        services, prefix = document["services"], "services/"
    else:
        raise FeedError("invalid", "The feed holds no list of HSDS services.")
    errors: list[str] = []
    for index, service in enumerate(services):
        for error in sorted(_validator().iter_errors(service), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(part) for part in [f"{prefix}{index}", *error.absolute_path])
            errors.append(f"{where}: {error.message[:160]}")
            if len(errors) >= MAX_RECORDED_ERRORS:
                raise FeedInvalid(errors)
    if errors:
        raise FeedInvalid(errors)
    ids = [service["id"] for service in services]
    if len(set(ids)) != len(ids):
        raise FeedInvalid(["two services in the feed share one id"])
    return services


# --- comparing ---------------------------------------------------------------------------------


def _values(feed_item: dict[str, Any], keys: dict[str, str]) -> dict[str, Any]:
    values = {ours: feed_item[theirs] for theirs, ours in keys.items() if theirs in feed_item}
    if "extension" in values:
        values["extension"] = "" if values["extension"] is None else str(values["extension"])
    return values


def _diff_or_invalid(instance: Any, target_type: str, values: dict[str, Any], label: str) -> dict[str, dict[str, Any]]:
    if not values:
        return {}
    try:
        return change_diff(instance=instance, target_type=target_type, changes=values)
    except ValidationError as exc:
        raise FeedError("invalid", f"{label}: {'; '.join(exc.messages)}") from exc


def _phone_key(number: Any) -> str:
    try:
        return normalize_phone(str(number))
    except ValidationError:
        return str(number)


def _schedule_key(item: Any) -> tuple[str, str, str, str]:
    def clock(value: Any) -> str:
        return str(value or "")[:5]

    if isinstance(item, Schedule):
        return (item.byday, clock(item.opens_at), clock(item.closes_at), item.description.strip().casefold())
    return (
        item.get("byday") or "",
        clock(item.get("opens_at")),
        clock(item.get("closes_at")),
        (item.get("description") or "").strip().casefold(),
    )


def _location_key(item: Any) -> tuple[str, str]:
    if isinstance(item, Location):
        return (item.address_1.strip().casefold(), item.city.strip().casefold()) if item.address_1 else ("", "")
    address = (item.get("addresses") or [{}])[0] if isinstance(item.get("addresses"), list) else {}
    street = (address.get("address_1") or "").strip().casefold()
    return (street, (address.get("city") or "").strip().casefold()) if street else ("", "")


def _pair(ours: list[Any], theirs: list[dict[str, Any]], key: Any) -> tuple[list[tuple[Any, dict]], list, list]:
    """Match feed items to ours by id, then by natural key; (pairs, feed-only items, ours-only rows)."""
    by_id = {str(item.pk): item for item in ours}
    taken: set[Any] = set()
    pairs, unmatched = [], []
    for item in theirs:
        mine = by_id.get(str(item.get("id")))
        if mine is None or mine.pk in taken:
            wanted = key(item)
            mine = next((row for row in ours if row.pk not in taken and any(wanted) and key(row) == wanted), None)
        if mine is None:
            unmatched.append(item)
        else:
            taken.add(mine.pk)
            pairs.append((mine, item))
    return pairs, unmatched, [row for row in ours if row.pk not in taken]


def _service_values(feed_service: dict[str, Any], label: str) -> dict[str, Any]:
    values = _values(feed_service, _SERVICE_KEYS)
    if "status" in feed_service:
        values["status"] = STATUS_FROM_HSDS[feed_service["status"]]
    if "languages" in feed_service:
        values["languages"] = [lang.get("code") for lang in feed_service["languages"] if lang.get("code")]
    needs = [
        attr["taxonomy_term"]["code"]
        for attr in feed_service.get("attributes", [])
        if isinstance(attr.get("taxonomy_term"), dict)
        and attr["taxonomy_term"].get("taxonomy") == NEEDS_TAXONOMY
        and attr.get("value", "true") == "true"
    ]
    if needs:
        values["categories"] = needs
    return values


def _location_values(feed_location: dict[str, Any]) -> dict[str, Any]:
    values = _values(feed_location, _LOCATION_KEYS)
    address = (feed_location.get("addresses") or [None])[0]
    if isinstance(address, dict):
        values.update(_values(address, _ADDRESS_KEYS))
    return values


def _new_location_values(feed_location: dict[str, Any]) -> dict[str, Any] | None:
    """A feed location we do not have, placed in a region by its ZIP or city (None when it cannot be placed)."""
    values = _location_values(feed_location)
    extra = feed_location.get("x_pathways") or {}
    place = places.place_for_zip(values.get("postal_code", "")) if values.get("postal_code") else None
    place = place or (places.place_for_city(values["city"]) if values.get("city") else None)
    region = extra.get("region") or (place.region if place else None)
    if not region:
        return None
    values["region"] = region
    if values.get("latitude") is None:
        values.pop("latitude", None)
        values.pop("longitude", None)
    else:
        values["geo_precision"] = extra.get("geo_precision") or "exact"
    return values


def _plan(organization: Organization, services: list[dict[str, Any]]) -> tuple[Plan, dict[str, Any]]:
    """Every proposed change, computed (and validated) before anything is written."""
    ours = list(Service.objects.filter(organization=organization).exclude(status=RETIRED_STATUS))
    pairs, new, missing = _pair(ours, services, _name_key)
    plan: Plan = []
    summary: dict[str, Any] = {
        "services_in_feed": len(services),
        "matched": len(pairs),
        "new": len(new),
        "removed": len(missing),
        "skipped": [],
    }
    for service, feed_service in pairs:
        label = f"service {service.slug}"
        diff = _diff_or_invalid(service, "service", _service_values(feed_service, label), label)
        if diff:
            plan.append(("service", service.pk, "update", diff, []))
        plan += _plan_children(service, feed_service, label, summary)
    for feed_service in new:
        plan += _plan_new_service(organization, feed_service, summary)
    for service in missing:
        plan.append(("service", service.pk, "delete", removal_diff(instance=service, target_type="service"), []))
    return plan, summary


def _name_key(item: Any) -> tuple[str]:
    name = item.name if isinstance(item, Service) else item.get("name", "")
    return ((name or "").strip().casefold(),)


def _plan_new_service(organization: Organization, feed_service: dict[str, Any], summary: dict[str, Any]) -> Plan:
    label = f"new service {feed_service['name']!r}"
    values = _service_values(feed_service, label)
    if not values.get("categories"):
        summary["skipped"].append(f"{label}: no Pathways need category ({NEEDS_TAXONOMY} attribute)")
        return []
    children: list[tuple[str, dict[str, Any]]] = []
    for rank, feed_phone in enumerate(feed_service.get("phones", [])):
        children.append(("phone", {"service": "$parent", "rank": rank, **_values(feed_phone, _PHONE_KEYS)}))
    for feed_schedule in feed_service.get("schedules", []):
        children.append(("schedule", {"service": "$parent", **_values(feed_schedule, _SCHEDULE_KEYS)}))
    for feed_sal in feed_service.get("service_at_locations", []):
        location = _new_location_values(feed_sal.get("location") or {})
        if location is None:
            summary["skipped"].append(f"{label}: a location that could not be placed in a Texas region")
            continue
        children.append(("location", location))
        children.append(("service_at_location", {"service": "$parent", "location": "$previous"}))
    service = new_instance("service", organization.pk)  # the id the new service will keep once approved
    try:
        diff = change_diff(instance=service, target_type="service", changes=values, organization_id=organization.pk)
        rows = children_diff(children, organization_id=organization.pk, parent=service)
    except ValidationError as exc:
        raise FeedError("invalid", f"{label}: {'; '.join(exc.messages)}") from exc
    return [("service", service.pk, "create", diff, rows)]


def _plan_children(service: Service, feed_service: dict[str, Any], label: str, summary: dict[str, Any]) -> Plan:
    plan: Plan = []
    if isinstance(feed_service.get("phones"), list):
        phones = list(service.phones.order_by("rank", "id"))
        pairs, new, gone = _pair(phones, feed_service["phones"], lambda p: (_phone_key(_number(p)),))
        for phone, feed_phone in pairs:
            diff = _diff_or_invalid(phone, "phone", _values(feed_phone, _PHONE_KEYS), f"{label} phone")
            if diff:
                plan.append(("phone", phone.pk, "update", diff, []))
        for rank, feed_phone in enumerate(new, start=len(phones)):
            phone = Phone(organization_id=service.organization_id, service=service, rank=rank)
            values = {"service": str(service.pk), "rank": rank, **_values(feed_phone, _PHONE_KEYS)}
            plan.append(
                ("phone", phone.pk, "create", _diff_or_invalid(phone, "phone", values, f"{label} new phone"), [])
            )
        plan += [("phone", phone.pk, "delete", removal_diff(instance=phone, target_type="phone"), []) for phone in gone]
    if isinstance(feed_service.get("schedules"), list):
        schedules = list(service.schedules.order_by("id"))
        pairs, new, gone = _pair(schedules, feed_service["schedules"], _schedule_key)
        for schedule, feed_schedule in pairs:
            values = _values(feed_schedule, _SCHEDULE_KEYS)
            diff = _diff_or_invalid(schedule, "schedule", values, f"{label} schedule")
            if diff:
                plan.append(("schedule", schedule.pk, "update", diff, []))
        for feed_schedule in new:
            schedule = Schedule(service=service)
            values = {"service": str(service.pk), **_values(feed_schedule, _SCHEDULE_KEYS)}
            diff = _diff_or_invalid(schedule, "schedule", values, f"{label} new schedule")
            plan.append(("schedule", schedule.pk, "create", diff, []))
        plan += [("schedule", row.pk, "delete", removal_diff(instance=row, target_type="schedule"), []) for row in gone]
    if isinstance(feed_service.get("service_at_locations"), list):
        plan += _plan_locations(service, feed_service["service_at_locations"], label, summary)
    return plan


def _number(item: Any) -> Any:
    return item.number if isinstance(item, Phone) else item.get("number")


def _plan_locations(service: Service, feed_sals: list[dict[str, Any]], label: str, summary: dict[str, Any]) -> Plan:
    plan: Plan = []
    sals = list(service.service_at_locations.select_related("location").order_by("id"))
    locations = [sal.location for sal in sals]
    feed_locations = [location for sal in feed_sals if isinstance(location := sal.get("location"), dict)]
    pairs, new, gone = _pair(locations, feed_locations, _location_key)
    for location, feed_location in pairs:
        diff = _diff_or_invalid(location, "location", _location_values(feed_location), f"{label} location")
        if diff:
            plan.append(("location", location.pk, "update", diff, []))
    for feed_location in new:
        values = _new_location_values(feed_location)
        if values is None:
            summary["skipped"].append(f"{label}: a new location that could not be placed in a Texas region")
            continue
        location = Location(organization_id=service.organization_id)
        diff = _diff_or_invalid(location, "location", values, f"{label} new location")
        try:
            link = children_diff(
                [("service_at_location", {"service": str(service.pk), "location": "$parent"})],
                organization_id=service.organization_id,
                parent=location,
            )
        except ValidationError as exc:
            raise FeedError("invalid", f"{label} new location: {'; '.join(exc.messages)}") from exc
        plan.append(("location", location.pk, "create", diff, link))
    # A location no longer in the feed stops being offered for this service: the link is removed
    # (the place itself may host the organization's other services).
    by_location = {sal.location_id: sal for sal in sals}
    for location in gone:
        sal = by_location[location.pk]
        plan.append(
            ("service_at_location", sal.pk, "delete", removal_diff(instance=sal, target_type="service_at_location"), [])
        )
    return plan


# --- the refresh -------------------------------------------------------------------------------


def feed_refresh(
    *, organization: Organization, timeout: float | None = None, max_bytes: int | None = None
) -> FeedRefresh:
    """Fetch one organization's feed and file its differences for review; never raises for feed problems."""
    refresh = FeedRefresh.objects.create(organization=organization, started_at=timezone.now())
    timeout = (
        timeout if timeout is not None else getattr(settings, "RESOURCES_FEED_TIMEOUT_SECONDS", DEFAULT_TIMEOUT_SECONDS)
    )
    max_bytes = max_bytes if max_bytes is not None else getattr(settings, "RESOURCES_FEED_MAX_BYTES", DEFAULT_MAX_BYTES)
    try:
        if not organization.feed_url:
            raise FeedError("no_feed", "This organization has no feed URL.")
        document, size = feed_fetch(organization.feed_url, timeout=timeout, max_bytes=max_bytes)
        refresh.bytes_read = size
        plan, summary = _plan(organization, feed_services(document))
        created = 0
        with transaction.atomic():
            for target_type, target_id, action, diff, children in plan:
                if target_type not in TARGETS:
                    continue
                if change_request_propose(
                    organization=organization,
                    target_type=target_type,
                    target_id=target_id,
                    action=action,
                    changes=diff,
                    children=children,
                    feed_refresh=refresh,
                ):
                    created += 1
        refresh.status = "ok"
        refresh.change_requests_created = created
        refresh.summary = {**summary, "differences": len(plan)}
    except FeedError as exc:
        refresh.status = "failed"
        refresh.error_code = exc.code
        refresh.error_message = exc.message[:300]
        refresh.errors = getattr(exc, "errors", [exc.message])[:MAX_RECORDED_ERRORS]
    refresh.finished_at = timezone.now()
    refresh.save()
    return refresh


def feeds_refresh_all(*, slug: str | None = None) -> list[FeedRefresh]:
    """Refresh every organization that has a feed (or just `slug`)."""
    organizations = Organization.objects.exclude(feed_url="")
    if slug:
        organizations = Organization.objects.filter(slug=slug)
    return [feed_refresh(organization=organization) for organization in organizations.order_by("slug")]
