"""Benchmark PII redaction with and without the name model (Presidio + spaCy en_core_web_sm).

Run from the repository root: `.venv/bin/python bench/bench_pii.py [--rounds N]`. Writes
bench/results/pii.json: per-message p50/p95 in ms (thread CPU and wall) over the PII set and the
ordinary messages, the one-off model load time, and the process RSS before and after loading it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conversations.evaluation.pii_eval import load_rows  # noqa: E402
from conversations.hooks import pii_ner  # noqa: E402 - needs the repo root on sys.path
from conversations.hooks.pii import redact  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "pii.json"


def _rss_mb() -> float:
    """Current resident set size of this process, from /proc (ru_maxrss is a peak, not the present)."""
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    pick = lambda q: round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 3)  # noqa: E731
    return {"p50_ms": pick(0.5), "p95_ms": pick(0.95), "max_ms": round(ordered[-1], 3)}


def _time(texts: list[str], rounds: int, ner: bool) -> dict[str, object]:
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(rounds):
        for text in texts:
            began_cpu, began = time.thread_time(), time.perf_counter()
            redact(text, ner=ner)
            cpu.append((time.thread_time() - began_cpu) * 1000)
            wall.append((time.perf_counter() - began) * 1000)
    return {"cpu": _percentiles(cpu), "wall": _percentiles(wall), "samples": len(cpu)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="passes over the messages")
    args = parser.parse_args()
    texts = [r["text"] for r in load_rows("pii_set.jsonl") + load_rows("non_pii.jsonl")]
    for text in texts[:50]:
        redact(text, ner=False)
    rss_patterns = _rss_mb()
    patterns = _time(texts, args.rounds, ner=False)
    began = time.perf_counter()
    loaded = pii_ner.available()
    load_s = round(time.perf_counter() - began, 2)
    rss_model = _rss_mb()
    with_model = _time(texts, args.rounds, ner=True) if loaded else None
    long_text = ("i got out last week and talked to Karen Miller about a job, " * 340)[:20_000]
    began = time.thread_time()
    redact(long_text, ner=loaded)
    result = {
        "benchmark": "pii",
        "messages": len(texts),
        "rounds": args.rounds,
        "patterns_ms": patterns,
        "patterns_plus_ner_ms": with_model,
        "model": pii_ner.MODEL_PACKAGE,
        "model_loaded": loaded,
        "model_load_s": load_s,
        "rss_mb_patterns_only": rss_patterns,
        "rss_mb_with_model": rss_model,
        "chars_20000_cpu_ms": round((time.thread_time() - began) * 1000, 1),
        "torch_imported": "torch" in sys.modules,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
