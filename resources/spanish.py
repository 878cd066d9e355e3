"""The Spanish a card shows: applied from resources/fixtures/directory_es.json onto the live directory.

The overlay is kept apart from directory.json so entries added to the directory later get their
Spanish by adding a key here (services by slug; alerts, documents and hours by their English text).
A field with no Spanish stays empty and the card falls back to the English text.

The overlay only fills Spanish fields that are still empty: once a partner or staff member has
written (and a reviewer approved) their own Spanish, a later `resources load` never reverts it.
Migration 0006 applies the same overlay to databases loaded before these fields were editable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import transaction

from resources.models import RequiredDocument, Schedule, Service

OVERLAY_PATH = Path(__file__).resolve().parent / "fixtures" / "directory_es.json"


def overlay_apply(data: dict[str, Any], *, service: Any, document: Any, schedule: Any) -> dict[str, int]:
    """Fill the empty *_es fields from an overlay document (models passed in, so a migration can use it too)."""
    counts = {"services": 0, "alerts": 0, "documents": 0, "hours": 0}
    for slug, fields in (data.get("services") or {}).items():
        if fields.get("description"):
            counts["services"] += service.objects.filter(slug=slug, description_es="").update(
                description_es=fields["description"]
            )
    for english, spanish in (data.get("alerts") or {}).items():
        counts["alerts"] += service.objects.filter(alert=english, alert_es="").update(alert_es=spanish)
    for english, spanish in (data.get("documents") or {}).items():
        counts["documents"] += document.objects.filter(document=english, document_es="").update(document_es=spanish)
    for english, spanish in (data.get("hours") or {}).items():
        counts["hours"] += schedule.objects.filter(description=english, description_es="").update(
            description_es=spanish
        )
    return counts


def spanish_overlay_apply(*, path: Path | None = None) -> dict[str, int]:
    """Write the overlay's Spanish into the still-empty *_es fields; returns how many rows each part filled."""
    data: dict[str, Any] = json.loads((path or OVERLAY_PATH).read_text(encoding="utf-8"))
    with transaction.atomic():
        return overlay_apply(data, service=Service, document=RequiredDocument, schedule=Schedule)
