"""Create the four staff roles (Groups) with their permissions (see caseload/roles.py)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations


def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations (post_migrate); create them now so the
    # groups can hold them in this same migrate run.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0, using=schema_editor.connection.alias)
        app_config.models_module = None
    from caseload.roles import roles_sync

    roles_sync(apps=apps)


def remove_roles(apps, schema_editor):
    from caseload.roles import ROLE_NAMES

    apps.get_model("auth", "Group").objects.filter(name__in=ROLE_NAMES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("caseload", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("conversations", "0001_initial"),
        ("resources", "0001_initial"),
        ("corpus", "0002_entries"),
        ("audit", "0001_initial"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
