"""Partner HSDS feeds: fetch (bounded), validate, and turn differences into ChangeRequests.

A feed never writes live data. Any failure — timeout, HTTP error, oversized body, malformed JSON,
an invalid value — is recorded on a FeedRefresh row and nothing else is written (all or nothing).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from resources.errors import FeedError
from resources.hsds import NEEDS_TAXONOMY
from resources.models import FeedRefresh, Location, Organization, Phone, Schedule, Service
from resources.services import TARGETS, change_diff, change_request_propose, organization_id_of
from resources.taxonomy import STATUS_FROM_HSDS

DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_BYTES = 5 * 1024 * 1024

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


def feed_fetch(url: str, *, timeout: float, max_bytes: int) -> tuple[Any, int]:
    """GET and parse a JSON feed (document, bytes read), refusing slow, failing, oversized or malformed ones."""
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=True, max_redirects=3) as client,
            client.stream("GET", url, headers={"Accept": "application/json"}) as response,
        ):
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
    except httpx.TimeoutException as exc:
        raise FeedError("timeout", f"The feed did not answer within {timeout} seconds.") from exc
    except httpx.HTTPError as exc:
        raise FeedError("unreachable", f"The feed could not be fetched ({type(exc).__name__}).") from exc
    try:
        return json.loads(bytes(body).decode("utf-8")), len(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FeedError("invalid_json", "The feed is not valid JSON.") from exc


def _feed_services(document: Any) -> list[dict[str, Any]]:
    """Accept a Pathways export, an HSDS page ({"contents": […]}), {"services": […]} or a bare list."""
    if isinstance(document, list):
        services = document
    elif isinstance(document, dict) and isinstance(document.get("contents"), list):
        services = document["contents"]
    elif isinstance(document, dict) and isinstance(document.get("services"), list):
        services = document["services"]
    else:
        raise FeedError("invalid", "The feed holds no list of HSDS services.")
    for index, service in enumerate(services):
        if (
            not isinstance(service, dict)
            or not isinstance(service.get("id"), str)
            or not isinstance(service.get("name"), str)
        ):
            raise FeedError("invalid", f"Service #{index} in the feed lacks an id or a name.")
    return services


def _pick(items: list[Any], feed_item: dict[str, Any], index: int) -> Any:
    """The existing object for a feed item: same id first, else the one in the same position."""
    by_id = {str(item.pk): item for item in items}
    if feed_item.get("id") in by_id:
        return by_id[feed_item["id"]]
    return items[index] if index < len(items) else None


def _values(feed_item: dict[str, Any], keys: dict[str, str]) -> dict[str, Any]:
    values = {ours: feed_item[theirs] for theirs, ours in keys.items() if theirs in feed_item}
    if "extension" in values and values["extension"] is not None:
        values["extension"] = str(values["extension"])
    return values


def _diff_or_invalid(instance: Any, target_type: str, values: dict[str, Any], label: str) -> dict[str, dict[str, Any]]:
    if not values:
        return {}
    try:
        return change_diff(instance=instance, target_type=target_type, changes=values)
    except ValidationError as exc:
        raise FeedError("invalid", f"{label}: {'; '.join(exc.messages)}") from exc


def _plan(
    organization: Organization, services: list[dict[str, Any]]
) -> tuple[list[tuple[str, Any, str, dict]], dict[str, int]]:
    """Every proposed change as (target_type, target_id, action, diff), computed before anything is written."""
    ours = list(Service.objects.filter(organization=organization))
    by_id = {str(service.pk): service for service in ours}
    by_name = {service.name.casefold(): service for service in ours}
    plan: list[tuple[str, Any, str, dict]] = []
    summary = {"services_in_feed": len(services), "matched": 0, "unmatched": 0}
    for feed_service in services:
        service = by_id.get(feed_service["id"]) or by_name.get(feed_service["name"].casefold())
        if service is None or organization_id_of(service) != organization.pk:
            summary["unmatched"] += 1  # new services are added by staff, not by a feed
            continue
        summary["matched"] += 1
        label = f"service {service.slug}"
        values = _values(feed_service, _SERVICE_KEYS)
        if "status" in feed_service:
            if feed_service["status"] not in STATUS_FROM_HSDS:
                raise FeedError("invalid", f"{label}: unknown status {feed_service['status']!r}")
            values["status"] = STATUS_FROM_HSDS[feed_service["status"]]
        if "languages" in feed_service:
            values["languages"] = [
                lang.get("code") for lang in feed_service["languages"] if isinstance(lang, dict) and lang.get("code")
            ]
        needs = [
            attr["taxonomy_term"]["code"]
            for attr in feed_service.get("attributes", [])
            if isinstance(attr, dict) and attr.get("taxonomy_term", {}).get("taxonomy") == NEEDS_TAXONOMY
        ]
        if needs:
            values["categories"] = needs
        diff = _diff_or_invalid(service, "service", values, label)
        if diff:
            plan.append(("service", service.pk, "update", diff))
        plan += _plan_children(service, feed_service, label)
    return plan, summary


def _plan_children(service: Service, feed_service: dict[str, Any], label: str) -> list[tuple[str, Any, str, dict]]:
    plan: list[tuple[str, Any, str, dict]] = []
    phones = list(service.phones.order_by("rank", "id"))
    for index, feed_phone in enumerate(feed_service.get("phones", [])):
        values = _values(feed_phone, _PHONE_KEYS)
        existing = _pick(phones, feed_phone, index)
        if existing is None:
            new = Phone(organization_id=service.organization_id, service=service, rank=index)
            diff = _diff_or_invalid(
                new, "phone", {"service": str(service.pk), "rank": index, **values}, f"{label} new phone"
            )
            plan.append(("phone", new.pk, "create", diff))
            continue
        diff = _diff_or_invalid(existing, "phone", values, f"{label} phone")
        if diff:
            plan.append(("phone", existing.pk, "update", diff))
    schedules = list(service.schedules.order_by("id"))
    for index, feed_schedule in enumerate(feed_service.get("schedules", [])):
        values = _values(feed_schedule, _SCHEDULE_KEYS)
        existing_schedule = _pick(schedules, feed_schedule, index)
        if existing_schedule is None:
            new_schedule = Schedule(service=service)
            diff = _diff_or_invalid(
                new_schedule, "schedule", {"service": str(service.pk), **values}, f"{label} new schedule"
            )
            plan.append(("schedule", new_schedule.pk, "create", diff))
            continue
        diff = _diff_or_invalid(existing_schedule, "schedule", values, f"{label} schedule")
        if diff:
            plan.append(("schedule", existing_schedule.pk, "update", diff))
    locations = [sal.location for sal in service.service_at_locations.select_related("location").order_by("id")]
    for index, feed_sal in enumerate(feed_service.get("service_at_locations", [])):
        feed_location = feed_sal.get("location") if isinstance(feed_sal, dict) else None
        if not isinstance(feed_location, dict):
            continue
        existing_location: Location | None = _pick(locations, feed_location, index)
        if existing_location is None:
            continue  # new locations need a region and review by staff; not proposed from feeds
        values = _values(feed_location, _LOCATION_KEYS)
        address = (feed_location.get("addresses") or [None])[0]
        if isinstance(address, dict):
            values.update(_values(address, _ADDRESS_KEYS))
        diff = _diff_or_invalid(existing_location, "location", values, f"{label} location")
        if diff:
            plan.append(("location", existing_location.pk, "update", diff))
    return plan


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
        plan, summary = _plan(organization, _feed_services(document))
        created = 0
        with transaction.atomic():
            for target_type, target_id, action, diff in plan:
                if target_type not in TARGETS:
                    continue
                if change_request_propose(
                    organization=organization,
                    target_type=target_type,
                    target_id=target_id,
                    action=action,
                    changes=diff,
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
    refresh.finished_at = timezone.now()
    refresh.save()
    return refresh


def feeds_refresh_all(*, slug: str | None = None) -> list[FeedRefresh]:
    """Refresh every organization that has a feed (or just `slug`)."""
    organizations = Organization.objects.exclude(feed_url="")
    if slug:
        organizations = Organization.objects.filter(slug=slug)
    return [feed_refresh(organization=organization) for organization in organizations.order_by("slug")]
