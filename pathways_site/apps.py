from django.apps import AppConfig


class PathwaysSiteConfig(AppConfig):
    name = "pathways_site"
    verbose_name = "Pathways site"

    def ready(self) -> None:
        from pathways_site import checks  # noqa: F401  (registers system checks)
