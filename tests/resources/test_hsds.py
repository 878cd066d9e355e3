"""The HSDS API validates against the official schemas; export → import round-trips without loss."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError as JsonSchemaError
from referencing import Registry, Resource

from resources.hsds import export_directory, import_directory
from resources.models import (
    Attribute,
    Location,
    Organization,
    Phone,
    RequiredDocument,
    Schedule,
    Service,
    ServiceAtLocation,
)

SCHEMAS = Path(__file__).resolve().parent / "hsds_schemas"
pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.resources.urls")]


def _registry() -> Registry:
    resources = []
    for name in ("taxonomy.json", "taxonomy_term.json", "metadata.json"):
        schema = json.loads((SCHEMAS / name).read_text())
        resources.append((name, Resource.from_contents(schema, default_specification=_spec())))
    return Registry().with_resources(resources)


def _spec() -> Any:
    from referencing.jsonschema import DRAFT202012

    return DRAFT202012


@functools.cache
def _validator(schema_name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / schema_name).read_text())
    return Draft202012Validator(schema, registry=_registry(), format_checker=FormatChecker())


def validate(instance: Any, schema_name: str) -> None:
    _validator(schema_name).validate(instance)


def test_the_schemas_do_reject_a_wrong_document() -> None:
    with pytest.raises(JsonSchemaError):
        validate({"id": "x", "name": "n", "status": "open"}, "service.json")  # not an HSDS status
    with pytest.raises(JsonSchemaError):
        validate(
            {"id": "x", "name": "n", "status": "active", "phones": [{"id": "p"}]}, "service.json"
        )  # phone needs a number
    with pytest.raises(JsonSchemaError):
        validate({"id": "x", "name": "n", "status": "active", "email": "not-an-email"}, "service.json")


def validate_page(body: dict[str, Any], item_schema: str) -> None:
    for key, kind in {
        "total_items": int,
        "total_pages": int,
        "page_number": int,
        "size": int,
        "first_page": bool,
        "last_page": bool,
        "empty": bool,
        "contents": list,
    }.items():
        assert isinstance(body[key], kind), key
    for item in body["contents"]:
        validate(item, item_schema)


def test_every_endpoint_answers_valid_hsds(directory: dict[str, int]) -> None:
    client = Client()
    assert client.get("/api/hsds/").json()["version"] == "3.0"
    services = client.get("/api/hsds/services?per_page=200").json()
    assert services["total_items"] == Service.objects.count() and services["size"] == services["total_items"]
    validate_page(services, "service_list.json")
    validate_page(client.get("/api/hsds/organizations?per_page=200").json(), "organization_list.json")
    validate_page(client.get("/api/hsds/service_at_locations?per_page=200").json(), "service_at_location_list.json")
    validate_page(client.get("/api/hsds/taxonomies").json(), "taxonomy.json")
    validate_page(client.get("/api/hsds/taxonomy_terms?per_page=200").json(), "taxonomy_term.json")
    for service in Service.objects.all():
        validate(client.get(f"/api/hsds/services/{service.pk}").json(), "service.json")
    for org in Organization.objects.all()[:20]:
        validate(client.get(f"/api/hsds/organizations/{org.pk}?full_service=true").json(), "organization.json")
    for sal in ServiceAtLocation.objects.all()[:20]:
        validate(client.get(f"/api/hsds/service_at_locations/{sal.pk}").json(), "service_at_location.json")


def test_pagination_envelope_and_filters(directory: dict[str, int]) -> None:
    client = Client()
    first = client.get("/api/hsds/services?per_page=10").json()
    assert (first["page_number"], first["size"], first["first_page"], first["last_page"]) == (1, 10, True, False)
    last = client.get(f"/api/hsds/services?per_page=10&page={first['total_pages']}").json()
    assert last["last_page"] and not last["first_page"]
    beyond = client.get(f"/api/hsds/services?per_page=10&page={first['total_pages'] + 1}").json()
    assert beyond["empty"] and beyond["contents"] == []
    terms = client.get("/api/hsds/taxonomy_terms?per_page=200").json()["contents"]
    voting = next(term for term in terms if term["code"] == "voting")
    by_term = client.get(f"/api/hsds/services?taxonomy_term_id={voting['id']}").json()
    assert by_term["total_items"] == Service.objects.filter(categories__contains=["voting"]).count() > 0
    bad = client.get("/api/hsds/services?per_page=abc")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_parameter"


def test_unknown_ids_are_404(directory: dict[str, int]) -> None:
    client = Client()
    for path in ("services", "organizations", "service_at_locations", "taxonomies", "taxonomy_terms"):
        assert client.get(f"/api/hsds/{path}/00000000-0000-0000-0000-000000000000").status_code == 404
        assert client.get(f"/api/hsds/{path}/not-a-uuid").status_code == 404


def test_the_api_is_read_only(directory: dict[str, int]) -> None:
    service = Service.objects.first()
    response = Client().post(f"/api/hsds/services/{service.pk}", {"name": "x"})
    assert response.status_code == 405


def _wipe() -> None:
    for model in (Attribute, RequiredDocument, Schedule, Phone, ServiceAtLocation, Location, Service, Organization):
        model.objects.all().delete()


def _comparable(document: dict[str, Any]) -> str:
    text = json.dumps(document, sort_keys=True)
    for service in document["services"]:
        text = text.replace(service.get("last_modified", "\0"), "")
    return text


def test_export_then_import_round_trips_without_loss(directory: dict[str, int], tmp_path: Path) -> None:
    Service.objects.filter(slug="haven-for-hope").update(
        last_verified_at="2025-05-01", fees="Free", status="temporarily_closed"
    )
    Organization.objects.filter(slug="tcje").update(feed_url="https://example.org/feed.json", email="info@example.org")
    path = tmp_path / "export.json"
    call_command("resources", "export-hsds", str(path))
    before = json.loads(path.read_text())
    _wipe()
    assert Service.objects.count() == 0
    call_command("resources", "import-hsds", str(path))
    after = export_directory()
    assert _comparable(after) == _comparable(before)
    for service in after["services"]:
        validate(service, "service.json")


def test_a_broken_import_writes_nothing(directory: dict[str, int]) -> None:
    document = export_directory()
    document["services"][-1]["phones"] = [{"id": "5d0c3d5e-1111-4111-8111-111111111111", "number": "not a phone"}]
    _wipe()
    with pytest.raises(ValidationError):
        import_directory(document)
    assert Service.objects.count() == 0 and Organization.objects.count() == 0
