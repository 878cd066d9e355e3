"""Benchmark the trained message model at run time: what it adds to a turn, and what it costs in memory.

Run from the repository root: `.venv/bin/python bench/bench_message_model.py`. Writes
bench/results/message_model.json and exits 1 when the p95 added per message exceeds 5 ms or loading
the artifact grows the process by more than 100 MB. The query embedding is computed before the
clock starts: a turn computes it anyway (for retrieval) and the model reuses it. Timing is thread
CPU time (pure computation; wall time on a shared machine measures the neighbours).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

RESULTS = ROOT / "bench" / "results" / "message_model.json"
TARGET_P95_MS = 5.0
TARGET_RSS_MB = 100.0


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    from conversations.safety import data

    texts = [m.text for m in data.read_messages(data.DEV)][:400]
    from corpus.embeddings import embed_one

    vectors = [embed_one(text) for text in texts]
    before = _rss_mb()
    from conversations.hooks import crisis_check, message_model

    model = message_model.get_model()
    if model is None:
        print("no artifact: run manage.py safety train")
        return 1
    grown = _rss_mb() - before
    for text, vector in zip(texts[:50], vectors[:50], strict=True):  # warm-up
        crisis_check(text, message_model.assess(text, vector))
    samples = []
    for _round in range(3):
        for text, vector in zip(texts, vectors, strict=True):
            began = time.thread_time()
            crisis_check(text, message_model.assess(text, vector))
            samples.append((time.thread_time() - began) * 1000)
    samples.sort()
    p95 = samples[int(0.95 * (len(samples) - 1))]
    result = {
        "benchmark": "message_model",
        "model_version": model.version,
        "messages": len(texts),
        "calls": len(samples),
        "added_ms": {"p50": round(statistics.median(samples), 3), "p95": round(p95, 3), "max": round(samples[-1], 3)},
        "rss_growth_mb_on_load": round(grown, 1),
        "target_p95_ms": TARGET_P95_MS,
        "target_rss_mb": TARGET_RSS_MB,
        "pass": p95 <= TARGET_P95_MS and grown <= TARGET_RSS_MB,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0 if result["pass"] else 1


if __name__ == "__main__":
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")
    django.setup()
    sys.exit(main())
