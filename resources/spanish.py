"""The Spanish a card shows: applied from resources/fixtures/directory_es.json onto the live directory.

The overlay is kept apart from directory.json so entries added to the directory later get their
Spanish by adding a key here (services by slug; alerts, documents and hours by their English text).
A field with no Spanish stays empty and the card falls back to the English text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import transaction

from resources.models import RequiredDocument, Schedule, Service

OVERLAY_PATH = Path(__file__).resolve().parent / "fixtures" / "directory_es.json"


def spanish_overlay_apply(*, path: Path | None = None) -> dict[str, int]:
    """Write the overlay's Spanish into the *_es fields; returns how many rows each part updated."""
    data: dict[str, Any] = json.loads((path or OVERLAY_PATH).read_text(encoding="utf-8"))
    counts = {"services": 0, "alerts": 0, "documents": 0, "hours": 0}
    with transaction.atomic():
        for slug, fields in (data.get("services") or {}).items():
            counts["services"] += Service.objects.filter(slug=slug).update(description_es=fields.get("description", ""))
        for english, spanish in (data.get("alerts") or {}).items():
            counts["alerts"] += Service.objects.filter(alert=english).update(alert_es=spanish)
        for english, spanish in (data.get("documents") or {}).items():
            counts["documents"] += RequiredDocument.objects.filter(document=english).update(document_es=spanish)
        for english, spanish in (data.get("hours") or {}).items():
            counts["hours"] += Schedule.objects.filter(description=english).update(description_es=spanish)
    return counts
