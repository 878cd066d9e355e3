"""WebSocket routes of the inbox (mounted by pathways_site.asgi); the session auth middleware puts the user in scope."""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from django.urls import path

from caseload.inbox.consumers import InboxConsumer

websocket_urlpatterns = [path("ws/caseload/inbox/", AuthMiddlewareStack(InboxConsumer.as_asgi()))]
