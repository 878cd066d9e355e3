"""Partner editing in the real Django admin: scoping, 404 on URL guessing, review before going live."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from audit.models import AuditEvent
from resources.errors import ChangeRequestConflict, NotPermitted
from resources.models import ChangeRequest, EntryVersion, Phone, Schedule
from resources.services import change_request_approve, change_request_submit

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.resources.urls")]


def login(user: Any) -> Client:
    client = Client()
    client.force_login(user)  # django-axes wants a request for login(); the session is what matters here
    return client


def phone_form(phone: Phone, **changes: Any) -> dict[str, Any]:
    data = {
        "service": str(phone.service_id),
        "location": "",
        "number": phone.number,
        "extension": phone.extension,
        "type": phone.type,
        "description": phone.description,
        "languages": ",".join(phone.languages),
        "rank": phone.rank,
    }
    data.update(changes)
    return data


def test_a_partner_sees_only_their_organizations_objects(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    for model in ("service", "phone", "location", "schedule", "organization"):
        response = client.get(f"/admin/resources/{model}/")
        assert response.status_code == 200, model
    listing = client.get("/admin/resources/service/").content.decode()
    assert "A Shelter" in listing and "B Legal" not in listing
    phones = client.get("/admin/resources/phone/").content.decode()
    assert "+17132223333" in phones and "+12147481234" not in phones


@pytest.mark.parametrize("model", ["service", "phone", "location", "organization"])
def test_url_guessing_another_organizations_object_is_404(cast: dict[str, Any], model: str) -> None:
    client = login(cast["partner_a"])
    other = {
        "service": cast["service_b"],
        "phone": cast["phone_b"],
        "location": cast["location_b"],
        "organization": cast["org_b"],
    }[model]
    for suffix in ("change/", "history/", "delete/"):
        assert client.get(f"/admin/resources/{model}/{other.pk}/{suffix}").status_code == 404
    assert client.post(f"/admin/resources/{model}/{other.pk}/change/", {"name": "hijack"}).status_code == 404
    assert client.get(f"/admin/resources/{model}/not-a-uuid/change/").status_code == 404
    assert not ChangeRequest.objects.exists()


def test_a_partner_cannot_add_or_delete(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    assert client.get("/admin/resources/phone/add/").status_code == 403
    assert client.post(f"/admin/resources/phone/{cast['phone_a'].pk}/delete/", {"post": "yes"}).status_code == 403
    assert Phone.objects.filter(pk=cast["phone_a"].pk).exists()


def test_a_user_without_a_role_sees_no_directory(cast: dict[str, Any]) -> None:
    client = login(cast["nobody"])
    assert client.get("/admin/resources/service/").status_code == 403
    assert client.get(f"/admin/resources/service/{cast['service_a'].pk}/change/").status_code == 404


def test_a_partner_save_creates_a_pending_change_request_and_changes_nothing_live(cast: dict[str, Any]) -> None:
    phone = cast["phone_a"]
    client = login(cast["partner_a"])
    response = client.post(f"/admin/resources/phone/{phone.pk}/change/", phone_form(phone, number="(713) 222-4444"))
    assert response.status_code == 302
    phone.refresh_from_db()
    assert phone.number == "+17132223333"
    request = ChangeRequest.objects.get()
    assert (request.status, request.source, request.target_type, request.requested_by) == (
        "pending",
        "partner",
        "phone",
        cast["partner_a"],
    )
    assert request.changes == {"number": {"old": "+17132223333", "new": "+17132224444"}}
    assert AuditEvent.objects.filter(action="resources.change_request.submitted", object_id=str(request.pk)).exists()


def test_a_partner_pointing_a_phone_at_another_orgs_service_gets_a_form_error(cast: dict[str, Any]) -> None:
    phone = cast["phone_a"]
    client = login(cast["partner_a"])
    response = client.post(
        f"/admin/resources/phone/{phone.pk}/change/", phone_form(phone, service=str(cast["service_b"].pk))
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not ChangeRequest.objects.exists()
    with pytest.raises(ValidationError, match="another organization"):
        change_request_submit(
            user=cast["partner_a"],
            target_type="phone",
            target_id=phone.pk,
            changes={"service": str(cast["service_b"].pk)},
        )
    with pytest.raises(NotPermitted):
        change_request_submit(
            user=cast["partner_a"],
            target_type="phone",
            target_id=cast["phone_b"].pk,
            changes={"number": "+17135550100"},
        )
    assert not ChangeRequest.objects.exists()


def test_an_invalid_partner_value_is_a_form_error_and_no_request(cast: dict[str, Any]) -> None:
    phone = cast["phone_a"]
    client = login(cast["partner_a"])
    response = client.post(f"/admin/resources/phone/{phone.pk}/change/", phone_form(phone, number="12345"))
    assert response.status_code == 200
    assert "not a valid phone number" in response.content.decode()
    assert not ChangeRequest.objects.exists()


def test_staff_approve_in_admin_applies_the_change_and_records_who_and_when(cast: dict[str, Any]) -> None:
    phone = cast["phone_a"]
    login(cast["partner_a"]).post(
        f"/admin/resources/phone/{phone.pk}/change/", phone_form(phone, number="(713) 222-4444")
    )
    request = ChangeRequest.objects.get()
    # The partner cannot approve their own request.
    partner = login(cast["partner_a"])
    partner.post("/admin/resources/changerequest/", {"action": "approve", "_selected_action": [request.pk]})
    request.refresh_from_db()
    assert request.status == "pending"
    staff = login(cast["supervisor"])
    response = staff.post("/admin/resources/changerequest/", {"action": "approve", "_selected_action": [request.pk]})
    assert response.status_code == 302
    request.refresh_from_db()
    phone.refresh_from_db()
    assert phone.number == "+17132224444"
    assert (
        request.status == "approved" and request.reviewed_by == cast["supervisor"] and request.reviewed_at is not None
    )
    assert AuditEvent.objects.filter(
        action="resources.change_request.approved", actor=f"user:{cast['supervisor'].pk}"
    ).exists()
    assert EntryVersion.objects.filter(
        entity_type="phone", entity_id=phone.pk, reason=f"change_request:{request.pk}"
    ).exists()


def test_staff_reject_leaves_the_live_entry_alone(cast: dict[str, Any]) -> None:
    service = cast["service_a"]
    request = change_request_submit(
        user=cast["partner_a"], target_type="service", target_id=service.pk, changes={"alert": "Closed Friday"}
    )
    login(cast["supervisor"]).post(
        "/admin/resources/changerequest/", {"action": "reject", "_selected_action": [request.pk]}
    )
    request.refresh_from_db()
    service.refresh_from_db()
    assert request.status == "rejected" and service.alert == ""
    assert AuditEvent.objects.filter(action="resources.change_request.rejected").exists()


def test_partners_see_only_their_own_change_requests(cast: dict[str, Any]) -> None:
    request_b = change_request_submit(
        user=cast["partner_b"], target_type="service", target_id=cast["service_b"].pk, changes={"alert": "x"}
    )
    client = login(cast["partner_a"])
    assert client.get("/admin/resources/changerequest/").status_code == 200
    assert client.get(f"/admin/resources/changerequest/{request_b.pk}/change/").status_code == 404


def test_approval_refuses_a_stale_request(cast: dict[str, Any]) -> None:
    phone = cast["phone_a"]
    request = change_request_submit(
        user=cast["partner_a"], target_type="phone", target_id=phone.pk, changes={"number": "+17132224444"}
    )
    Phone.objects.filter(pk=phone.pk).update(number="+17132225555")  # changed meanwhile
    with pytest.raises(ChangeRequestConflict):
        change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    request.refresh_from_db()
    phone.refresh_from_db()
    assert request.status == "pending" and phone.number == "+17132225555"


def test_staff_edits_go_live_with_an_audit_event_and_a_version(cast: dict[str, Any]) -> None:
    schedule = Schedule.objects.create(service=cast["service_a"], description="Call for hours")
    client = login(cast["supervisor"])
    response = client.post(
        f"/admin/resources/schedule/{schedule.pk}/change/",
        {
            "service": str(cast["service_a"].pk),
            "location": "",
            "freq": "WEEKLY",
            "byday": "MO,TU",
            "opens_at": "08:00",
            "closes_at": "17:00",
            "description": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    schedule.refresh_from_db()
    assert schedule.byday == "MO,TU"
    event = AuditEvent.objects.get(action="resources.entry.saved", object_id=str(schedule.pk))
    assert event.actor == f"user:{cast['supervisor'].pk}" and "byday" in event.data["fields"]
    assert EntryVersion.objects.filter(entity_id=schedule.pk, reason="staff_edit").exists()
    assert not ChangeRequest.objects.exists()
