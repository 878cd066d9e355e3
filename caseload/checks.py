"""Start-up checks of caseload's configuration (stable ids)."""

from __future__ import annotations

from typing import Any

from django.core.checks import Error, register

from caseload.office_hours import OfficeHoursError, configured_office_hours


@register()
def office_hours_check(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """OFFICE_HOURS must parse: people who ask for a person are told when to expect one."""
    try:
        configured_office_hours()
    except OfficeHoursError as exc:
        return [Error(str(exc), hint='e.g. OFFICE_HOURS = "Mon-Fri 09:00-17:00 America/Chicago"', id="caseload.E001")]
    return []
