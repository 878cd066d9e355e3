"""HTTP routes of the web chat and its turn API (mounted at the site root by conversations.urls)."""

from __future__ import annotations

from django.urls import path

from conversations.web import api, timeline, views

urlpatterns = [
    path("", views.chat, name="chat"),
    path("sw.js", views.service_worker, name="chat-service-worker"),
    path("manifest.webmanifest", views.manifest, name="chat-manifest"),
    path("api/v1/conversations/", api.ConversationCreateView.as_view(), name="conversation-create"),
    path("api/v1/conversations/current/", views.CurrentConversationView.as_view(), name="conversation-current"),
    path("api/v1/conversations/current/restart", views.RestartConversationView.as_view(), name="conversation-restart"),
    path(
        "api/v1/conversations/<uuid:conversation_id>/",
        views.ConversationDeleteView.as_view(),
        name="conversation-delete",
    ),
    path(
        "api/v1/conversations/<uuid:conversation_id>/consent", views.ConsentView.as_view(), name="conversation-consent"
    ),
    path("api/v1/conversations/<uuid:conversation_id>/turns/", api.TurnCreateView.as_view(), name="turn-create"),
    path(
        "api/v1/conversations/<uuid:conversation_id>/messages/",
        timeline.ConversationMessagesView.as_view(),
        name="conversation-messages",
    ),
    path("api/v1/turns/<uuid:turn_id>/", api.TurnDetailView.as_view(), name="turn-detail"),
    path("api/v1/turns/<uuid:turn_id>/events", api.turn_events, name="turn-events"),
]
