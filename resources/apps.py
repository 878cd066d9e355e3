"""The HSDS-aligned Texas resource directory: organizations, services, matching, partner edits, feeds."""

from django.apps import AppConfig


class ResourcesConfig(AppConfig):
    name = "resources"
    verbose_name = "Resources"

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from resources.matchindex import on_directory_change
        from resources.models import Location, Schedule, Service, ServiceAtLocation

        # Derived matching columns must follow every write path (admin, services, loaders, imports).
        for model in (Service, Location, ServiceAtLocation, Schedule):
            post_save.connect(on_directory_change, sender=model, dispatch_uid=f"resources-match-{model.__name__}")
            if model is not Service:
                post_delete.connect(
                    on_directory_change, sender=model, dispatch_uid=f"resources-match-del-{model.__name__}"
                )
