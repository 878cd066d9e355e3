from django.apps import AppConfig


class ToolserverConfig(AppConfig):
    name = "toolserver"
    verbose_name = "MCP tool servers"
    default_auto_field = "django.db.models.BigAutoField"
