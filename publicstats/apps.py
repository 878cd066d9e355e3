from django.apps import AppConfig


class PublicstatsConfig(AppConfig):
    name = "publicstats"
    verbose_name = "Public need counts"
    default_auto_field = "django.db.models.BigAutoField"
