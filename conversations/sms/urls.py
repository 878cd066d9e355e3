"""Routes of the Twilio webhooks (mounted at the site root by conversations.urls)."""

from __future__ import annotations

from django.urls import path

from conversations.sms import views

urlpatterns = [
    path("sms/twilio/inbound", views.inbound, name="sms-inbound"),
    path("sms/twilio/status", views.status, name="sms-status"),
]
