"""`manage.py audit verify` checks the hash chain; `evaluate` scores the rules on the dev set;
`check-draft --jsonl FILE` runs the audit node's rules on plain-text drafts."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.module_loading import import_string

from audit.anchor import AnchorError, anchor_check, anchor_path, anchor_read, anchor_write
from audit.metrics import evaluate, format_report, load_dev_set
from audit.rules import check_draft
from audit.selectors import audit_chain_verify
from audit.types import AuditContext, EvidenceRecord


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
        cd = sub.add_parser("check-draft", help='audit drafts: {"id","draft","evidence":[slug...],"language"} per line')
        cd.add_argument("--jsonl", required=True, help='JSONL file of drafts ("-" for stdin)')

    def handle(self, *args: Any, **options: Any) -> None:
        if options["subcommand"] == "verify":
            self._verify()
        elif options["subcommand"] == "check-draft":
            self._check_drafts(options["jsonl"])
        else:
            self._evaluate(dataset=options["dataset"], json_out=options.get("json_out"))

    def _verify(self) -> None:
        report = audit_chain_verify()
        if not report.ok:
            # The anchor is left as it was: it is the evidence of what the chain looked like.
            raise CommandError(
                f"audit chain BROKEN at event #{report.first_broken_id}: {report.reason} "
                f"({report.checked} events verified before it)",
                returncode=1,
            )
        try:
            anchor = anchor_read()
            problem = anchor_check(anchor) if anchor is not None else None
        except AnchorError as exc:
            raise CommandError(f"audit anchor REFUSED: {exc}", returncode=1) from None
        if problem:
            raise CommandError(f"audit chain does NOT match its anchor: {problem}", returncode=1)
        if anchor is not None and report.checked < anchor.count:
            raise CommandError(
                f"audit chain does NOT match its anchor: {report.checked} events, {anchor.count} anchored",
                returncode=1,
            )
        self.stdout.write(f"audit chain OK: {report.checked} events verified")
        if anchor is None:
            self.stdout.write("no earlier anchor: this run writes the first one")
        line = anchor_write(event_id=report.head_id, head_hash=report.head_hash, count=report.checked)
        self.stdout.write(f"audit anchor written to {anchor_path()}: {line}")

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

    def _check_drafts(self, source: str) -> None:
        loader: Callable[..., Sequence[EvidenceRecord]] = import_string(settings.AUDIT_EVIDENCE_LOADER)
        handle = sys.stdin if source == "-" else Path(source).open(encoding="utf-8")  # noqa: SIM115
        with handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                item: Any = None
                try:
                    item = json.loads(line)
                    payload = self._check_one(item, loader)
                except ValueError as exc:
                    payload = {"error": {"line": number, "message": str(exc)}}
                payload = {"id": item.get("id") if isinstance(item, dict) else None, **payload}
                self.stdout.write(json.dumps(payload, ensure_ascii=False))

    def _check_one(self, item: Any, loader: Callable[..., Sequence[EvidenceRecord]]) -> dict[str, Any]:
        """The same rules the audit node runs on a plain-text draft: its brackets name the entries."""
        if not isinstance(item, dict) or not isinstance(item.get("draft"), str):
            raise ValueError("each line needs a JSON object with a draft string")
        slugs = item.get("evidence") or []
        if not isinstance(slugs, list) or not all(isinstance(s, str) for s in slugs):
            raise ValueError("evidence must be a list of entry slugs")
        language = str(item["language"]) if item.get("language") in ("en", "es") else "en"
        channel = str(item["channel"]) if item.get("channel") in ("web", "sms") else "web"
        evidence = list(loader(slugs=slugs, language=language))
        context = AuditContext(
            language=language,
            channel=channel,
            top_need="other",
            region=None,
            gated=False,
            out_of_state=None,
            legal_advice_requested=False,
            max_chars=settings.SMS_DRAFT_MAX_CHARS if channel == "sms" else settings.WEB_DRAFT_MAX_CHARS,
        )
        result = check_draft(draft=item["draft"], evidence=evidence, context=context)
        known = {record.slug for record in evidence}
        return {
            "verdict": result.verdict.value,
            "findings": [
                {"rule": f.rule, "claim": f.span, "entry": f.entry, "detail": f.message} for f in result.findings
            ],
            **({"unknown_evidence": [s for s in slugs if s not in known]} if set(slugs) - known else {}),
        }
