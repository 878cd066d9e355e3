"""`manage.py rehash_phones`: recompute every stored phone hash with the current PHONE_HASH_KEY.

The lookup hash of an SMS number is an HMAC keyed by PHONE_HASH_KEY; after the key changes,
returning numbers would no longer find their contact. The numbers themselves are stored
encrypted, so the hashes can be rebuilt from them: contacts from their ciphertext, inbound rows
from their own ciphertext (pending) or their contact (decided). Run it in the maintenance window
of a rotation (docs/operations.md); it is idempotent and changes nothing when the key did not change.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from conversations import crypto
from conversations.models import Contact, InboundSms


class Command(BaseCommand):
    help = "Recompute phone lookup hashes with the current PHONE_HASH_KEY (after rotating it)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="count what would change, write nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        dry_run = options["dry_run"]
        contacts = inbound = unreadable = 0
        # One transaction: a half-rehashed table would split one person into two contacts.
        with transaction.atomic():
            for contact in Contact.objects.exclude(phone_encrypted="").only("pk", "phone_encrypted", "phone_hash"):
                try:
                    digest = crypto.phone_hash(crypto.decrypt(contact.phone_encrypted))
                except ValueError:
                    unreadable += 1
                    continue
                if digest != contact.phone_hash:
                    contacts += 1
                    if not dry_run:
                        Contact.objects.filter(pk=contact.pk).update(phone_hash=digest)
            rows = InboundSms.objects.exclude(phone_hash="").select_related("contact")
            for row in rows.only("pk", "phone_hash", "phone_encrypted", "contact__phone_encrypted"):
                digest = row.phone_hash
                try:
                    if row.phone_encrypted:
                        digest = crypto.phone_hash(crypto.decrypt(row.phone_encrypted))
                    elif row.contact is not None and row.contact.phone_encrypted:
                        digest = crypto.phone_hash(crypto.decrypt(row.contact.phone_encrypted))
                except ValueError:
                    unreadable += 1
                    continue
                if digest != row.phone_hash:
                    inbound += 1
                    if not dry_run:
                        InboundSms.objects.filter(pk=row.pk).update(phone_hash=digest)
            if unreadable and not dry_run:
                raise CommandError(
                    f"{unreadable} stored number(s) cannot be decrypted with FIELD_ENCRYPTION_KEY(S_OLD): "
                    "nothing was changed; fix the encryption keys first"
                )
        verb = "would rehash" if dry_run else "rehashed"
        self.stdout.write(f"{verb} {contacts} contact(s) and {inbound} inbound message(s)")
