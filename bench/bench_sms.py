"""Benchmark the inbound SMS webhook: p95 latency and sustained signed webhooks/s, every message sent 3 times.

Starts, on 127.0.0.1 only, a uvicorn server with 2 workers against its own database `bench_sms`
(created on the same PostgreSQL server, dropped at the end). When `redis-server` is installed it
also starts a private Redis on a free port as the Celery broker and a Celery worker (concurrency
2), so the webhook path is the production one (record → enqueue → answer) and every message is
then decided for real. The worker starts after the load phases: on this 2-core machine it would
otherwise take its CPU (and PostgreSQL's) from the two ASGI workers being measured; in production
workers run on their own hosts. `--worker-during-load` starts it first, to see the co-located
figure. Everything it starts is stopped by pid at the end.

Phases: (1) latency — sequential signed webhooks, p50/p95/p99; (2) sustained — an open-loop load of
RATE signed webhooks/s for SECONDS seconds where every unique message is delivered 3 times at once
(as Twilio retries and duplicate deliveries would). The webhook only records; the worker decides
each message (keyword, rate limit, turn) and runs the turns, so the run then waits (bounded) until
every recorded message is decided and reports how long that took. Then the database is checked:
0 lost messages, 0 duplicate turns. Targets: p95 ≤ 50 ms, ≥ 150 webhooks/s. Writes bench/results/sms.json.

The generator offers 10 % more than the target (165 webhooks/s) so that the rate the server
sustains, not the rate offered, is what is compared with 150.

Usage: .venv/bin/python bench/bench_sms.py [--rate 165] [--seconds 60] [--no-worker] [--worker-during-load]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")
django.setup()

import aiohttp  # noqa: E402
import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402

from bench.benchdb import celery_worker_command, uvicorn_command, with_database  # noqa: E402
from conversations.sms.gateway import signature_compute  # noqa: E402

BENCH_DB = "bench_sms"
ACCOUNT_SID = "AC" + "be" * 16
AUTH_TOKEN = "bench-auth-token-" + "0" * 15
FROM_NUMBER = "+15125550100"
NUMBERS = 1000  # distinct senders: each sends ~3 messages a minute, under the per-number limit
LATENCY_CALLS = 300
TARGET_P95_MS = 50.0
TARGET_RATE = 150.0
COPIES = 3
# Bounded: each in-flight request holds one PostgreSQL connection (ASGI + CONN_MAX_AGE=0), and the
# server is shared (max_connections 100). If the server stalls the generator waits instead of piling on.
MAX_IN_FLIGHT = 24
QUESTIONS = [
    "I need a job in Dallas, who hires people with a record",
    "where can I get a Texas ID in Houston",
    "can I vote after my sentence in Texas",
    "I need a place to sleep tonight in Austin",
    "how do I get food stamps in San Antonio",
    "my parole officer wants a job letter, where can I get help",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _db_url(name: str) -> str:
    return with_database(settings.DATABASE_URL, name)


def redis_start(env: dict[str, str]) -> subprocess.Popen[bytes] | None:
    """A private, memory-only Redis on a free loopback port (REDIS_URL set in `env`); None without redis-server."""
    redis_bin = shutil.which("redis-server")
    if not redis_bin:
        return None
    port = _free_port()
    process = subprocess.Popen(
        [
            redis_bin,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--maxmemory",
            "256mb",
            "--protected-mode",
            "yes",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    env["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
    time.sleep(0.5)
    print(f"redis on 127.0.0.1:{port} (pid {process.pid})")
    return process


def _admin_conn() -> psycopg.Connection:
    return psycopg.connect(_db_url("postgres"), autocommit=True)


def _create_db(env: dict[str, str]) -> None:
    with _admin_conn() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)


def _drop_db() -> None:
    with _admin_conn() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


def _wait_http(url: str, timeout: float = 90.0) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - loopback URL we built
            if response.status == 200:
                return
        time.sleep(0.5)
    raise RuntimeError(f"server did not come up at {url}")


def _stop(process: subprocess.Popen[bytes] | None, name: str) -> None:
    if process is None or process.poll() is not None:
        return
    # The leader first: a warm shutdown lets Celery children finish the task in hand (a SIGTERM to the
    # whole group cut them mid-query and logged errors that were only the bench stopping them).
    # Each child was started in its own session, so its group is what is left to kill after that.
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)  # anything the leader left behind
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    print(f"stopped {name} (pid {process.pid})")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def _form(i: int) -> dict[str, str]:
    number = f"+1512{7000000 + (i % NUMBERS):07d}"
    return {
        "MessageSid": f"SM{i:032x}",
        "AccountSid": ACCOUNT_SID,
        "From": number,
        "To": FROM_NUMBER,
        "Body": f"{QUESTIONS[i % len(QUESTIONS)]} ({i})",
        "NumMedia": "0",
        "NumSegments": "1",
        "SmsStatus": "received",
    }


async def _post(
    session: aiohttp.ClientSession,
    url: str,
    form: dict[str, str],
    signature: str,
    *,
    latencies: list[float],
    errors: list[int],
) -> None:
    start = time.perf_counter()
    try:
        async with session.post(
            url,
            data=form,
            headers={"X-Twilio-Signature": signature, "I-Twilio-Idempotency-Token": form["MessageSid"] + "-t"},
        ) as response:
            await response.read()
            status = response.status
    except aiohttp.ClientError:
        status = 0
    latencies.append((time.perf_counter() - start) * 1000)
    if status != 200:
        errors.append(status)


async def _latency_phase(url: str, first: int) -> dict[str, float]:
    latencies: list[float] = []
    errors: list[int] = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1)) as session:
        for i in range(first, first + LATENCY_CALLS):
            form = _form(i)
            await _post(
                session,
                url,
                form,
                signature_compute(url=url, params=form, token=AUTH_TOKEN),
                latencies=latencies,
                errors=errors,
            )
    return {
        "calls": LATENCY_CALLS,
        "errors": len(errors),
        "p50_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(_percentile(latencies, 95), 2),
        "p99_ms": round(_percentile(latencies, 99), 2),
        "max_ms": round(max(latencies), 2),
    }


async def _sustained_phase(url: str, first: int, rate: float, seconds: float) -> dict[str, object]:
    """Open loop: one unique message every COPIES/rate s, each posted COPIES times concurrently."""
    unique_per_second = rate / COPIES
    total_unique = int(unique_per_second * seconds)
    latencies: list[float] = []
    errors: list[int] = []
    in_flight = asyncio.Semaphore(MAX_IN_FLIGHT)
    stalls = 0
    tasks: list[asyncio.Task[None]] = []
    connector = aiohttp.TCPConnector(limit=MAX_IN_FLIGHT, limit_per_host=MAX_IN_FLIGHT)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as session:

        async def deliver(form: dict[str, str], signature: str) -> None:
            try:
                await _post(session, url, form, signature, latencies=latencies, errors=errors)
            finally:
                in_flight.release()

        start = time.perf_counter()
        issued = 0
        for n in range(total_unique):
            if time.perf_counter() - start > seconds:
                break  # bounded: a server that cannot keep up gets fewer messages, not a longer run
            issued += 1
            due = start + n / unique_per_second
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            form = _form(first + n)
            signature = signature_compute(url=url, params=form, token=AUTH_TOKEN)
            for _ in range(COPIES):
                if in_flight.locked():
                    stalls += 1
                await in_flight.acquire()
                tasks.append(asyncio.create_task(deliver(form, signature)))
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - start
    return {
        "unique_messages": issued,
        "planned_unique_messages": total_unique,
        "requests": len(latencies),
        "errors": len(errors),
        "error_statuses": sorted(set(errors)),
        "seconds": round(elapsed, 2),
        "webhooks_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(_percentile(latencies, 95), 2),
        "p99_ms": round(_percentile(latencies, 99), 2),
        "generator_stalls": stalls,
    }


def _check_database(first: int, count: int) -> dict[str, int]:
    sids = [f"SM{i:032x}" for i in range(first, first + count)]
    with psycopg.connect(_db_url(BENCH_DB)) as conn:
        stored = conn.execute(
            "SELECT count(*) FROM conversations_inboundsms WHERE message_sid = ANY(%s)", [sids]
        ).fetchone()[0]
        rows = conn.execute("SELECT count(*) FROM conversations_inboundsms").fetchone()[0]
        turns_expected = conn.execute(
            "SELECT count(*) FROM conversations_inboundsms WHERE message_sid = ANY(%s) AND outcome = 'turn'", [sids]
        ).fetchone()[0]
        keys = ["sms:" + sid for sid in sids]
        turns = conn.execute(
            "SELECT count(*) FROM conversations_turn WHERE idempotency_key = ANY(%s)", [keys]
        ).fetchone()[0]
        duplicate_keys = conn.execute(
            "SELECT count(*) FROM (SELECT idempotency_key FROM conversations_turn GROUP BY idempotency_key HAVING count(*) > 1) d"
        ).fetchone()[0]
        held = conn.execute("SELECT count(*) FROM conversations_inboundsms WHERE outcome = 'held'").fetchone()[0]
        finished = conn.execute("SELECT count(*) FROM conversations_turn WHERE status <> 'running'").fetchone()[0]
    return {
        "sent_unique": count,
        "stored": stored,
        "lost": count - stored,
        "inbound_rows_total": rows,
        "turns": turns,
        "turns_expected": turns_expected,
        "duplicate_turns": (turns - turns_expected) + duplicate_keys,
        "held_by_rate_limit": held,
        "turns_finished_by_worker": finished,
    }


def _wait_decided(firsts_and_counts: list[tuple[int, int]], timeout: float) -> dict[str, float | int]:
    """Wait until the worker has decided every recorded message (no `pending` rows left)."""
    sids = [f"SM{i:032x}" for first, count in firsts_and_counts for i in range(first, first + count)]
    started = time.monotonic()
    pending = -1
    with psycopg.connect(_db_url(BENCH_DB), autocommit=True) as conn:
        while time.monotonic() - started < timeout:
            pending = conn.execute(
                "SELECT count(*) FROM conversations_inboundsms WHERE message_sid = ANY(%s) AND outcome = 'pending'",
                [sids],
            ).fetchone()[0]
            if pending == 0:
                break
            time.sleep(1)
    return {"still_pending": pending, "seconds_to_decide_all": round(time.monotonic() - started, 1)}


def _db_roundtrip_ms() -> float:
    """Median `SELECT 1` round trip: how busy the shared machine and PostgreSQL are right now."""
    with psycopg.connect(_db_url(BENCH_DB)) as conn:
        timings = []
        for _ in range(200):
            start = time.perf_counter()
            conn.execute("SELECT 1").fetchone()
            timings.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(timings), 3)


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(f"signal {signum}")  # run the finally blocks: stop what we started, drop the DB


def main() -> int:  # noqa: PLR0915 - one linear script: start, measure, check, clean up
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--rate", type=float, default=TARGET_RATE * 1.1, help="signed webhooks per second offered (all copies)"
    )
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--no-worker", action="store_true", help="do not start a Celery worker")
    parser.add_argument(
        "--worker-during-load", action="store_true", help="start the Celery worker before the load phases"
    )
    args = parser.parse_args()
    load_at_start = os.getloadavg()
    signal.signal(signal.SIGTERM, _terminate)

    port = _free_port()
    url = f"http://127.0.0.1:{port}/sms/twilio/inbound"
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": _db_url(BENCH_DB),
            "DB_CONN_MAX_AGE": "0",
            "DJANGO_ENV": "development",
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "WARNING",
            "TWILIO_ACCOUNT_SID": ACCOUNT_SID,
            "TWILIO_AUTH_TOKEN": AUTH_TOKEN,
            "TWILIO_FROM_NUMBER": FROM_NUMBER,
            "TWILIO_API_BASE_URL": "http://127.0.0.1:9",
            "SMS_REQUIRE_APPROVAL": "true",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
    )
    env.pop("PUBLIC_BASE_URL", None)
    env.pop("BEHIND_TLS_PROXY", None)
    redis_proc = server = worker = None
    result: dict[str, object] = {}
    bin_dir = Path(sys.executable).parent
    try:
        _create_db(env)
        redis_proc = redis_start(env)
        has_broker = redis_proc is not None
        if redis_proc is None:
            env["CELERY_TASK_ALWAYS_EAGER"] = "true"
            print("redis-server not found: eager Celery (turns run on the server's background pool)")
        server = subprocess.Popen(
            uvicorn_command(bin_dir, port),
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        _wait_http(f"http://127.0.0.1:{port}/healthz")
        print(f"uvicorn on 127.0.0.1:{port}, 2 workers (pid {server.pid})")

        def start_worker() -> subprocess.Popen[bytes]:
            process = subprocess.Popen(
                celery_worker_command(bin_dir),
                cwd=ROOT,
                env=env,
                start_new_session=True,
                stdout=subprocess.DEVNULL,
            )
            print(f"celery worker, concurrency 2 (pid {process.pid})")
            return process

        if has_broker and not args.no_worker and args.worker_during_load:
            worker = start_worker()
        roundtrip_before = _db_roundtrip_ms()
        # Warm both workers (imports, connections) outside the measurement.
        asyncio.run(_latency_phase_warm(url))
        latency = asyncio.run(_latency_phase(url, first=1_000_000))
        print(
            f"latency: p50 {latency['p50_ms']} ms, p95 {latency['p95_ms']} ms, p99 {latency['p99_ms']} ms, errors {latency['errors']}"
        )
        sustained = asyncio.run(_sustained_phase(url, first=2_000_000, rate=args.rate, seconds=args.seconds))
        print(
            f"sustained: {sustained['webhooks_per_s']} webhooks/s for {sustained['seconds']} s, p95 {sustained['p95_ms']} ms, errors {sustained['errors']}"
        )
        if has_broker and not args.no_worker and worker is None:
            worker = start_worker()
        drain = (
            _wait_decided([(1_000_000, LATENCY_CALLS), (2_000_000, int(sustained["unique_messages"]))], timeout=600)
            if worker is not None or env.get("CELERY_TASK_ALWAYS_EAGER") == "true"
            else {"still_pending": None, "seconds_to_decide_all": None}
        )
        print(
            f"worker decided every message {drain['seconds_to_decide_all']} s after the load (still pending: {drain['still_pending']})"
        )
        checks = _check_database(2_000_000, int(sustained["unique_messages"]))
        latency_checks = _check_database(1_000_000, LATENCY_CALLS)
        print(
            f"database: lost {checks['lost']}, duplicate turns {checks['duplicate_turns']}, turns {checks['turns']}/{checks['turns_expected']}"
        )
        result = {
            "benchmark": "sms_inbound_webhook",
            "setup": {
                "server": "uvicorn, 2 workers, 127.0.0.1",
                "broker": "redis (private instance)" if has_broker else "none (eager, background pool)",
                "celery_worker": ("started before the load" if args.worker_during_load else "started after the load")
                if worker
                else None,
                "offered_webhooks_per_s": args.rate,
                "copies_per_message": COPIES,
                "distinct_numbers": NUMBERS,
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "warm_up": "one message per number first (imports, pools); the webhook itself never touches contacts",
                "load_average_at_start": load_at_start,
                "load_average_at_end": os.getloadavg(),
                "db_select1_roundtrip_ms_median": roundtrip_before,
            },
            "latency": latency,
            "sustained": sustained,
            "after_load": drain,
            "integrity": checks,
            "latency_phase_integrity": {k: latency_checks[k] for k in ("lost", "duplicate_turns")},
            "targets": {"p95_ms": TARGET_P95_MS, "webhooks_per_s": TARGET_RATE, "lost": 0, "duplicate_turns": 0},
            "pass": {
                "p95": latency["p95_ms"] <= TARGET_P95_MS,
                "rate": float(sustained["webhooks_per_s"]) >= TARGET_RATE and args.seconds >= 60,
                "no_errors": sustained["errors"] == 0,
                "lost": checks["lost"] == 0 and latency_checks["lost"] == 0 and drain["still_pending"] == 0,
                "duplicates": checks["duplicate_turns"] == 0 and latency_checks["duplicate_turns"] == 0,
            },
        }
    finally:
        _stop(worker, "celery worker")
        _stop(server, "uvicorn")
        _stop(redis_proc, "redis")
        with contextlib.suppress(Exception):
            _drop_db()
    out = ROOT / "bench" / "results" / "sms.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return 0 if result and all(result["pass"].values()) else 1


async def _latency_phase_warm(url: str) -> None:
    """One first message per number (creates its contact and conversation), as for a running service."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=8)) as session:
        latencies: list[float] = []
        errors: list[int] = []
        await asyncio.gather(
            *[
                _post(
                    session,
                    url,
                    form,
                    signature_compute(url=url, params=form, token=AUTH_TOKEN),
                    latencies=latencies,
                    errors=errors,
                )
                for form in (_form(i) for i in range(NUMBERS))
            ]
        )


if __name__ == "__main__":
    sys.exit(main())
