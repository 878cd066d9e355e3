"""WebSocket routes of the conversations app (mounted by pathways_site.asgi)."""

from __future__ import annotations

from django.urls import path

from conversations.web.consumers import ConversationProgressConsumer

websocket_urlpatterns = [
    path("ws/conversations/<uuid:conversation_id>/", ConversationProgressConsumer.as_asgi()),
]
