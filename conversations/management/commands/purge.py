"""`manage.py purge [--dry-run]`: delete conversation content older than RETENTION_DAYS."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from conversations.retention import conversations_purge_expired


class Command(BaseCommand):
    help = "Delete turns, node runs and SMS bodies older than RETENTION_DAYS (the beat task does this daily)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="only count what would be deleted")

    def handle(self, *args: Any, **options: Any) -> None:
        result = conversations_purge_expired(now=timezone.now(), dry_run=options["dry_run"])
        verb = "would delete" if options["dry_run"] else "deleted"
        self.stdout.write(
            f"{verb} (older than {result['cutoff']}): "
            + json.dumps({k: v for k, v in result.items() if k not in ("cutoff", "dry_run")})
        )
