"""Liveness and readiness probes: JSON with each check's status, 503 when any check fails."""

from __future__ import annotations

import time
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse

from corpus import embeddings


def healthz(request: HttpRequest) -> JsonResponse:
    """Report that the process is alive; touches nothing else so it never flaps with a dependency."""
    return JsonResponse({"status": "ok"})


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _check_pgvector() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    if row is None:
        raise RuntimeError("vector extension not installed")
    return f"ok ({row[0]})"


def _check_redis() -> str:
    client = redis.Redis.from_url(str(settings.REDIS_URL), socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


def _check_embeddings() -> str:
    embeddings.model_files_present()
    return "ok"


def _run(check: Callable[[], str]) -> dict[str, object]:
    started = time.perf_counter()
    try:
        status, ok = check(), True
    except Exception as exc:  # noqa: BLE001 - a probe reports any failure instead of raising
        status, ok = f"error: {type(exc).__name__}", False
    return {"ok": ok, "status": status, "ms": round((time.perf_counter() - started) * 1000, 1)}


def readyz(request: HttpRequest) -> JsonResponse:
    """Check the database, pgvector, Redis (when configured) and the embedding model files."""
    results: dict[str, dict[str, object]] = {"database": _run(_check_database)}
    if results["database"]["ok"]:
        results["pgvector"] = _run(_check_pgvector)
    else:
        # pgvector lives in the database: probing it again would only repeat the same failure.
        results["pgvector"] = {"ok": False, "status": "skipped: database unreachable", "ms": 0.0}
    results["embedding_model"] = _run(_check_embeddings)
    if settings.REDIS_URL:
        results["redis"] = _run(_check_redis)
    healthy = all(result["ok"] for result in results.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": results}, status=200 if healthy else 503
    )
