"""HTTP routes of the turn API and the web chat page."""

from __future__ import annotations

from django.urls import include, path

from conversations import api, timeline_api, web

urlpatterns = [
    path("", web.chat, name="chat"),
    path("sw.js", web.service_worker, name="chat-service-worker"),
    path("manifest.webmanifest", web.manifest, name="chat-manifest"),
    path("api/v1/conversations/", api.ConversationCreateView.as_view(), name="conversation-create"),
    path("api/v1/conversations/current/", web.CurrentConversationView.as_view(), name="conversation-current"),
    path("api/v1/conversations/current/restart", web.RestartConversationView.as_view(), name="conversation-restart"),
    path(
        "api/v1/conversations/<uuid:conversation_id>/", web.ConversationDeleteView.as_view(), name="conversation-delete"
    ),
    path("api/v1/conversations/<uuid:conversation_id>/consent", web.ConsentView.as_view(), name="conversation-consent"),
    path("api/v1/conversations/<uuid:conversation_id>/turns/", api.TurnCreateView.as_view(), name="turn-create"),
    path(
        "api/v1/conversations/<uuid:conversation_id>/messages/",
        timeline_api.ConversationMessagesView.as_view(),
        name="conversation-messages",
    ),
    path("api/v1/turns/<uuid:turn_id>/", api.TurnDetailView.as_view(), name="turn-detail"),
    path("api/v1/turns/<uuid:turn_id>/events", api.turn_events, name="turn-events"),
    path("", include("conversations.sms.urls")),
]
