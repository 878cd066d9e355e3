from django.apps import AppConfig


class OutreachConfig(AppConfig):
    name = "outreach"
    verbose_name = "Outreach: release plans and reminders"
    default_auto_field = "django.db.models.BigAutoField"
