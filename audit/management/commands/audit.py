"""`manage.py audit verify` checks the hash chain; `manage.py audit evaluate` scores the rules on the dev set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.metrics import evaluate, format_report, load_dev_set
from audit.selectors import audit_chain_verify


class Command(BaseCommand):
    help = "Audit log and compliance rules: `verify` the hash chain, `evaluate` the rules on the dev set."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="subcommand", required=True)
        sub.add_parser("verify", help="recompute the hash chain; exit 1 and name the first broken event if altered")
        ev = sub.add_parser("evaluate", help="score the compliance rules on the labelled dev set")
        ev.add_argument("--json", dest="json_out", help="also write the full report as JSON to this path")
        ev.add_argument(
            "--dataset",
            default=str(Path(settings.BASE_DIR) / "tests" / "evals" / "audit_dev.jsonl"),
            help="JSONL dev set (default: tests/evals/audit_dev.jsonl)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["subcommand"] == "verify":
            self._verify()
        else:
            self._evaluate(dataset=options["dataset"], json_out=options.get("json_out"))

    def _verify(self) -> None:
        report = audit_chain_verify()
        if not report.ok:
            raise CommandError(
                f"audit chain BROKEN at event #{report.first_broken_id}: {report.reason} "
                f"({report.checked} events verified before it)",
                returncode=1,
            )
        self.stdout.write(f"audit chain OK: {report.checked} events verified")

    def _evaluate(self, *, dataset: str, json_out: str | None) -> None:
        try:
            cases = load_dev_set(dataset)
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        report = evaluate(cases)
        self.stdout.write(format_report(report))
        if json_out:
            Path(json_out).write_text(
                json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            self.stdout.write(f"wrote {json_out}")
