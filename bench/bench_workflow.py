"""Benchmark a demo-mode turn, server side: p50/p95 over a mixed question set, with a per-node breakdown.

Runs in its own database, `bench_workflow` (created on the same server before Django starts, so the
process never connects to the dev database; migrated, loaded with the corpus and directory, dropped
at exit: bench/benchdb.py). The embedding model is warmed first; each turn is timed
from turn_start to the finished turn. Targets: p50 ≤ 50 ms, p95 ≤ 120 ms. Writes bench/results/workflow.json.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")
os.environ.pop("ANTHROPIC_API_KEY", None)  # demo mode: the deterministic path is what is measured
os.environ["DEBUG"] = "false"  # as served: DEBUG wraps every query in a recording cursor
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")

from bench.benchdb import own_database, results_dir  # noqa: E402

BENCH_DB = own_database("bench_workflow")
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

TURNS = int(os.environ.get("BENCH_WORKFLOW_TURNS", "200"))
TARGET_P50_MS = 50.0
TARGET_P95_MS = 120.0
QUESTIONS = [
    ("I just got out of TDCJ and need an ID in Houston", "en"),
    ("can i vote im still on parole", "en"),
    ("where can i sleep tonight in austin", "en"),
    ("how do i get food stamps in el paso", "en"),
    ("need a job in dallas, i have a felony", "en"),
    ("how do i get my record expunged", "en"),
    ("Necesito una identificación en San Antonio", "es"),
    ("donde puedo conseguir comida en McAllen", "es"),
    ("i been saving pills whats the point anymore", "en"),
    ("can I expunge my record in California", "en"),
]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _prepare_database() -> None:
    call_command("migrate", verbosity=0)
    call_command("corpus", "load", verbosity=0)
    call_command("resources", "load", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # planner statistics, as autovacuum would have gathered on a running server


def main() -> int:
    from conversations import services
    from conversations.models import NodeRun
    from corpus.embeddings import get_model

    _prepare_database()
    get_model()
    conversation, _ = services.conversation_create(channel="web")
    for text, language in QUESTIONS:  # warm-up: caches, prepared plans, the model's first batches
        turn, _ = services.turn_start(
            conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex, language=language
        )
        services.turn_run(turn_id=turn.pk)
    totals: list[float] = []
    turn_ids = []
    for index in range(TURNS):
        text, language = QUESTIONS[index % len(QUESTIONS)]
        conversation, _ = services.conversation_create(channel="web")
        started = time.perf_counter()
        turn, _ = services.turn_start(
            conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex, language=language
        )
        services.turn_run(turn_id=turn.pk)
        totals.append((time.perf_counter() - started) * 1000)
        turn_ids.append(turn.pk)
    per_node: dict[str, list[float]] = defaultdict(list)
    for node, ms in NodeRun.objects.filter(turn_id__in=turn_ids).values_list("node", "ms"):
        per_node[node].append(ms)
    result = {
        "benchmark": "workflow_demo_turn",
        "turns": TURNS,
        "database": BENCH_DB,
        "p50_ms": round(statistics.median(totals), 2),
        "p95_ms": round(_percentile(totals, 0.95), 2),
        "max_ms": round(max(totals), 2),
        "targets": {"p50_ms": TARGET_P50_MS, "p95_ms": TARGET_P95_MS},
        "per_node_ms": {
            node: {
                "p50": round(statistics.median(values), 2),
                "p95": round(_percentile(values, 0.95), 2),
                "runs": len(values),
            }
            for node, values in sorted(per_node.items())
        },
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_average": os.getloadavg()},
    }
    result["met"] = result["p50_ms"] <= TARGET_P50_MS and result["p95_ms"] <= TARGET_P95_MS
    out = results_dir() / "workflow.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0 if result["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
