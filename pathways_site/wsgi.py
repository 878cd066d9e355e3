"""WSGI entry point (HTTP only; WebSockets need the ASGI application)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")
application = get_wsgi_application()
