"""`manage.py plan --release-date YYYY-MM-DD --region R [--supervision parole] [--need N …] --language en|es [--json]`."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from conversations.hooks import handoff_for
from plans.render import plan_text
from plans.selectors import plan_build, plan_request_make
from plans.types import SUPERVISION, OutOfTexas, PlanError


class Command(BaseCommand):
    help = "Print a day-one release plan (ordered checklist with cited rules and nearest places)."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--release-date", required=True, help="YYYY-MM-DD")
        parser.add_argument(
            "--region", required=True, help="a region code (houston), a Texas county ('Bexar County'), a city or a ZIP"
        )
        parser.add_argument("--supervision", choices=SUPERVISION, default="unknown")
        parser.add_argument(
            "--need", action="append", default=[], help="an extra need category (repeatable), e.g. employment"
        )
        parser.add_argument("--language", choices=("en", "es"), default="en")
        parser.add_argument("--today", help="YYYY-MM-DD (tests and pre-release meetings planned ahead)")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **options: Any) -> None:
        language = str(options["language"])
        try:
            release = dt.date.fromisoformat(str(options["release_date"]))
            today = dt.date.fromisoformat(str(options["today"])) if options["today"] else None
        except ValueError:
            raise CommandError("--release-date and --today take YYYY-MM-DD") from None
        try:
            request = plan_request_make(
                release_date=release,
                destination=str(options["region"]),
                supervision=str(options["supervision"]),
                needs=tuple(options["need"]),
                language=language,
                today=today,
            )
        except PlanError as exc:
            payload: dict[str, object] = {"error": exc.as_json(language)}
            if isinstance(exc, OutOfTexas):
                payload["handoff"] = {"category": "out_of_state", "text": handoff_for("out_of_state", language).text}
            if options["json"]:
                self.stdout.write(json.dumps(payload, ensure_ascii=False))
            raise CommandError(f"{exc.field}: {exc.message(language)}") from None
        plan = plan_build(request=request)
        if options["json"]:
            self.stdout.write(json.dumps(plan.as_json(), ensure_ascii=False, indent=2))
        else:
            self.stdout.write(plan_text(plan))
