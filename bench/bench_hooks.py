"""Benchmark the ingress hooks (crisis check + PII redaction patterns) over both dev sets; the name model: bench_pii.py.

Run from the repository root: `.venv/bin/python bench/bench_hooks.py [--rounds N]`. Writes
bench/results/hooks.json and exits 1 when the per-message p95 exceeds the 2 ms target.

The gate is thread CPU time: the hooks are pure computation, and on a shared machine wall time
mostly measures the other processes. Wall time is recorded beside it.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conversations.evaluation.hooks_metrics import (  # noqa: E402
    DEV_DIR,
    TARGETS,
    latency_metrics,
    load_jsonl,
    redact_patterns,
)
from conversations.hooks import detect_crisis  # noqa: E402 - needs the repo root on sys.path

RESULTS = ROOT / "bench" / "results" / "hooks.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=50, help="passes over the dev sets")
    args = parser.parse_args()
    texts = [r["text"] for r in load_jsonl(DEV_DIR / "crisis_dev.jsonl") + load_jsonl(DEV_DIR / "pii_dev.jsonl")]
    for text in texts:  # warm-up: first calls pay for regex caches and phonenumbers metadata
        detect_crisis(text)
        redact_patterns(text)
    together = latency_metrics(texts, rounds=args.rounds)
    per_hook = {
        "detect_crisis": latency_metrics(texts, rounds=max(1, args.rounds // 5), hooks=(detect_crisis,)),
        "redact": latency_metrics(texts, rounds=max(1, args.rounds // 5), hooks=(redact_patterns,)),
    }
    long_text = ("i got out last week and need a job, " * 560)[:20_000]
    began = time.thread_time()
    detect_crisis(long_text)
    redact_patterns(long_text)
    long_ms = round((time.thread_time() - began) * 1000, 2)
    target = TARGETS["p95_ms_max"]
    result = {
        "benchmark": "hooks",
        "messages": len(texts),
        "rounds": args.rounds,
        "per_message_ms": together,
        "per_hook_ms": per_hook,
        "chars_20000_ms": long_ms,
        "target_p95_ms": target,
        "pass": together["p95_ms"] <= target,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0 if result["pass"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
