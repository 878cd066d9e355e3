"""`manage.py evaluate [--suite NAME] [--json OUT] [--html OUT]`: score the navigator on the pinned traces."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test.utils import override_settings

from conversations import llm
from conversations.evaluation import report as reports
from conversations.evaluation import standin
from conversations.evaluation.metrics import judge
from conversations.evaluation.runner import mode_name, run_traces
from conversations.evaluation.traces import TraceError, load_traces, suite_names


class Command(BaseCommand):
    help = "Run the pinned evaluation traces through the real workflow and write the JSON and HTML reports."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--suite",
            action="append",
            help="suite name (file stem in the traces directory); repeat for several; default all",
        )
        parser.add_argument("--json", dest="json_out", help="JSON report path (default var/eval.json)")
        parser.add_argument("--html", dest="html_out", help="HTML report path (default var/eval.html)")
        parser.add_argument("--traces", help="traces directory (default tests/evals/traces)")
        parser.add_argument(
            "--mode",
            choices=["auto", "demo", "llm"],
            default="auto",
            help="auto: the LLM path when ANTHROPIC_API_KEY is set, else demo; demo: never call a model; llm: require a key",
        )
        parser.add_argument(
            "--llm",
            action="store_true",
            help="same as --mode llm: trace the LLM path (cost, latency, grounding per stratum)",
        )
        parser.add_argument(
            "--fake-transport",
            action="store_true",
            help="answer model calls with the offline stand-in of the Messages API (CI: no key, no network)",
        )
        parser.add_argument("--check-floors", action="store_true", help="exit with an error when a floor is missed")

    def handle(self, *args: Any, **options: Any) -> None:
        directory = Path(options["traces"]) if options["traces"] else None
        try:
            traces = load_traces(directory, options["suite"])
        except TraceError as exc:
            raise CommandError(str(exc)) from None
        if options["llm"]:
            options["mode"] = "llm"
        fake = bool(options["fake_transport"])
        if options["mode"] == "llm" and not settings.ANTHROPIC_API_KEY and not fake:
            raise CommandError("--mode llm needs ANTHROPIC_API_KEY (or --fake-transport for the offline stand-in)")
        # Demo mode hides the key for this run only: every node takes its deterministic path.
        overrides: dict[str, Any] = {"ANTHROPIC_API_KEY": ""} if options["mode"] == "demo" else {}
        if fake:
            # The stand-in needs a key to turn the LLM path on; it never leaves the machine.
            overrides = {
                "ANTHROPIC_API_KEY": settings.ANTHROPIC_API_KEY or "sk-ant-offline-standin",
                "LLM_MAX_RETRIES": 0,
            }
        started = time.perf_counter()
        with override_settings(**overrides):
            if fake:
                llm.set_http_client_factory(standin.client)
            try:
                mode = mode_name() + ("-standin" if fake else "")
                self.stderr.write(f"evaluating {len(traces)} traces ({mode} mode)…")
                observations = run_traces(traces)
            finally:
                if fake:
                    llm.set_http_client_factory(lambda: None)
        results = [judge(obs) for obs in observations]
        suites = options["suite"] or suite_names(directory)
        data = reports.build_report(results, mode=mode, suites=suites, seconds=time.perf_counter() - started)
        var = Path(settings.VAR_DIR)
        json_path = Path(options["json_out"]) if options["json_out"] else var / "eval.json"
        html_path = Path(options["html_out"]) if options["html_out"] else var / "eval.html"
        reports.write_json(data, json_path)
        reports.write_html(data, html_path)
        self._print_summary(data, json_path, html_path)
        if options["check_floors"] and not data["floors_ok"]:
            failed = ", ".join(check["metric"] for check in data["floors"] if not check["ok"])
            raise CommandError(f"evaluation floors missed: {failed}")

    def _print_summary(self, data: dict[str, Any], json_path: Path, html_path: Path) -> None:
        overall = data["overall"]
        self.stdout.write(
            f"{overall['traces']} traces, {overall['turns']} turns, mode {data['mode']}, {data['seconds']} s"
        )
        for name, rate in overall["rates"].items():
            if rate["rate"] is not None:
                low, high = rate["ci95"]
                self.stdout.write(
                    f"  {name:<26} {rate['rate']:.3f}  ({rate['k']}/{rate['n']}, 95% CI {low:.3f} to {high:.3f})"
                )
        for name, value in overall["counts"].items():
            self.stdout.write(f"  {name:<26} {value}")
        latency, llm = overall["latency_ms"], overall["llm"]
        self.stdout.write(f"  latency p50/p95 ms          {latency['p50']} / {latency['p95']}")
        self.stdout.write(f"  llm calls/turn, cost/turn   {llm['calls_per_turn']}, ${llm['cost_per_turn_usd']}")
        for dim, groups in (data.get("strata") or {}).items():
            for group, summary in groups.items():
                counts = summary.get("counts", {})
                self.stdout.write(
                    f"  {dim}={group:<20} grounding findings {counts.get('grounding_findings', 0)}, "
                    f"cost ${summary.get('llm', {}).get('cost_total_usd')}, p50 {summary.get('latency_ms', {}).get('p50')} ms"
                )
        for check in data["floors"]:
            self.stdout.write(("  PASS " if check["ok"] else "  FAIL ") + check["message"][:400])
        self.stdout.write(f"wrote {json_path} and {html_path}")
