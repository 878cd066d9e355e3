"""Start-up checks for configuration that safety depends on (stable ids: pathways.E0xx)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def check_production_integrations(app_configs: Any, **kwargs: Any) -> list[Error]:
    """In production an SMS deployment must have every Twilio setting, or none."""
    errors: list[Error] = []
    twilio = [settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN, settings.TWILIO_FROM_NUMBER]
    if any(twilio) and not all(twilio):
        errors.append(
            Error(
                "TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER must be set together",
                id="pathways.E001",
            )
        )
    if any(twilio) and not settings.PUBLIC_BASE_URL:
        errors.append(Error("PUBLIC_BASE_URL must be set so Twilio signatures can be checked", id="pathways.E002"))
    return errors
