"""Spanish fields partners and staff edit through review: shown to Spanish speakers, English fallback marked,
and the existing Spanish overlay (fixtures/directory_es.json) carried into them without overwriting edits."""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest
from django.apps import apps as global_apps
from django.core.management import call_command

from resources.models import RequiredDocument, Schedule, Service
from resources.selectors import service_cards
from resources.services import change_request_approve, change_request_submit
from resources.spanish import OVERLAY_PATH

pytestmark = pytest.mark.django_db


def test_partners_propose_spanish_description_eligibility_and_hours_and_the_card_shows_them(
    cast: dict[str, Any],
) -> None:
    service = cast["service_a"]
    Service.objects.filter(pk=service.pk).update(eligibility="Men 18 and over.", description="A shelter for men.")
    schedule = Schedule.objects.create(service=service, description="By appointment")
    requests = [
        change_request_submit(
            user=cast["partner_a"],
            target_type="service",
            target_id=service.pk,
            changes={"description_es": "Un refugio para hombres.", "eligibility_es": "Hombres de 18 años o más."},
        ),
        change_request_submit(
            user=cast["partner_a"],
            target_type="schedule",
            target_id=schedule.pk,
            changes={"description_es": "Con cita"},
        ),
    ]
    [before] = service_cards([service.pk], language="es")
    assert before.service == "A shelter for men." and before.eligibility == "Men 18 and over."
    assert set(before.untranslated) == {"service", "eligibility", "hours"}
    for request in requests:
        change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    [card] = service_cards([service.pk], language="es")
    assert (card.service, card.eligibility, card.hours) == (
        "Un refugio para hombres.",
        "Hombres de 18 años o más.",
        "Con cita",
    )
    assert card.untranslated == ()
    [english] = service_cards([service.pk])
    assert english.eligibility == "Men 18 and over." and english.untranslated == ()
    assert card.as_dict()["untranslated"] == []


def test_staff_see_which_spanish_is_missing_in_the_admin(cast: dict[str, Any], client: Any) -> None:
    Service.objects.filter(pk=cast["service_a"].pk).update(description="Shelter", eligibility="Adults")
    client.force_login(cast["supervisor"])
    page = client.get("/admin/resources/service/").content.decode()
    assert "Spanish missing" in page and "description, eligibility" in page


def test_a_reload_keeps_spanish_a_partner_wrote(directory: dict[str, int]) -> None:
    call_command("resources", "load", verbosity=0)
    service = Service.objects.get(slug="dps-driver-license")
    overlay = json.loads(OVERLAY_PATH.read_text(encoding="utf-8"))
    assert service.description_es == overlay["services"]["dps-driver-license"]["description"]
    Service.objects.filter(pk=service.pk).update(description_es="Texto aprobado del socio.")
    call_command("resources", "load", verbosity=0)
    assert Service.objects.get(pk=service.pk).description_es == "Texto aprobado del socio."


def test_the_data_migration_fills_the_spanish_fields_of_an_already_loaded_directory(directory: dict[str, int]) -> None:
    Service.objects.update(description_es="", alert_es="")
    RequiredDocument.objects.update(document_es="")
    Schedule.objects.update(description_es="")
    migration = importlib.import_module("resources.migrations.0006_spanish_overlay_fields")
    migration.forwards(global_apps, None)
    overlay = json.loads(OVERLAY_PATH.read_text(encoding="utf-8"))
    for slug, fields in overlay["services"].items():
        if Service.objects.filter(slug=slug).exists():
            assert Service.objects.get(slug=slug).description_es == fields["description"], slug
    assert not RequiredDocument.objects.filter(document_es="").exists()
    assert not Schedule.objects.exclude(description="").filter(description_es="").exists()
    [card] = service_cards([Service.objects.get(slug="dps-driver-license").pk], language="es")
    assert card.service.startswith("Emite tarjetas de identificación") and "Prueba de identidad" in card.documents
