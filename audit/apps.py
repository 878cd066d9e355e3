from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "Audit"

    def ready(self) -> None:
        # Connects the admin login receivers (dispatch_uid makes a second ready() harmless).
        from audit import signals

        signals.connect()
