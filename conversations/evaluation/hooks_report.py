"""Print the hooks' dev-set metrics as JSON: `python -m conversations.evaluation.hooks_report [--check]`.

With --check the exit status is 1 when any target is missed, so CI can run it as a gate.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conversations.evaluation.hooks_metrics import (
    DEV_DIR,
    STRUCTURED_PII,
    TARGETS,
    crisis_metrics,
    latency_metrics,
    load_jsonl,
    pii_metrics,
)


def build_report(dev_dir: Path = DEV_DIR, rounds: int = 5) -> dict[str, Any]:
    """Measure every target on the dev sets and say which ones pass."""
    crisis_rows = load_jsonl(dev_dir / "crisis_dev.jsonl")
    pii_rows = load_jsonl(dev_dir / "pii_dev.jsonl")
    crisis = crisis_metrics(crisis_rows)
    pii = pii_metrics(pii_rows)
    latency = latency_metrics([r["text"] for r in crisis_rows + pii_rows], rounds=rounds)
    structured = [pii["recall_by_type"].get(kind, 1.0) for kind in STRUCTURED_PII]
    checks = {
        "crisis_recall": crisis["recall"] >= TARGETS["crisis_recall"],
        "suicide_recall": crisis["suicide_recall"] >= TARGETS["suicide_recall"],
        "hard_negative_fpr": crisis["hard_negative_fpr"] <= TARGETS["hard_negative_fpr_max"],
        "structured_pii_recall": min(structured) >= TARGETS["structured_pii_recall"],
        "over_redaction": pii["over_redaction"] <= TARGETS["over_redaction_max"],
        "p95_ms": latency["p95_ms"] <= TARGETS["p95_ms_max"],
    }
    return {
        "crisis": crisis,
        "pii": pii,
        "latency": latency,
        "targets": TARGETS,
        "pass": checks,
        "all_pass": all(checks.values()),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dev-dir", type=Path, default=DEV_DIR)
    parser.add_argument("--rounds", type=int, default=5, help="timing passes over the dev sets")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    report = build_report(args.dev_dir, rounds=args.rounds)
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 1 if args.check and not report["all_pass"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
