"""WebSocket routes of the conversations app (mounted by pathways_site.asgi)."""

from __future__ import annotations

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
