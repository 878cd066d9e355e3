"""FIELD_ENCRYPTION_KEY rotation: old values stay readable through FIELD_ENCRYPTION_KEYS_OLD and can be re-encrypted."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from conversations import crypto


def test_a_value_encrypted_under_an_old_key_is_read_and_reencrypted_under_the_new(settings) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.FIELD_ENCRYPTION_KEY = old
    token = crypto.encrypt("+15125550177")
    settings.FIELD_ENCRYPTION_KEY = new
    with pytest.raises(ValueError, match="cannot decrypt"):
        crypto.decrypt(token)
    settings.FIELD_ENCRYPTION_KEYS_OLD = old
    assert crypto.decrypt(token) == "+15125550177"
    rotated = crypto.reencrypt(token)
    settings.FIELD_ENCRYPTION_KEYS_OLD = ""
    assert crypto.decrypt(rotated) == "+15125550177"
