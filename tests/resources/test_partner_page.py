"""The partner page (/partners/): one form per service, adds and removals through review, emails on outcome."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from audit.models import AuditEvent
from resources.errors import ChangeRequestConflict
from resources.models import Attribute, ChangeRequest, Location, Phone, RequiredDocument, Service, ServiceAtLocation
from resources.selectors import match, service_cards
from resources.services import (
    change_request_approve,
    change_request_readable,
    change_request_reject,
    change_request_submit,
)

pytestmark = pytest.mark.django_db


def login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page_data(client: Client, service: Service, **overrides: Any) -> dict[str, Any]:
    """The form as the page renders it (every current value), with `overrides` typed in."""
    response = client.get(f"/partners/services/{service.pk}/")
    assert response.status_code == 200
    forms = response.context["forms"]
    data: dict[str, Any] = {}
    for name in ("service", "attributes"):
        form = forms[name]
        for field in form:
            value = form.initial.get(field.name, field.field.initial)
            if value not in (None, ""):
                data[field.html_name] = value
    for name in ("phones", "hours", "locations", "documents"):
        formset = forms[name]
        for key, value in formset.management_form.initial.items():
            data[f"{formset.prefix}-{key}"] = value
        for form in formset:
            for field in form:
                value = form.initial.get(field.name, field.field.initial)
                if value in (None, "", False):
                    continue
                if field.name in {"opens_at", "closes_at"}:
                    value = value.strftime("%H:%M")
                data[field.html_name] = value
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not None}


@pytest.fixture
def emails(cast: dict[str, Any]) -> dict[str, Any]:
    cast["partner_a"].email = "editor@org-a.example"
    cast["partner_a"].save()
    return cast


def test_a_partner_adds_a_phone_and_spanish_description_and_after_approval_the_card_shows_both(
    emails: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    cast, service = emails, emails["service_a"]
    client = login(cast["partner_a"])
    data = page_data(
        client,
        service,
        **{
            "service-description_es": "Refugio para hombres.",
            "phones-1-number": "(713) 555-0199",
            "phones-1-type": "voice",
        },
    )
    response = client.post(f"/partners/services/{service.pk}/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    requests = list(ChangeRequest.objects.order_by("pk"))
    assert [(r.target_type, r.action) for r in requests] == [("service", "update"), ("phone", "create")]
    assert Phone.objects.filter(service=service).count() == 1  # nothing live yet
    rows = change_request_readable(requests[1])
    assert {"what": "Add phone", "field": "number", "old": "—", "new": "+17135550199"} in rows
    with django_capture_on_commit_callbacks(execute=True):
        for request in requests:
            change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"], note="Thanks")
    assert sorted(Phone.objects.filter(service=service).values_list("number", flat=True)) == [
        "+17132223333",
        "+17135550199",
    ]
    [spanish] = service_cards([service.pk], language="es")
    assert spanish.service == "Refugio para hombres."
    assert "service" not in spanish.untranslated
    assert len(mail.outbox) == 2 and mail.outbox[0].to == ["editor@org-a.example"]
    assert "approved" in mail.outbox[0].subject and "Thanks" in mail.outbox[0].body
    dashboard = client.get("/partners/").content.decode()
    assert "approved" in dashboard and "Thanks" in dashboard


def test_a_rejection_emails_the_note_and_the_page_shows_it(
    emails: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    cast = emails
    request = change_request_submit(
        user=cast["partner_a"], target_type="phone", target_id=cast["phone_a"].pk, changes={"number": "+17135550100"}
    )
    with django_capture_on_commit_callbacks(execute=True):
        change_request_reject(change_request_id=request.pk, reviewer=cast["supervisor"], note="That number is a fax.")
    [message] = mail.outbox
    assert "not approved" in message.subject and "That number is a fax." in message.body
    page = login(cast["partner_a"]).get("/partners/").content.decode()
    assert "That number is a fax." in page and "not approved" in page


def test_admin_reject_action_records_the_reviewers_note(emails: dict[str, Any]) -> None:
    cast = emails
    request = change_request_submit(
        user=cast["partner_a"], target_type="phone", target_id=cast["phone_a"].pk, changes={"number": "+17135550100"}
    )
    client = login(cast["supervisor"])
    response = client.post(
        "/admin/resources/changerequest/",
        {"action": "reject", "_selected_action": [request.pk], "note": "Call us first", "index": 0},
    )
    assert response.status_code == 302
    request.refresh_from_db()
    assert (request.status, request.review_note) == ("rejected", "Call us first")
    detail = client.get(f"/admin/resources/changerequest/{request.pk}/change/").content.decode()
    assert "Change phone" in detail and "+17135550100" in detail


def test_another_organizations_service_is_404_and_nothing_is_stored(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    other = cast["service_b"]
    for path in ("", "notice/", "remove/"):
        assert client.get(f"/partners/services/{other.pk}/{path}").status_code == 404
        assert client.post(f"/partners/services/{other.pk}/{path}", {"service-name": "Mine now"}).status_code == 404
    assert client.get(f"/partners/services/{uuid.uuid4()}/").status_code == 404
    assert client.get("/partners/services/not-a-uuid/").status_code == 404
    # A row id of another organization smuggled into the form of one's own service.
    data = page_data(
        client, cast["service_a"], **{"phones-0-id": str(cast["phone_b"].pk), "phones-0-number": "+17135550111"}
    )
    assert client.post(f"/partners/services/{cast['service_a'].pk}/", data).status_code == 404
    assert not ChangeRequest.objects.exists()
    assert Phone.objects.get(pk=cast["phone_b"].pk).number == "+12147481234"


def test_non_partners_are_sent_to_log_in_or_refused(cast: dict[str, Any]) -> None:
    assert Client().get("/partners/").status_code == 302
    assert login(cast["nobody"]).get("/partners/").status_code == 403


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"phones-0-number": "12345"}, "phones-0-number"),
        ({"service-url": "not a url"}, "service-url"),
        ({"service-email": "nope@"}, "service-email"),
    ],
)
def test_an_invalid_phone_or_url_is_a_field_error_and_nothing_is_sent(
    cast: dict[str, Any], overrides: dict[str, str], field: str
) -> None:
    client = login(cast["partner_a"])
    service = cast["service_a"]
    data = page_data(client, service, **{"service-description": "A valid change too", **overrides})
    response = client.post(f"/partners/services/{service.pk}/", data)
    assert response.status_code == 200
    prefix, _, name = field.rpartition("-")
    forms = response.context["forms"]
    form = forms["service"] if prefix == "service" else forms["phones"][int(prefix.split("-")[1])]
    assert form.errors.get(name), form.errors
    assert not ChangeRequest.objects.exists()  # the valid description change was not kept either


def test_a_new_location_is_placed_in_its_region_and_approved_with_its_link(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    service = cast["service_a"]
    data = page_data(
        client,
        service,
        **{"locations-1-address_1": "500 Elm St", "locations-1-city": "Dallas", "locations-1-postal_code": "75201"},
    )
    assert client.post(f"/partners/services/{service.pk}/", data).status_code == 302
    request = ChangeRequest.objects.get()
    assert (request.target_type, request.action, request.changes["region"]["new"]) == (
        "location",
        "create",
        "dallas_fort_worth",
    )
    assert [child["target_type"] for child in request.children] == ["service_at_location"]
    change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    location = Location.objects.get(pk=request.target_id)
    assert ServiceAtLocation.objects.filter(service=service, location=location).exists()
    assert service.pk in {uuid.UUID(card.id) for card in match(category="housing", region="dallas_fort_worth")}


def test_an_unplaceable_new_location_asks_for_the_region(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    service = cast["service_a"]
    data = page_data(client, service, **{"locations-1-address_1": "1 Road", "locations-1-city": "Atlantis"})
    response = client.post(f"/partners/services/{service.pk}/", data)
    assert response.status_code == 200 and response.context["forms"]["locations"][1].errors.get("region")
    assert not ChangeRequest.objects.exists()


def test_removals_documents_and_attributes_go_through_review(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    service = cast["service_a"]
    data = page_data(
        client,
        service,
        **{
            "phones-0-remove": "on",
            "documents-0-document": "Release papers",
            "documents-0-document_es": "Papeles de salida",
            "attributes-walk_in": "true",
        },
    )
    assert client.post(f"/partners/services/{service.pk}/", data).status_code == 302
    kinds = sorted((r.target_type, r.action) for r in ChangeRequest.objects.all())
    assert kinds == [("attribute", "create"), ("document", "create"), ("phone", "delete")]
    assert Phone.objects.filter(service=service).exists()  # nothing removed before review
    for request in ChangeRequest.objects.order_by("pk"):
        change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    assert not Phone.objects.filter(service=service).exists()
    assert RequiredDocument.objects.get(service=service).document_es == "Papeles de salida"
    assert Attribute.objects.get(service=service).value == "true"
    [card] = service_cards([service.pk], language="es")
    assert card.documents == ("Papeles de salida",) and dict(card.attributes) == {"walk_in": True}


def test_a_stale_removal_is_refused(cast: dict[str, Any]) -> None:
    request = change_request_submit(
        user=cast["partner_a"], target_type="phone", target_id=cast["phone_a"].pk, action="delete"
    )
    Phone.objects.filter(pk=cast["phone_a"].pk).update(number="+17135550000")  # staff changed it meanwhile
    with pytest.raises(ChangeRequestConflict):
        change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    assert Phone.objects.filter(pk=cast["phone_a"].pk).exists()
    assert ChangeRequest.objects.get().status == "pending"


def test_a_new_service_with_phone_and_location_is_one_request_applied_atomically(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    data = {
        "service-name": "Day Center",
        "service-categories": ["housing", "food"],
        "service-description": "Meals and showers.",
        "phones-TOTAL_FORMS": 1,
        "phones-INITIAL_FORMS": 0,
        "phones-0-number": "713-555-0123",
        "phones-0-type": "voice",
        "locations-TOTAL_FORMS": 1,
        "locations-INITIAL_FORMS": 0,
        "locations-0-address_1": "9 Main St",
        "locations-0-city": "Houston",
    }
    assert client.post("/partners/services/new/", data).status_code == 302
    request = ChangeRequest.objects.get()
    assert (request.target_type, request.action) == ("service", "create")
    assert [c["target_type"] for c in request.children] == ["phone", "location", "service_at_location"]
    change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    service = Service.objects.get(pk=request.target_id)
    assert service.organization == cast["org_a"] and service.slug.startswith("day-center-")
    assert service.phones.get().number == "+17135550123"
    assert service.service_at_locations.get().location.region == "houston"
    assert any(card.id == str(service.pk) for card in match(category="food", region="houston"))
    assert AuditEvent.objects.filter(action="resources.change_request.approved", object_id=str(request.pk)).exists()


def test_a_service_removal_marks_it_defunct_and_out_of_matching(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    service = cast["service_a"]
    assert client.post(f"/partners/services/{service.pk}/remove/").status_code == 302
    request = ChangeRequest.objects.get()
    assert request.changes == {"status": {"old": "active", "new": "defunct"}}
    change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    assert Service.objects.get(pk=service.pk).status == "defunct"
    assert not match(category="housing", region="houston")


def test_the_page_speaks_spanish(cast: dict[str, Any]) -> None:
    client = login(cast["partner_a"])
    page = client.get("/partners/?lang=es").content.decode()
    assert "Enviar" in client.get(f"/partners/services/{cast['service_a'].pk}/").content.decode()
    assert "Sus entradas" in page and 'lang="es"' in page
    assert "Your directory entries" in client.get("/partners/?lang=en").content.decode()


def test_a_feed_request_outcome_is_emailed_to_the_organization(
    cast: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    from resources.services import change_request_propose

    org = cast["org_a"]
    org.email = "office@org-a.example"
    org.save()
    request = change_request_propose(
        organization=org,
        target_type="phone",
        target_id=cast["phone_a"].pk,
        action="update",
        changes={"number": {"old": "+17132223333", "new": "+17132224444"}},
    )
    with django_capture_on_commit_callbacks(execute=True):
        change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"], note="Matches your site")
    [message] = mail.outbox
    assert message.to == ["office@org-a.example"] and "Matches your site" in message.body
    assert "+17132224444" in message.body
