"""The small cast of the resources tests: two partner organizations, their editors, a supervisor."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from resources.models import Location, Organization, PartnerMembership, Phone, Schedule, Service, ServiceAtLocation
from resources.services import attribute_term, directory_load

PASSWORD = "a-long-test-password-1"


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """The cast's accounts need no real key stretching; it only slows every test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _own_directory(request: pytest.FixtureRequest) -> None:
    """Each test sees only the directory it builds: other apps' suites load the real one into the
    shared test database, and these tests count and rank exact sets of services. Deleted inside the
    test's own transaction, so the real directory comes back when it rolls back."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None or marker.kwargs.get("transaction") or "directory" in request.fixturenames:
        return
    request.getfixturevalue("db")
    ServiceAtLocation.objects.all().delete()
    Service.objects.all().delete()
    Location.objects.all().delete()
    Organization.objects.all().delete()


@pytest.fixture
def directory(db: Any) -> dict[str, int]:
    """The real project fixture, loaded."""
    return directory_load()


def make_org(slug: str, name: str | None = None) -> Organization:
    return Organization.objects.create(slug=slug, name=name or slug.replace("-", " ").title())


def make_service(
    org: Organization,
    slug: str,
    *,
    categories: tuple[str, ...] = ("housing",),
    region: str | None = "houston",
    lat: float | None = 29.76,
    lon: float | None = -95.37,
    city: str = "Houston",
    status: str = "active",
    statewide: bool = False,
    languages: tuple[str, ...] = ("en",),
    phone: str | None = "+17139707000",
    hours: tuple[str, str, str] | None = None,
    attributes: dict[str, bool] | None = None,
    verified: bool = True,
) -> Service:
    service = Service.objects.create(
        organization=org,
        slug=slug,
        name=slug.replace("-", " ").title(),
        categories=list(categories),
        status=status,
        is_statewide=statewide,
        languages=list(languages),
        source_verified=verified,
    )
    if region is not None and not statewide:
        location = Location.objects.create(
            organization=org,
            city=city,
            region=region,
            latitude=lat,
            longitude=lon,
            geo_precision="city_centroid" if lat is not None else "none",
            address_1="1 Main St",
        )
        ServiceAtLocation.objects.create(service=service, location=location)
    if phone:
        Phone.objects.create(organization=org, service=service, number=phone)
    if hours:
        Schedule.objects.create(service=service, byday=hours[0], opens_at=hours[1], closes_at=hours[2])
    for code, value in (attributes or {}).items():
        service.attributes.create(taxonomy_term=attribute_term(code), value="true" if value else "false")
    return service


def make_user(
    username: str, *, group: str | None = None, org: Organization | None = None, superuser: bool = False
) -> Any:
    user = get_user_model().objects.create_user(
        username=username, password=PASSWORD, is_staff=True, is_superuser=superuser
    )
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    if org is not None:
        PartnerMembership.objects.create(user=user, organization=org)
    return user


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    """Org A with a partner editor, org B with another, a supervisor, and a user with no role."""
    org_a, org_b = make_org("org-a", "Org A Shelter"), make_org("org-b", "Org B Legal")
    service_a = make_service(org_a, "a-shelter", phone="+17132223333")
    service_b = make_service(org_b, "b-legal", categories=("legal_aid",), phone="+12147481234")
    return {
        "org_a": org_a,
        "org_b": org_b,
        "service_a": service_a,
        "service_b": service_b,
        "phone_a": service_a.phones.get(),
        "phone_b": service_b.phones.get(),
        "location_a": service_a.service_at_locations.get().location,
        "location_b": service_b.service_at_locations.get().location,
        "partner_a": make_user("partner-a", group="partner editor", org=org_a),
        "partner_b": make_user("partner-b", group="partner editor", org=org_b),
        "supervisor": make_user("supervisor", group="supervisor"),
        "nobody": make_user("nobody"),
    }
