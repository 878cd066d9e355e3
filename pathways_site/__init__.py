"""Project package: settings, URL and ASGI wiring, the Celery app, the embedded database."""

from pathways_site.celery import app as celery_app

__all__ = ["celery_app"]
