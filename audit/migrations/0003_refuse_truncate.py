from django.db import migrations

# TRUNCATE fires no row trigger, so the append-only trigger of 0002 never saw it; a statement-level
# trigger refuses it (the same function raises, naming TG_OP = TRUNCATE).
FORWARD = """
CREATE TRIGGER audit_event_no_truncate
    BEFORE TRUNCATE ON audit_auditevent
    FOR EACH STATEMENT EXECUTE FUNCTION audit_event_refuse_change();
"""

BACKWARD = "DROP TRIGGER IF EXISTS audit_event_no_truncate ON audit_auditevent;"


class Migration(migrations.Migration):
    """The database refuses TRUNCATE of the audit log, as it refuses UPDATE and DELETE."""

    dependencies = [("audit", "0002_append_only_trigger")]
    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
