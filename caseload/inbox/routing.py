"""WebSocket routes of the inbox (mounted under ws/caseload/ by pathways_site.asgi, behind the session auth middleware)."""

from __future__ import annotations

from django.urls import path

from caseload.inbox.consumers import InboxConsumer

websocket_urlpatterns = [path("inbox/", InboxConsumer.as_asgi())]
