"""`manage.py turns resume [--turn ID] [--older-than SECONDS]`: finish turns a crash left running."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from conversations.services import turns_resume


class Command(BaseCommand):
    help = "Resume unfinished turns from their last finished node."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        resume = sub.add_parser("resume", help="resume running turns")
        resume.add_argument("--turn", action="append", dest="turn_ids", help="only this turn (repeatable)")
        resume.add_argument(
            "--older-than", type=int, default=0, help="only turns started this many seconds ago or more"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count = turns_resume(turn_ids=options.get("turn_ids"), older_than=timedelta(seconds=options["older_than"]))
        self.stdout.write(f"resumed {count} turn(s)")
