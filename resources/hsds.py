"""HSDS 3.0 serialization of the directory (API, export, import, feeds) — one mapping, both ways.

Fields HSDS has no place for travel in an `x_pathways` object on the service, organization,
location and phone (slug, region, geo precision, flags, provenance); need categories and reentry
attributes are HSDS attributes pointing at our two taxonomies. Empty values are omitted, so an
absent key means "empty" on import. `last_modified` is informational and not imported.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from resources.matchindex import match_index_deferred, match_index_refresh
from resources.models import (
    Attribute,
    Location,
    Organization,
    Phone,
    RequiredDocument,
    Schedule,
    Service,
    ServiceAtLocation,
    Taxonomy,
    TaxonomyTerm,
)
from resources.taxonomy import NEEDS_TAXONOMY, STATUS_FROM_HSDS, STATUS_TO_HSDS, stable_id

HSDS_VERSION = "3.0"
EXPORT_FORMAT = "pathways-hsds-export/1"


def _clean(data: dict[str, Any]) -> dict[str, Any]:
    """Drop None and "" (HSDS types are strict: null is not a string, "" is not an email)."""
    return {key: value for key, value in data.items() if value is not None and value != ""}


def _time(value: dt.time | None) -> str | None:
    return value.strftime("%H:%M") if value is not None else None


# --- to HSDS -----------------------------------------------------------------------------------


def taxonomy_json(taxonomy: Taxonomy) -> dict[str, Any]:
    return _clean(
        {
            "id": str(taxonomy.pk),
            "name": taxonomy.name,
            "description": taxonomy.description,
            "uri": taxonomy.uri,
            "version": taxonomy.version,
        }
    )


def term_json(term: TaxonomyTerm) -> dict[str, Any]:
    return _clean(
        {
            "id": str(term.pk),
            "code": term.code,
            "name": term.name,
            "description": term.description,
            "parent_id": str(term.parent_id) if term.parent_id else None,
            "taxonomy": term.taxonomy.name,
            "taxonomy_id": str(term.taxonomy_id),
            "taxonomy_detail": taxonomy_json(term.taxonomy),
        }
    )


def _language_json(code: str, owner_key: str, owner_id: object) -> dict[str, Any]:
    return {
        "id": str(stable_id("language", owner_key, str(owner_id), code)),
        f"{owner_key}_id": str(owner_id),
        "code": code,
    }


def phone_json(phone: Phone) -> dict[str, Any]:
    return _clean(
        {
            "id": str(phone.pk),
            "organization_id": str(phone.organization_id),
            "service_id": str(phone.service_id) if phone.service_id else None,
            "location_id": str(phone.location_id) if phone.location_id else None,
            "number": phone.number,
            "extension": int(phone.extension) if phone.extension else None,
            "type": phone.type,
            "description": phone.description,
            "languages": [_language_json(code, "phone", phone.pk) for code in phone.languages] or None,
            "x_pathways": {"rank": phone.rank},
        }
    )


def schedule_json(schedule: Schedule) -> dict[str, Any]:
    structured = bool(schedule.byday)
    return _clean(
        {
            "id": str(schedule.pk),
            "service_id": str(schedule.service_id),
            "location_id": str(schedule.location_id) if schedule.location_id else None,
            "freq": schedule.freq if structured else None,
            "byday": schedule.byday,
            "opens_at": _time(schedule.opens_at),
            "closes_at": _time(schedule.closes_at),
            "description": schedule.description,
        }
    )


def location_json(location: Location) -> dict[str, Any]:
    addresses = []
    if location.address_1:
        addresses.append(
            {
                "id": str(stable_id("address", str(location.pk))),
                "location_id": str(location.pk),
                "address_1": location.address_1,
                **({"address_2": location.address_2} if location.address_2 else {}),
                "city": location.city,
                "state_province": location.state_province,
                "postal_code": location.postal_code,
                "country": "US",
                "address_type": location.location_type,
            }
        )
    return _clean(
        {
            "id": str(location.pk),
            "location_type": location.location_type,
            "organization_id": str(location.organization_id),
            "name": location.name,
            "latitude": location.latitude,
            "longitude": location.longitude,
            "addresses": addresses or None,
            "x_pathways": _clean(
                {
                    "region": location.region,
                    "geo_precision": location.geo_precision,
                    "city": location.city,
                    "postal_code": location.postal_code,
                }
            ),
        }
    )


def organization_json(org: Organization, *, full: bool = True, services: Iterable[Service] = ()) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(org.pk),
        "name": org.name,
        "description": org.description,
        "email": org.email,
        "website": org.url,
        "x_pathways": _clean({"slug": org.slug, "feed_url": org.feed_url}),
    }
    if full:
        data["phones"] = [phone_json(phone) for phone in org.phones.filter(service__isnull=True).order_by("rank", "id")]
        data["locations"] = [location_json(location) for location in org.locations.order_by("id")]
        data["services"] = [{"id": str(service.pk), "name": service.name} for service in services]
    cleaned = _clean(data)
    cleaned.setdefault("description", "")  # required by HSDS even when we have none
    return cleaned


def _attribute_json(attr_id: object, service_id: object, term: TaxonomyTerm, value: str) -> dict[str, Any]:
    return {
        "id": str(attr_id),
        "link_id": str(service_id),
        "link_type": "service",
        "link_entity": "service",
        "taxonomy_term_id": str(term.pk),
        "taxonomy_term": term_json(term),
        "value": value,
    }


def service_json(
    service: Service, *, full: bool = True, terms: dict[str, TaxonomyTerm] | None = None
) -> dict[str, Any]:
    """One service: list form (one-to-one fields only) or fully nested (`full`)."""
    data: dict[str, Any] = {
        "id": str(service.pk),
        "organization_id": str(service.organization_id),
        "name": service.name,
        "description": service.description,
        "url": service.url,
        "email": service.email,
        "status": STATUS_TO_HSDS[service.status],
        "application_process": service.application_process,
        "fees_description": service.fees,
        "eligibility_description": service.eligibility,
        "alert": service.alert,
        "assured_date": service.last_verified_at.isoformat() if service.last_verified_at else None,
        "last_modified": service.updated_at.isoformat() if service.updated_at else None,
        "x_pathways": _clean(
            {
                "slug": service.slug,
                "is_statewide": service.is_statewide,
                "is_crisis_line": service.is_crisis_line,
                "source_url": service.source_url,
                "source_verified": service.source_verified,
                "caveat": service.caveat,
            }
        ),
    }
    if full:
        terms = terms if terms is not None else _need_terms()
        data["organization"] = organization_json(service.organization, full=False)
        data["phones"] = [phone_json(phone) for phone in service.phones.order_by("rank", "id")]
        data["schedules"] = [schedule_json(schedule) for schedule in service.schedules.order_by("id")]
        data["service_at_locations"] = [
            _clean(
                {
                    "id": str(sal.pk),
                    "service_id": str(service.pk),
                    "location_id": str(sal.location_id),
                    "description": sal.description,
                    "location": location_json(sal.location),
                }
            )
            for sal in service.service_at_locations.select_related("location").order_by("id")
        ]
        data["languages"] = [_language_json(code, "service", service.pk) for code in service.languages]
        data["required_documents"] = [
            _clean({"id": str(doc.pk), "service_id": str(service.pk), "document": doc.document, "uri": doc.uri})
            for doc in service.required_documents.order_by("id")
        ]
        attributes = [
            _attribute_json(stable_id("category", str(service.pk), code), service.pk, terms[code], "true")
            for code in service.categories
        ]
        attributes += [
            _attribute_json(attr.pk, service.pk, attr.taxonomy_term, attr.value)
            for attr in service.attributes.select_related("taxonomy_term__taxonomy").order_by("taxonomy_term__code")
        ]
        data["attributes"] = attributes
    return _clean(data)


def service_at_location_json(sal: ServiceAtLocation, *, full: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(sal.pk),
        "service_id": str(sal.service_id),
        "location_id": str(sal.location_id),
        "description": sal.description,
    }
    if full:
        data["location"] = location_json(sal.location)
        data["service"] = service_json(sal.service, full=False)
        data["phones"] = [phone_json(phone) for phone in sal.location.phones.order_by("rank", "id")]
        data["schedules"] = [schedule_json(schedule) for schedule in sal.location.schedules.order_by("id")]
    return _clean(data)


def _need_terms() -> dict[str, TaxonomyTerm]:
    return {
        term.code: term
        for term in TaxonomyTerm.objects.select_related("taxonomy").filter(taxonomy__name=NEEDS_TAXONOMY)
    }


def export_directory() -> dict[str, Any]:
    """The whole directory as one HSDS document (organizations, services, taxonomies, terms)."""
    terms = _need_terms()
    services = list(Service.objects.select_related("organization").order_by("id"))
    by_org: dict[object, list[Service]] = {}
    for service in services:
        by_org.setdefault(service.organization_id, []).append(service)
    return {
        "format": EXPORT_FORMAT,
        "hsds_version": HSDS_VERSION,
        "taxonomies": [taxonomy_json(taxonomy) for taxonomy in Taxonomy.objects.order_by("id")],
        "taxonomy_terms": [term_json(term) for term in TaxonomyTerm.objects.select_related("taxonomy").order_by("id")],
        "organizations": [
            organization_json(org, services=by_org.get(org.pk, [])) for org in Organization.objects.order_by("id")
        ],
        "services": [service_json(service, terms=terms) for service in services],
    }


# --- from HSDS ---------------------------------------------------------------------------------


def _upsert(model: type[models.Model], pk: str, values: dict[str, Any]) -> Any:
    instance: Any = model._default_manager.filter(pk=pk).first() or model(pk=pk)
    for name, value in values.items():
        field = instance._meta.get_field(name)
        setattr(instance, field.attname, None if value is None else field.to_python(value))
    instance.full_clean()
    instance.save()
    return instance


def _location_values(data: dict[str, Any]) -> dict[str, Any]:
    extra = data.get("x_pathways", {})
    address = (data.get("addresses") or [{}])[0]
    return {
        "organization": data["organization_id"],
        "name": data.get("name", ""),
        "location_type": data.get("location_type", "physical"),
        "address_1": address.get("address_1", ""),
        "address_2": address.get("address_2", ""),
        "city": address.get("city", extra.get("city", "")),
        "postal_code": address.get("postal_code", extra.get("postal_code", "")),
        "region": extra.get("region", ""),
        "latitude": data.get("latitude"),
        "longitude": data.get("longitude"),
        "geo_precision": extra.get("geo_precision", "none"),
    }


def _phone_values(data: dict[str, Any], organization_id: str) -> dict[str, Any]:
    return {
        "organization": data.get("organization_id", organization_id),
        "service": data.get("service_id"),
        "location": data.get("location_id"),
        "number": data["number"],
        "extension": str(data["extension"]) if data.get("extension") is not None else "",
        "type": data.get("type", "voice"),
        "description": data.get("description", ""),
        "languages": [lang["code"] for lang in data.get("languages", []) if lang.get("code")],
        "rank": data.get("x_pathways", {}).get("rank", 0),
    }


def _schedule_values(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "service": data["service_id"],
        "location": data.get("location_id"),
        "freq": data.get("freq", "WEEKLY"),
        "byday": data.get("byday", ""),
        "opens_at": data.get("opens_at"),
        "closes_at": data.get("closes_at"),
        "description": data.get("description", ""),
    }


def service_values(data: dict[str, Any]) -> dict[str, Any]:
    """Our Service fields from an HSDS service object."""
    extra = data.get("x_pathways", {})
    status = data.get("status", "active")
    if status not in STATUS_FROM_HSDS:
        raise ValidationError(f"service {data.get('id')}: unknown status {status!r}")
    categories = [
        attr["taxonomy_term"]["code"]
        for attr in data.get("attributes", [])
        if attr.get("taxonomy_term", {}).get("taxonomy") == NEEDS_TAXONOMY and attr.get("value", "true") == "true"
    ]
    return {
        "organization": data["organization_id"],
        "slug": extra.get("slug") or data["id"],
        "name": data["name"],
        "description": data.get("description", ""),
        "url": data.get("url", ""),
        "email": data.get("email", ""),
        "categories": categories,
        "languages": [lang["code"] for lang in data.get("languages", []) if lang.get("code")],
        "eligibility": data.get("eligibility_description", ""),
        "fees": data.get("fees_description", ""),
        "application_process": data.get("application_process", ""),
        "status": STATUS_FROM_HSDS[status],
        "alert": data.get("alert", ""),
        "last_verified_at": data.get("assured_date"),
        "is_crisis_line": bool(extra.get("is_crisis_line", False)),
        "is_statewide": bool(extra.get("is_statewide", False)),
        "source_url": extra.get("source_url", ""),
        "source_verified": bool(extra.get("source_verified", False)),
        "caveat": extra.get("caveat", ""),
    }


def import_directory(document: dict[str, Any]) -> dict[str, int]:
    """Upsert an export document by id; all or nothing (any invalid object aborts the import)."""
    if document.get("format") != EXPORT_FORMAT:
        raise ValidationError(f"Not a Pathways HSDS export (format must be {EXPORT_FORMAT!r}).")
    counts = {"organizations": 0, "services": 0, "locations": 0, "phones": 0, "schedules": 0}
    try:
        with transaction.atomic(), match_index_deferred():
            for taxonomy in document.get("taxonomies", []):
                _upsert(
                    Taxonomy,
                    taxonomy["id"],
                    {key: taxonomy.get(key, "") for key in ("name", "description", "uri", "version")},
                )
            for term in document.get("taxonomy_terms", []):
                _upsert(
                    TaxonomyTerm,
                    term["id"],
                    {
                        "taxonomy": term["taxonomy_id"],
                        "code": term["code"],
                        "name": term["name"],
                        "description": term["description"],
                        "parent": term.get("parent_id"),
                    },
                )
            for org in document.get("organizations", []):
                extra = org.get("x_pathways", {})
                _upsert(
                    Organization,
                    org["id"],
                    {
                        "slug": extra.get("slug") or org["id"],
                        "name": org["name"],
                        "description": org.get("description", ""),
                        "url": org.get("website", ""),
                        "email": org.get("email", ""),
                        "feed_url": extra.get("feed_url", ""),
                    },
                )
                counts["organizations"] += 1
                for location in org.get("locations", []):
                    _upsert(Location, location["id"], _location_values(location))
                    counts["locations"] += 1
            for service in document.get("services", []):
                _upsert(Service, service["id"], service_values(service))
                counts["services"] += 1
            # Children after all parents exist: a phone may point at another service's location.
            for service in document.get("services", []):
                _import_children(service)
                counts["phones"] += len(service.get("phones", []))
                counts["schedules"] += len(service.get("schedules", []))
            for org in document.get("organizations", []):
                for phone in org.get("phones", []):
                    _upsert(Phone, phone["id"], _phone_values(phone, org["id"]))
                    counts["phones"] += 1
            match_index_refresh([service["id"] for service in document.get("services", [])])
    except (KeyError, TypeError) as exc:
        raise ValidationError(f"Malformed HSDS document: missing or wrong field {exc}.") from exc
    return counts


def _import_children(service: dict[str, Any]) -> None:
    service_id = service["id"]
    for sal in service.get("service_at_locations", []):
        if "location" in sal:
            _upsert(Location, sal["location_id"], _location_values(sal["location"]))
        _upsert(
            ServiceAtLocation,
            sal["id"],
            {"service": service_id, "location": sal["location_id"], "description": sal.get("description", "")},
        )
    for phone in service.get("phones", []):
        _upsert(Phone, phone["id"], _phone_values(phone, service["organization_id"]))
    for schedule in service.get("schedules", []):
        _upsert(Schedule, schedule["id"], _schedule_values(schedule))
    for doc in service.get("required_documents", []):
        _upsert(
            RequiredDocument, doc["id"], {"service": service_id, "document": doc["document"], "uri": doc.get("uri", "")}
        )
    for attr in service.get("attributes", []):
        term = attr.get("taxonomy_term", {})
        if term.get("taxonomy") == NEEDS_TAXONOMY:
            continue  # categories live on Service.categories
        _upsert(
            Attribute,
            attr["id"],
            {"service": service_id, "taxonomy_term": attr["taxonomy_term_id"], "value": attr.get("value", "true")},
        )
