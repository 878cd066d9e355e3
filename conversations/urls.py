"""HTTP routes of the conversations app: the web channel and the SMS webhooks, each from its own package."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("", include("conversations.web.urls")),
    path("", include("conversations.sms.urls")),
]
