"""Field validation shared by models, loaders, feeds and the admin (one definition of "valid")."""

from __future__ import annotations

import re

import phonenumbers
from django.core.exceptions import ValidationError

from resources.taxonomy import DAY_CODES, NEED_CATEGORIES, REGIONS, TEXAS_LAT, TEXAS_LON

# 2-1-1, 3-1-1, 9-8-8 … are dialable US service codes that are not E.164 numbers.
_SERVICE_CODE = re.compile(r"^(?:[2-9]11|988)$")
_SMS_SHORT_CODE = re.compile(r"^\d{5,6}$")
_TEXAS_ZIP = re.compile(r"^(?:733|7[5-9]\d|885)\d{2}(?:-\d{4})?$")


def normalize_phone(raw: str, *, phone_type: str = "voice") -> str:
    """Return the canonical form: E.164 for real numbers, the bare digits for 211/988 or an SMS short code."""
    text = (raw or "").strip()
    digits = re.sub(r"\D", "", text)
    if _SERVICE_CODE.match(digits):
        return digits
    if phone_type == "text" and _SMS_SHORT_CODE.match(digits):
        return digits
    try:
        parsed = phonenumbers.parse(text, "US")
    except phonenumbers.NumberParseException as exc:
        raise ValidationError(f"{raw!r} is not a phone number.", code="invalid_phone") from exc
    if not phonenumbers.is_valid_number(parsed):
        raise ValidationError(
            f"{raw!r} is not a valid phone number (use e.g. +1 713 555 0123, or a service code like 211 or 988).",
            code="invalid_phone",
        )
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def display_phone(number: str) -> str:
    """Human form of a stored number: (713) 970-7000, 2-1-1, 988."""
    if not number:
        return ""
    if _SERVICE_CODE.match(number):
        return number if number == "988" else "-".join(number)
    if _SMS_SHORT_CODE.match(number):
        return number
    try:
        parsed = phonenumbers.parse(number, "US")
    except phonenumbers.NumberParseException:
        return number
    fmt = (
        phonenumbers.PhoneNumberFormat.NATIONAL
        if parsed.country_code == 1
        else phonenumbers.PhoneNumberFormat.INTERNATIONAL
    )
    return phonenumbers.format_number(parsed, fmt)


def validate_categories(value: list[str]) -> None:
    unknown = sorted(set(value or []) - set(NEED_CATEGORIES))
    if unknown:
        raise ValidationError(f"Unknown need categories: {', '.join(unknown)}.", code="unknown_category")
    if not value:
        raise ValidationError("A service needs at least one need category.", code="no_category")


def validate_region(value: str) -> None:
    if value not in REGIONS:
        raise ValidationError(f"Unknown region {value!r}.", code="unknown_region")


def validate_texas_point(lat: float | None, lon: float | None) -> None:
    """Both coordinates or neither, and inside Texas: a typo must not put a shelter in the Gulf."""
    if (lat is None) != (lon is None):
        raise ValidationError("Give both latitude and longitude, or neither.", code="half_point")
    if lat is None or lon is None:
        return
    if not (TEXAS_LAT[0] <= lat <= TEXAS_LAT[1] and TEXAS_LON[0] <= lon <= TEXAS_LON[1]):
        raise ValidationError(f"({lat}, {lon}) is outside Texas.", code="outside_texas")


def validate_texas_zip(value: str) -> None:
    if value and not _TEXAS_ZIP.match(value):
        raise ValidationError(f"{value!r} is not a Texas ZIP code.", code="invalid_zip")


def validate_byday(value: str) -> None:
    days = [day for day in (value or "").split(",") if day]
    bad = [day for day in days if day not in DAY_CODES]
    if bad:
        raise ValidationError(f"Unknown day codes {bad}; use {','.join(DAY_CODES)}.", code="invalid_byday")
    if len(set(days)) != len(days):
        raise ValidationError("A day appears twice.", code="invalid_byday")
