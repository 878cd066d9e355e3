"""Fill the Spanish fields from fixtures/directory_es.json on databases loaded before they were editable.

Only empty fields are filled, so Spanish a partner or staff member has already written is kept.
"""

import json
from pathlib import Path

from django.db import migrations

OVERLAY = Path(__file__).resolve().parent.parent / "fixtures" / "directory_es.json"


def forwards(apps, schema_editor):
    from resources.spanish import overlay_apply

    if not OVERLAY.exists():
        return
    overlay_apply(
        json.loads(OVERLAY.read_text(encoding="utf-8")),
        service=apps.get_model("resources", "Service"),
        document=apps.get_model("resources", "RequiredDocument"),
        schedule=apps.get_model("resources", "Schedule"),
    )


class Migration(migrations.Migration):
    dependencies = [("resources", "0005_partner_self_service")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
