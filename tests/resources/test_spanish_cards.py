"""Cards a person acts on: alerts, documents to bring, who is taken — and all of it in Spanish for Spanish."""

from __future__ import annotations

import json
from typing import Any

import pytest

from resources.models import RequiredDocument, Schedule, Service
from resources.selectors import match, service_cards
from resources.spanish import OVERLAY_PATH, spanish_overlay_apply

pytestmark = pytest.mark.django_db


@pytest.fixture
def spanish(directory: dict[str, int]) -> dict[str, int]:
    return spanish_overlay_apply()


def test_the_overlay_has_spanish_for_every_existing_entry_and_every_document_and_hours_text():
    overlay = json.loads(OVERLAY_PATH.read_text(encoding="utf-8"))
    entries = json.loads((OVERLAY_PATH.parent / "directory.json").read_text(encoding="utf-8"))["entries"]
    assert {e["slug"] for e in entries} <= set(overlay["services"])
    documents = {d["document"] for e in entries for d in e["service"].get("required_documents", [])}
    assert documents <= set(overlay["documents"])
    hours = {s["description"] for e in entries for s in e["schedules"] if s.get("description")}
    assert hours <= set(overlay["hours"])
    alerts = {e["service"]["alert"] for e in entries if e["service"].get("alert")}
    assert alerts <= set(overlay["alerts"])


def test_a_spanish_card_shows_spanish_description_hours_documents_and_alert(spanish: dict[str, int]) -> None:
    dps = Service.objects.get(slug="dps-driver-license")
    [card] = service_cards([dps.pk], language="es")
    assert card.service.startswith("Emite tarjetas de identificación")
    assert card.hours == "Oficinas de licencias con cita" or "cita" in card.hours
    assert "Prueba de identidad" in card.documents and "Proof of identity" not in card.documents
    [english] = service_cards([dps.pk], language="en")
    assert english.service.startswith("Issues Texas ID cards") and "Proof of identity" in english.documents


def test_a_generated_spanish_hours_line_is_in_spanish(spanish: dict[str, int]) -> None:
    service = Service.objects.filter(schedules__opens_at__isnull=False, schedules__description="").first()
    if service is None:
        service = Service.objects.first()
        Schedule.objects.create(service=service, byday="MO,TU,WE,TH,FR", opens_at="08:00", closes_at="17:00")
    [card] = service_cards([service.pk], language="es")
    assert "a. m." in card.hours or "24/7" in card.hours


def test_cards_carry_alerts_attributes_and_documents_in_resources_json(spanish: dict[str, Any]) -> None:
    flagged = Service.objects.exclude(alert="").first()
    [card] = service_cards([flagged.pk], language="es")
    assert card.alert.startswith(("Datos de contacto sin confirmar", "Dirección sin confirmar"))
    data = card.as_dict()
    assert isinstance(data["attributes"], dict) and isinstance(data["documents"], list)
    walk_in = Service.objects.get(slug="starcare-lubbock")
    [starcare] = service_cards([walk_in.pk])
    assert dict(starcare.attributes).get("walk_in") is True


def test_match_returns_spanish_cards_for_spanish(spanish: dict[str, int]) -> None:
    cards = match(category="id_documents", region="houston", language="es")
    assert cards and all(
        card.service == (Service.objects.get(pk=card.id).description_es or card.service)[:200] for card in cards
    )


def test_a_new_service_without_spanish_falls_back_to_english(spanish: dict[str, int]) -> None:
    service = Service.objects.get(slug="dps-driver-license")
    Service.objects.filter(pk=service.pk).update(description_es="")
    RequiredDocument.objects.filter(service=service).update(document_es="")
    [card] = service_cards([service.pk], language="es")
    assert card.service.startswith("Issues Texas ID cards") and "Proof of identity" in card.documents
