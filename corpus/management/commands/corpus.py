"""`manage.py corpus load|reindex|stats|search|evaluate`: the corpus from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count, Q

from corpus.errors import QueryError
from corpus.models import CorpusEntry
from corpus.types import CATEGORIES, LANGUAGES


class Command(BaseCommand):
    help = "Load, reindex, inspect, search and calibrate the legal corpus."
    # The corpus needs only its own tables; URL/app checks of other apps must not block a load.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        load = sub.add_parser("load", help="upsert the fixture (default: corpus/fixtures/corpus.json)")
        load.add_argument("path", nargs="?", type=Path)
        load.add_argument("--no-import-review", action="store_true", help="leave imported entries unreviewed")
        load.add_argument("--json", action="store_true")
        reindex = sub.add_parser("reindex", help="embed entries whose text changed (--force: all)")
        reindex.add_argument("--force", action="store_true")
        stats = sub.add_parser("stats", help="counts by category, verified, assertable")
        stats.add_argument("--json", action="store_true")
        search = sub.add_parser("search", help="hybrid search with the confidence gate")
        search.add_argument("query", nargs="?")
        search.add_argument("--jsonl", type=Path, help='one {"id","text"} per line in, one result per line out')
        search.add_argument("--json", action="store_true")
        search.add_argument("--language", default="en", choices=LANGUAGES)
        search.add_argument("--category", choices=CATEGORIES)
        search.add_argument("--k", type=int, default=5)
        evaluate = sub.add_parser("evaluate", help="metrics on the dev set; picks and writes the floor")
        evaluate.add_argument("--json", dest="json_out", type=Path, help="also write the full report here")
        evaluate.add_argument("--no-tune", action="store_true", help="keep confidence weights, pick only the floor")
        evaluate.add_argument("--no-write", action="store_true", help="do not update corpus/calibration.json")

        gate = sub.add_parser("train-gate", help="train the answerability gate (train set), threshold on dev, write it")
        gate.add_argument(
            "--no-write", action="store_true", help="report on dev without writing corpus/answerability.json"
        )
        evaluate.add_argument(
            "--blind", action="store_true", help="report the shipped gate and retrieval on the frozen blind set"
        )
        evaluate.add_argument(
            "--blind-set",
            choices=["blind", "blind2", "blind3", "blind4"],
            default="blind4",
            help="with --blind: which frozen set (blind to blind3 were read while tuning; blind4 is the one reported on)",
        )
        evaluate.add_argument(
            "--floors",
            choices=["goal", "regression"],
            default=None,
            help="with --blind: fail below the issue's targets (goal) or the shipped gate's own floor",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action'].replace('-', '_')}")(options)

    def _load(self, options: dict[str, Any]) -> None:
        from corpus.services import CorpusLoadError, corpus_load

        try:
            report = corpus_load(path=options["path"], import_review=not options["no_import_review"])
        except (CorpusLoadError, FileNotFoundError) as error:
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(report.as_json()))
        elif options["verbosity"]:
            self.stdout.write(
                f"corpus: {report.created} created, {report.updated} updated, {report.unchanged} unchanged, "
                f"{report.embedded} embedded, {report.import_reviewed} import-reviewed"
            )
        for warning in report.warnings:
            self.stderr.write(warning)

    def _reindex(self, options: dict[str, Any]) -> None:
        from corpus.services import corpus_reindex

        self.stdout.write(f"corpus: {corpus_reindex(force=options['force'])} entries embedded")

    def _stats(self, options: dict[str, Any]) -> None:
        rows = (
            CorpusEntry.objects.values("category")
            .annotate(
                entries=Count("id"),
                verified=Count("id", filter=Q(verified=True)),
                assertable=Count("id", filter=Q(assertable=True)),
                unembedded=Count("id", filter=Q(embedding__isnull=True)),
            )
            .order_by("category")
        )
        by_category: dict[str, dict[str, int]] = {
            row["category"]: {key: row[key] for key in ("entries", "verified", "assertable", "unembedded")}
            for row in rows
        }
        totals = {
            key: sum(row[key] for row in by_category.values())
            for key in ("entries", "verified", "assertable", "unembedded")
        }
        if options["json"]:
            self.stdout.write(json.dumps({"total": totals, "categories": by_category}))
            return
        self.stdout.write(f"{'category':<16}{'entries':>8}{'verified':>10}{'assertable':>12}{'unembedded':>12}")
        for category, row in by_category.items():
            self.stdout.write(
                f"{category:<16}{row['entries']:>8}{row['verified']:>10}{row['assertable']:>12}{row['unembedded']:>12}"
            )
        self.stdout.write(
            f"{'total':<16}{totals['entries']:>8}{totals['verified']:>10}{totals['assertable']:>12}{totals['unembedded']:>12}"
        )

    def _search(self, options: dict[str, Any]) -> None:
        from corpus.selectors import corpus_search

        if options["jsonl"]:
            self._search_jsonl(options)
            return
        if options["query"] is None:
            raise CommandError("give a QUERY or --jsonl IN.jsonl")
        try:
            result = corpus_search(
                query=options["query"], language=options["language"], category=options["category"], k=options["k"]
            )
        except QueryError as error:
            raise CommandError(f"{error.code}: {error.message}") from error
        if options["json"]:
            self.stdout.write(json.dumps(result.as_json(), ensure_ascii=False))
            return
        verdict = "GATED — do not assert, hand off" if result.gated else "ok"
        self.stdout.write(f"confidence {result.confidence:.3f} (floor {result.floor:.2f}): {verdict}")
        for rank, hit in enumerate(result.hits, 1):
            flag = "" if hit.assertable else "  [not assertable]"
            self.stdout.write(
                f"{rank}. {hit.citation} [{hit.slug}] score={hit.score:.4f} "
                f"lex={hit.lexical_rank} sem={hit.semantic_rank}{flag}"
            )
        for warning in result.warnings:
            self.stderr.write(warning)

    def _search_jsonl(self, options: dict[str, Any]) -> None:
        """One result per input line, carrying its id; a bad line yields an error line, not a crash."""
        from corpus.selectors import corpus_search

        handle = sys.stdin if str(options["jsonl"]) == "-" else options["jsonl"].open(encoding="utf-8")
        with handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    result = corpus_search(
                        query=row.get("text", ""),
                        language=row.get("language", options["language"]),
                        category=row.get("category", options["category"]),
                        k=int(row.get("k", options["k"])),
                    )
                    out: dict[str, Any] = {"id": row.get("id"), **result.as_json()}
                except QueryError as error:
                    out = {"id": row.get("id"), "error": {"code": error.code, "message": error.message}}
                except (json.JSONDecodeError, AttributeError, TypeError, ValueError) as error:
                    out = {"id": None, "line": number, "error": {"code": "bad_line", "message": str(error)}}
                self.stdout.write(json.dumps(out, ensure_ascii=False))

    def _train_gate(self, options: dict[str, Any]) -> None:
        from corpus import answerability, gate_training, wiring

        need_for = wiring.need_resolver()
        train_questions = gate_training.read_all(gate_training.TRAIN_FILES)
        blind = {gate_training.question_key(q.text) for q in gate_training.read_all(gate_training.BLIND_SETS.values())}
        # Independent authors sometimes write the same short question: the training copy is dropped,
        # never the blind one.
        dropped = [q.id for q in train_questions if gate_training.question_key(q.text) in blind]
        if dropped:
            train_questions = [q for q in train_questions if q.id not in dropped]
            self.stdout.write(f"dropped {len(dropped)} training questions that repeat blind ones: {', '.join(dropped)}")
        shipped = answerability.EXEMPLARS_PATH.read_bytes() if answerability.EXEMPLARS_PATH.is_file() else None
        exemplars_hash = gate_training.exemplars_build(train_questions)
        train = gate_training.observe(train_questions, need_for, leave_out=True)
        dev = gate_training.observe(gate_training.read_all(gate_training.DEV_FILES), need_for)
        payload = gate_training.fit(train, dev)
        payload["exemplars_sha256"] = exemplars_hash
        payload["version"] = answerability.version_of(payload)
        gate = answerability.gate_from_json(payload)
        payload["dev_figures"] = {
            "search": gate_training.report([wide for wide, _narrow in dev], gate),
            "workflow": gate_training.report(gate_training.workflow_view(dev, gate), gate),
        }
        self._print_table("dev set, corpus search (no need filter)", payload["dev_figures"]["search"])
        self._print_table(
            "dev set, as the workflow searches (within intake's need, widened when gated)",
            payload["dev_figures"]["workflow"],
        )
        self.stdout.write(f"threshold {payload['threshold']:.2f}, version {payload['version']}")
        if not options["no_write"]:
            self.stdout.write(f"wrote {gate_training.write_artifact(payload)} and {answerability.EXEMPLARS_PATH.name}")
        elif shipped is not None:  # a dry run leaves the shipped exemplars as they were
            answerability.EXEMPLARS_PATH.write_bytes(shipped)
            answerability.exemplars.cache_clear()

    def _print_table(self, title: str, figures: dict[str, Any]) -> None:
        self.stdout.write(f"{title}: {figures['questions']} questions")
        for key in (
            "recall_at_5",
            "recall_at_5_en",
            "recall_at_5_es",
            "unanswerable_handed_off",
            "answerable_blocked",
            "unanswerable_handed_off_en",
            "unanswerable_handed_off_es",
            "answerable_blocked_en",
            "answerable_blocked_es",
        ):
            row = figures[key]
            ci = row["ci95"] or [None, None]
            self.stdout.write(f"  {key:28} {row['rate']}  ({row['k']}/{row['n']}, 95 % CI {ci[0]}-{ci[1]})")
        for kind, row in figures["handed_off_by_kind"].items():
            self.stdout.write(f"  handed off ({kind}):{'':9} {row['rate']}  ({row['k']}/{row['n']})")

    def _evaluate_blind(self, options: dict[str, Any]) -> None:
        from corpus import answerability, gate_training, wiring

        gate_training.verify_blind()
        gate = answerability.gate()
        name = options["blind_set"]
        pairs = gate_training.observe(gate_training.read(gate_training.BLIND_SETS[name]), wiring.need_resolver())
        figures = gate_training.report([wide for wide, _narrow in pairs], gate)
        workflow = gate_training.report(gate_training.workflow_view(pairs, gate), gate)
        self._print_table(f"{name} set, corpus search (no need filter)", figures)
        self._print_table(f"{name} set, as the workflow searches (within intake's need, widened when gated)", workflow)
        figures = {"search": figures, "workflow": workflow}
        handoff_for = wiring.handoff_resolver()
        if handoff_for is not None:
            decided = {q.id: handoff_for(q.text) is not None for q in (wide.question for wide, _narrow in pairs)}
            figures["workflow_with_intake"] = gate_training.report(
                gate_training.workflow_view(pairs, gate), gate, lambda q: decided[q.id]
            )
            self._print_table(
                f"{name} set, as the whole workflow decides (intake's hand-offs to a person first, then the gate)",
                figures["workflow_with_intake"],
            )
        if options["json_out"]:
            options["json_out"].write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        if options["floors"]:
            floors = (
                gate_training.FLOORS["goal"]
                if options["floors"] == "goal"
                else gate_training.REGRESSION_FLOORS[options["blind_set"]]["search"]
            )
            misses = gate_training.floor_misses(figures["search"], floors)
            if misses:
                raise CommandError(f"blind set below the {options['floors']} floors: " + "; ".join(misses))

    def _evaluate(self, options: dict[str, Any]) -> None:
        if options["blind"]:
            self._evaluate_blind(options)
            return
        from corpus.evaluation import calibration_write, evaluate

        report = evaluate(tune=not options["no_tune"])
        header = f"{'leg':<10}{'R@1':>7}{'R@5':>7}{'MRR':>7}{'ES R@5':>8}{'gate P':>8}{'gate R':>8}{'ans blocked':>13}"
        self.stdout.write(f"dev set: {report['questions']} questions; floor {report['params']['floor']:.2f}")
        self.stdout.write(header)
        for leg, m in report["legs"].items():
            self.stdout.write(
                f"{leg:<10}{m['recall_at_1']:>7.3f}{m['recall_at_5']:>7.3f}{m['mrr']:>7.3f}"
                f"{m['spanish']['recall_at_5']:>8.3f}{m['gate_precision']:>8.3f}{m['gate_recall']:>8.3f}"
                f"{m['answerable_blocked']:>13.3f}"
            )
        for name, met in report["targets_met"].items():
            self.stdout.write(f"  {'ok ' if met else 'MISS'} {name}")
        if not options["no_write"]:
            path = calibration_write(report)
            self.stdout.write(f"wrote {path}")
        if options["json_out"]:
            options["json_out"].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
