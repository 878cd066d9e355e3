"""`manage.py reencrypt`: rewrite every encrypted phone number with the current FIELD_ENCRYPTION_KEY."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from conversations.crypto import reencrypt
from conversations.models import Contact


class Command(BaseCommand):
    help = (
        "Re-encrypt stored phone numbers with the current key (after moving the old key to FIELD_ENCRYPTION_KEYS_OLD)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        updated = 0
        for contact in (
            Contact.objects.exclude(phone_encrypted="").only("pk", "phone_encrypted").iterator(chunk_size=500)
        ):
            token = reencrypt(contact.phone_encrypted)
            if token != contact.phone_encrypted:
                Contact.objects.filter(pk=contact.pk).update(phone_encrypted=token)
                updated += 1
        self.stdout.write(f"re-encrypted {updated} phone number(s)")
