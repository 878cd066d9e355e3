"""The partner page in real Chromium: a partner adds a phone and a Spanish description, a supervisor
approves in the admin, and the card shows both; a closure for today takes the service out of matching."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from resources.hours import local_now
from resources.models import ChangeRequest, Location, Organization, PartnerMembership, Service, ServiceAtLocation
from resources.selectors import match, service_cards

PASSWORD = "a-long-browser-password-19"


@pytest.fixture
def partner_cast(db_read: None) -> dict[str, Any]:
    """A fresh organization with one Houston service (no phone yet), its editor and a supervisor."""
    tag = uuid.uuid4().hex[:8]
    org = Organization.objects.create(slug=f"browser-org-{tag}", name=f"Browser Org {tag}")
    service = Service.objects.create(
        organization=org,
        slug=f"browser-service-{tag}",
        name=f"Browser Shelter {tag}",
        description="Beds for the night.",
        categories=["education"],
        source_verified=True,
    )
    location = Location.objects.create(
        organization=org,
        city="Houston",
        region="houston",
        address_1="1 Test St",
        latitude=29.76,
        longitude=-95.37,
        geo_precision="city_centroid",
    )
    ServiceAtLocation.objects.create(service=service, location=location)
    users = get_user_model().objects
    partner = users.create_user(username=f"partner-{tag}", password=PASSWORD, is_staff=True, email="p@example.org")
    partner.groups.add(Group.objects.get_or_create(name="partner editor")[0])
    PartnerMembership.objects.create(user=partner, organization=org)
    supervisor = users.create_user(username=f"supervisor-{tag}", password=PASSWORD, is_staff=True)
    supervisor.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    return {"org": org, "service": service, "partner": partner, "supervisor": supervisor}


def _log_in(page: Any, username: str, next_path: str) -> None:
    page.goto(f"/admin/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")


def test_a_partner_adds_a_phone_and_spanish_description_and_after_approval_the_card_shows_both(
    new_context: Callable, shot: Callable, partner_cast: dict[str, Any]
) -> None:
    service = partner_cast["service"]
    page = new_context(width=1024).new_page()
    _log_in(page, partner_cast["partner"].username, "/partners/")
    page.get_by_role("row", name=service.name).get_by_role("link", name="Edit").click()
    page.get_by_label("What it does, in Spanish").fill("Camas para pasar la noche.")
    page.locator("[data-row='phone-0']").get_by_label("Number").fill("(713) 555-0142")
    shot(page, "partner-service-form")
    page.get_by_role("button", name="Send for review").click()
    page.get_by_text("2 change(s) sent for review").wait_for()
    assert page.get_by_text("Waiting for review").is_visible()
    assert page.get_by_text("+17135550142").first.is_visible()  # the readable diff of the pending phone
    assert not Service.objects.get(pk=service.pk).description_es  # nothing live yet

    staff = new_context(width=1280).new_page()
    _log_in(staff, partner_cast["supervisor"].username, "/admin/resources/changerequest/?status__exact=pending")
    for request in ChangeRequest.objects.filter(organization=partner_cast["org"]):
        staff.check(f"input[name=_selected_action][value='{request.pk}']")
    staff.select_option("select[name=action]", "approve")
    staff.fill("input[name=note]", "Checked by phone")
    staff.click("button[name=index]")
    staff.get_by_text("Approved 2 change request(s).").wait_for()

    [card] = service_cards([service.pk], language="es")
    assert (card.service, card.phone) == ("Camas para pasar la noche.", "+17135550142")
    page.goto("/partners/")
    assert page.get_by_text("Checked by phone").first.is_visible()
    shot(page, "partner-dashboard-approved")


def test_a_partner_closes_a_service_for_today_and_the_next_match_leaves_it_out(
    new_context: Callable, partner_cast: dict[str, Any]
) -> None:
    service = partner_cast["service"]
    assert str(service.pk) in {card.id for card in match(category="education", region="houston", limit=50)}
    page = new_context(width=1024, locale="es-MX").new_page()
    _log_in(page, partner_cast["partner"].username, "/partners/?lang=es")
    page.get_by_role("row", name=service.name).get_by_role("link", name="Aviso urgente o cierre").click()
    page.get_by_label("Cerrado por un tiempo").check()
    page.get_by_label("Qué decirle a la gente").fill("Closed today - water leak")
    page.get_by_label("Lo mismo, en español").fill("Cerrado hoy por una fuga de agua")
    page.get_by_label("Último día").fill(local_now().date().isoformat())
    page.get_by_role("button", name="Mostrarlo ahora").click()
    page.get_by_text("El aviso ya se muestra").wait_for()
    assert str(service.pk) not in {card.id for card in match(category="education", region="houston", limit=50)}
    [card] = service_cards([service.pk], language="es")
    assert "Cerrado hoy por una fuga de agua" in card.alert
