"""Bad input is refused with a clear message and leaves nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from resources.models import EntryVersion, Location, Organization, Phone, Service
from resources.services import DEFAULT_FIXTURE, directory_load, entry_save
from resources.validators import display_phone, normalize_phone
from tests.resources.conftest import make_org


@pytest.mark.parametrize(
    ("raw", "stored", "shown"),
    [
        ("(713) 970-7000", "+17139707000", "(713) 970-7000"),
        ("2-1-1", "211", "2-1-1"),
        ("988", "988", "988"),
        ("1-800-799-7233", "+18007997233", "(800) 799-7233"),
    ],
)
def test_it_stores_phones_as_e164_or_service_codes(raw: str, stored: str, shown: str) -> None:
    assert normalize_phone(raw) == stored
    assert display_phone(stored) == shown


@pytest.mark.parametrize("raw", ["123", "555-555-555", "call us", "+1 000 000 0000", "67629"])
def test_it_refuses_an_invalid_phone(raw: str) -> None:
    with pytest.raises(ValidationError, match="not"):
        normalize_phone(raw)  # a bare 5-digit code is only a number for type "text"


@pytest.mark.django_db
def test_an_invalid_phone_is_not_saved() -> None:
    org = make_org("p")
    phone = Phone(organization=org, number="713-970")
    with pytest.raises(ValidationError) as excinfo:
        entry_save(instance=phone, actor=None)
    assert "number" in excinfo.value.message_dict
    assert not Phone.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("lat", "lon"), [(40.71, -74.0), (29.76, None), (19.4, -99.1)])
def test_coordinates_outside_texas_are_refused(lat: float, lon: float | None) -> None:
    location = Location(
        organization=make_org("geo"), city="X", region="houston", latitude=lat, longitude=lon, geo_precision="exact"
    )
    with pytest.raises(ValidationError) as excinfo:
        location.full_clean()
    assert "latitude" in excinfo.value.message_dict


@pytest.mark.django_db
def test_unknown_region_and_category_are_refused() -> None:
    org = make_org("bad")
    with pytest.raises(ValidationError) as excinfo:
        Location(organization=org, region="oklahoma").full_clean()
    assert "region" in excinfo.value.message_dict
    with pytest.raises(ValidationError) as excinfo:
        Service(organization=org, slug="s", name="S", categories=["housing", "crisis"]).full_clean()
    assert "Unknown need categories: crisis" in str(excinfo.value)


@pytest.mark.django_db
def test_duplicate_organization_names_are_refused_whatever_the_case() -> None:
    make_org("goodwill", "Goodwill Houston")
    with pytest.raises(ValidationError, match="already exists"):
        Organization(slug="goodwill-2", name="goodwill houston").full_clean()


@pytest.mark.django_db
def test_a_bad_entry_aborts_the_whole_load(tmp_path: Path) -> None:
    data = json.loads(DEFAULT_FIXTURE.read_text())
    data["entries"][40]["phones"] = [{"number": "not a phone", "type": "voice"}]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(ValidationError, match=data["entries"][40]["slug"]):
        directory_load(path=broken)
    assert Organization.objects.count() == 0 and Service.objects.count() == 0


@pytest.mark.django_db
def test_an_update_load_of_a_changed_service_with_opening_hours_keeps_their_history(
    directory: dict[str, int], tmp_path: Path
) -> None:
    """Found by hand: `resources load --update` crashed writing the history of a service with opening hours."""
    data = json.loads(DEFAULT_FIXTURE.read_text())
    slugs = set(Service.objects.exclude(open_ranges=[]).values_list("slug", flat=True))
    entry = next(e for e in data["entries"] if e["slug"] in slugs)
    entry["service"]["description"] += " Call ahead on holidays."
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data))
    assert directory_load(path=changed, update=True)["updated"] == 1
    service = Service.objects.get(slug=entry["slug"])
    assert service.description.endswith("Call ahead on holidays.")
    snapshot = EntryVersion.objects.filter(entity_id=service.pk).latest("pk").snapshot
    assert snapshot["open_ranges"] == [[r.lower, r.upper] for r in service.open_ranges] != []


@pytest.mark.django_db
def test_loading_twice_changes_nothing_and_keeps_reviewed_edits(directory: dict[str, int]) -> None:
    phone = Phone.objects.get(service__slug="harris-center", rank=0)
    phone.number = "+17139707001"  # as if a partner change had been approved
    phone.save()
    again = directory_load()
    assert again["created"] == 0 and again["updated"] == 0
    phone.refresh_from_db()
    assert phone.number == "+17139707001"
    assert directory_load(update=True)["updated"] == 1
    phone.refresh_from_db()
    assert phone.number == "+17139707000"
