"""PHONE_HASH_KEY is its own secret with a documented rotation: `manage.py rehash_phones` (#21 item 9)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from conversations import crypto
from conversations.models import Contact, InboundSms
from conversations.services import contact_for_phone
from conversations.sms.services import inbound_record

ROOT = Path(__file__).resolve().parents[2]
NUMBER = "+15125550133"


@pytest.mark.django_db
def test_after_a_key_rotation_rehash_finds_returning_numbers_again(settings, capsys) -> None:
    contact, _ = contact_for_phone(phone=NUMBER)
    settings.PHONE_HASH_KEY = "a-brand-new-phone-hash-key-0123456789abcdef"
    pending = inbound_record(message_sid="SM" + "a" * 32, from_number=NUMBER, body="hello")
    InboundSms.objects.filter(pk=pending).update(phone_hash=contact.phone_hash)  # recorded before the deploy
    assert not Contact.objects.filter(phone_hash=crypto.phone_hash(NUMBER)).exists()  # lookups miss

    call_command("rehash_phones", "--dry-run")
    assert "would rehash 1 contact(s) and 1 inbound" in capsys.readouterr().out
    assert Contact.objects.get(pk=contact.pk).phone_hash == contact.phone_hash

    call_command("rehash_phones")

    assert "rehashed 1 contact(s) and 1 inbound" in capsys.readouterr().out
    assert contact_for_phone(phone=NUMBER) == (Contact.objects.get(pk=contact.pk), False)
    assert InboundSms.objects.get(pk=pending).phone_hash == crypto.phone_hash(NUMBER)
    call_command("rehash_phones")
    assert "rehashed 0 contact(s) and 0 inbound" in capsys.readouterr().out


@pytest.mark.django_db
def test_an_undecryptable_number_stops_the_rehash_and_changes_nothing(settings) -> None:
    from django.core.management import CommandError

    contact, _ = contact_for_phone(phone=NUMBER)
    Contact.objects.create(channel="sms", phone_encrypted="not-a-token", phone_hash="x" * 64)
    settings.PHONE_HASH_KEY = "a-brand-new-phone-hash-key-0123456789abcdef"
    with pytest.raises(CommandError, match="cannot be decrypted"):
        call_command("rehash_phones")
    assert Contact.objects.get(pk=contact.pk).phone_hash == contact.phone_hash


@pytest.mark.django_db
def test_in_development_the_key_is_generated_and_not_derived_from_secret_key(tmp_path: Path, settings) -> None:
    code = "import django; django.setup(); from django.conf import settings as s; print(s.PHONE_HASH_KEY)"

    def run(secret: str) -> str:
        env = {k: v for k, v in os.environ.items() if k not in {"PHONE_HASH_KEY", "DJANGO_ENV", "DEBUG"}}
        env.update(PATHWAYS_VAR_DIR=str(tmp_path), SECRET_KEY=secret, DJANGO_SETTINGS_MODULE="pathways_site.settings")
        env["DATABASE_URL"] = settings.DATABASE_URL  # not a new embedded server under tmp_path
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True
        )
        return out.stdout.strip().splitlines()[-1]

    first, after_rotation = run("one-secret-" + "x" * 50), run("another-secret-" + "y" * 50)
    stored = json.loads((tmp_path / "secrets.json").read_text())
    assert first == after_rotation == stored["PHONE_HASH_KEY"]
    assert len(stored["AUDIT_ANCHOR_KEY"]) >= 32
