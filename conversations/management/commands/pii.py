"""`manage.py pii evaluate`: PII redaction figures on the frozen sets in tests/evals/pii/, with Wilson intervals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.stats import wilson
from conversations.evaluation import pii_eval
from resources.places import find_city

TARGETS = {"pii_recall": 0.98, "non_pii_masked_max": 0.02, "presidio_recall": 0.95}


def _share(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 4) if n else None, "ci95": [round(low, 4), round(high, 4)]}


def _recall(counts: dict[str, Any]) -> dict[str, Any]:
    caught, total = counts["caught"], counts["total"]
    return {
        "overall": _share(sum(caught.values()), sum(total.values())),
        "by_type": {kind: _share(caught.get(kind, 0), n) for kind, n in total.items()},
        "other_tokens_masked": _share(counts["other_tokens_masked"], counts["other_tokens"]),
    }


def dev_files() -> list[Path]:
    """The presidio-evaluator seeds tuned on (presidio_dev*.jsonl), never the frozen test seeds."""
    return sorted(pii_eval.PII_EVAL_DIR.glob("presidio_dev*.jsonl"))


def region_changes(redactor: pii_eval.Redactor) -> dict[str, Any]:
    """Ordinary messages whose region lookup (resources.places.find_city) changes after redaction."""
    changed = []
    rows = pii_eval.load_rows("non_pii.jsonl")
    with_city = 0
    for row in rows:
        before = find_city(row["text"])
        with_city += before is not None
        if before != find_city(redactor(row["text"])):
            changed.append(row["id"])
    return {"messages_with_city": with_city, "changed": changed}


def report(name: str, redactor: pii_eval.Redactor) -> dict[str, Any]:
    """Every figure for one redactor, as JSON-ready data (misses and damaged messages included)."""
    raw = pii_eval.evaluate(redactor)
    non_pii = raw["non_pii"]
    return {
        "redactor": name,
        "pii_set_test": _recall(raw["pii_set_test"]),
        "pii_set_dev": _recall(raw["pii_set_dev"]),
        "pii_set_all": _recall(raw["pii_set_all"]),
        "non_pii_masked": _share(non_pii["masked"], non_pii["tokens"]),
        **{
            key: _recall(raw[key])
            for name in pii_eval.PRESIDIO_SETS
            for key in (name, f"{name}_labelled", f"{name}_strict")
        },
        "regions": region_changes(redactor),
        "misses": raw["pii_set_all"]["misses"],
        "damaged": non_pii["damaged"],
    }


def _line(label: str, share: dict[str, Any]) -> str:
    low, high = share["ci95"]
    rate = "n/a" if share["rate"] is None else f"{share['rate']:.4f}"
    return f"  {label:<34} {share['k']:>5}/{share['n']:<5} = {rate}  [95% CI {low:.4f}-{high:.4f}]"


class Command(BaseCommand):
    help = (
        "Measure PII redaction on the frozen PII sets (recall, masked ordinary tokens, presidio-evaluator sentences)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        ev = sub.add_parser("evaluate", help="print recall and false-mask figures with Wilson intervals")
        ev.add_argument(
            "--redactor",
            choices=[*pii_eval.redactors().keys(), "all"],
            default="patterns+ner",
            help="patterns+ner is what redact() runs by default",
        )
        ev.add_argument("--json", default=None, help="also write the full report (misses included) to this file")
        ev.add_argument("--show-misses", action="store_true", help="print each missed value and damaged message")
        sub.add_parser("verify", help="check the set files against SHA256SUMS")
        dev = sub.add_parser(
            "dev", help="figures and misses on the tuning sets only (presidio_dev*.jsonl, pii_set dev split)"
        )
        dev.add_argument("--show-misses", action="store_true", help="print each missed value")

    def handle(self, *args: Any, **options: Any) -> None:
        changed = pii_eval.check_frozen()
        if changed:
            raise CommandError(f"PII sets changed since they were frozen: {', '.join(changed)} (see SHA256SUMS)")
        if options["action"] == "verify":
            self.stdout.write("PII sets match SHA256SUMS")
            return
        if options["action"] == "dev":
            self._dev(options["show_misses"])
            return
        candidates = pii_eval.redactors()
        names = list(candidates) if options["redactor"] == "all" else [options["redactor"]]
        reports = [report(name, pii_eval.memoized(candidates[name])) for name in names]
        for result in reports:
            self._print(result, options["show_misses"])
        if options["json"]:
            Path(options["json"]).write_text(json.dumps(reports, indent=2, ensure_ascii=False), encoding="utf-8")

    def _dev(self, show_misses: bool) -> None:
        """Score what tuning may look at, and nothing else: the frozen test sets are never read here."""
        write = self.stdout.write
        redactor = pii_eval.memoized(pii_eval.redactors()["patterns+ner"])
        pii_dev = [r for r in pii_eval.load_rows("pii_set.jsonl") if r["split"] == "dev"]
        sets = [(path.name, pii_eval.presidio_counts(pii_eval.load_rows(path.name), redactor)) for path in dev_files()]
        sets += [
            (
                f"{path.name}, every labelled street line",
                pii_eval.presidio_counts(pii_eval.load_rows(path.name), redactor, by_guide=False),
            )
            for path in dev_files()
        ]
        sets.append(("pii_set.jsonl dev split", pii_eval.recall_counts(pii_dev, redactor)))
        for name, counts in sets:
            write(f"{name}:")
            for kind, share in _recall(counts)["by_type"].items():
                write(_line(kind, share))
            if show_misses:
                for miss in counts["misses"]:
                    write(f"  MISS {miss['id']} {miss['type']} {miss['value']!r}: {miss['out']!r}")
        non_pii = pii_eval.false_mask_counts(pii_eval.load_rows("non_pii.jsonl"), redactor)
        write(_line("non_pii.jsonl tokens masked", _share(non_pii["masked"], non_pii["tokens"])))

    def _print(self, result: dict[str, Any], show_misses: bool) -> None:
        write = self.stdout.write
        write(f"== {result['redactor']}")
        write(f"PII set, held-out test split (target recall >= {TARGETS['pii_recall']}):")
        write(_line("recall", result["pii_set_test"]["overall"]))
        for kind, share in result["pii_set_test"]["by_type"].items():
            write(_line(f"  {kind}", share))
        write(_line("PII set, all (dev+test) recall", result["pii_set_all"]["overall"]))
        write(_line("PII set, other tokens masked", result["pii_set_all"]["other_tokens_masked"]))
        write(f"Ordinary messages (target masked <= {TARGETS['non_pii_masked_max']}):")
        write(_line("tokens masked", result["non_pii_masked"]))
        regions = result["regions"]
        write(f"  region lookup changed in {len(regions['changed'])} of {regions['messages_with_city']} with a city")
        for key, name in pii_eval.PRESIDIO_SETS.items():
            write(f"{name} (target recall >= {TARGETS['presidio_recall']}; street lines with a number, ZIPs kept):")
            for kind, share in result[key]["by_type"].items():
                write(_line(kind, share))
            write(f"{name}, every labelled street line (streets named without a number included):")
            write(_line("ADDRESS", result[f"{key}_labelled"]["by_type"]["ADDRESS"]))
            write(f"{name}, strict (every token of the labelled value):")
            for kind, share in result[f"{key}_strict"]["by_type"].items():
                write(_line(kind, share))
        if show_misses:
            for miss in result["misses"]:
                write(f"  MISS {miss['id']} {miss['type']}: {miss['out']}")
            for damaged in result["damaged"]:
                write(f"  MASKED {damaged['id']}: {damaged['out']}")
