"""Encryption and keyed hashing for phone numbers: stored encrypted, looked up by HMAC, never logged."""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache

import phonenumbers
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class InvalidPhoneNumber(ValueError):
    """The number cannot be normalized to E.164."""


@lru_cache(maxsize=4)
def _fernet(key: str) -> Fernet:
    return Fernet(key.encode())


def normalize_phone(raw: str, region: str = "US") -> str:
    """Return the E.164 form of a phone number, or raise InvalidPhoneNumber."""
    try:
        parsed = phonenumbers.parse(raw, region)
    except phonenumbers.NumberParseException:
        raise InvalidPhoneNumber("not a phone number") from None
    if not phonenumbers.is_possible_number(parsed):
        raise InvalidPhoneNumber("not a possible phone number")
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def encrypt(value: str) -> str:
    """Encrypt a value with FIELD_ENCRYPTION_KEY (Fernet: AES-128-CBC + HMAC, timestamped)."""
    return _fernet(settings.FIELD_ENCRYPTION_KEY).encrypt(value.encode()).decode()


def _old_keys() -> tuple[str, ...]:
    # Keys being rotated out (FIELD_ENCRYPTION_KEYS_OLD, comma-separated or a list): still read, never written.
    raw = getattr(settings, "FIELD_ENCRYPTION_KEYS_OLD", None) or ()
    keys = raw.split(",") if isinstance(raw, str) else raw
    return tuple(key.strip() for key in keys if key and key.strip())


def _multi() -> MultiFernet:
    return MultiFernet([_fernet(settings.FIELD_ENCRYPTION_KEY), *(_fernet(key) for key in _old_keys())])


def decrypt(token: str) -> str:
    """Decrypt a value (current key, then FIELD_ENCRYPTION_KEYS_OLD); ValueError when no key fits or it was altered."""
    try:
        return _multi().decrypt(token.encode()).decode()
    except InvalidToken:
        raise ValueError("cannot decrypt: wrong FIELD_ENCRYPTION_KEY or altered value") from None


def phone_hash(e164: str) -> str:
    """Keyed hash used to find a contact by number without storing the number in clear."""
    return hmac.new(settings.PHONE_HASH_KEY.encode(), e164.encode(), hashlib.sha256).hexdigest()


def token_hash(token: str) -> str:
    """Hash a bearer token (conversation tokens are stored hashed, compared in constant time)."""
    return hashlib.sha256(token.encode()).hexdigest()


def phone_last4(e164: str) -> str:
    """The only part of a number ever shown to staff."""
    return e164[-4:]


def reencrypt(token: str) -> str:
    """Re-encrypt a value under the current FIELD_ENCRYPTION_KEY (key rotation); ValueError when no key fits."""
    try:
        return _multi().rotate(token.encode()).decode()
    except InvalidToken:
        raise ValueError("cannot decrypt: wrong FIELD_ENCRYPTION_KEY or altered value") from None
