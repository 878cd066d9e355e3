"""Web chat benchmark: concurrent WebSocket sessions on loopback, demo mode, send → final reply.

Each session does what the page does: create a conversation, accept the notice, open the
WebSocket, then for each message POST the turn with `wait: false`, wait for the WebSocket to say
the turn finished, and GET the finished turn (the source of truth). A lost event does not lose
the reply: after BENCH_WEBCHAT_EVENT_TIMEOUT seconds the session polls, and the run counts it.

Server, as deployed: uvicorn with 2 workers on 127.0.0.1, a private Redis (channel layer between
the processes, Celery broker) and a Celery worker (concurrency 2) that runs the turns, in demo mode
(no API key), against a dedicated database `bench_webchat` on the same PostgreSQL server, migrated
and loaded with the real corpus and directory, dropped afterwards (BENCH_KEEP_DB=1 keeps it).
Without `redis-server` it falls back to one uvicorn process with the in-memory layer and turns on
threads. Rate limits are raised out of the way in that server only: 100 sessions from one address
is the point of the test.

Targets: every reply delivered; p95 from send to final reply <= 500 ms.
Knobs (env): BENCH_WEBCHAT_SESSIONS (100), BENCH_WEBCHAT_MESSAGES (5), BENCH_WEBCHAT_THINK_SECONDS
(mean of an exponential pause before each message, 5.0: a quick reader and typist on a phone),
BENCH_WEBCHAT_RAMP_SECONDS (sessions open spread over this, 5.0). All sessions open first (create,
notice, socket: the 100 concurrent sockets), then converse; only send → final reply is timed, and
the setup time is reported beside it. With no think time, 100 sessions put 100 turns on the server
at once and the figure measures queueing on the CPU (each demo turn embeds a query), not the chat.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")

import django  # noqa: E402

django.setup()

import httpx  # noqa: E402
import psycopg  # noqa: E402
import websockets  # noqa: E402
from django.conf import settings  # noqa: E402

from bench.bench_sms import _free_port, _percentile, _stop, _wait_http, redis_start  # noqa: E402
from bench.benchdb import celery_worker_command, uvicorn_command  # noqa: E402
from conversations.web.services import NOTICE_VERSION  # noqa: E402

DB_NAME = "bench_webchat"
SESSIONS = int(os.environ.get("BENCH_WEBCHAT_SESSIONS", "100"))
MESSAGES = int(os.environ.get("BENCH_WEBCHAT_MESSAGES", "5"))
THINK = float(os.environ.get("BENCH_WEBCHAT_THINK_SECONDS", "5.0"))
RAMP = float(os.environ.get("BENCH_WEBCHAT_RAMP_SECONDS", "5.0"))
EVENT_TIMEOUT = float(os.environ.get("BENCH_WEBCHAT_EVENT_TIMEOUT", "30"))
TARGET_P95_MS = 500.0
QUESTIONS = [
    ("en", "how do I get a state ID in Houston"),
    ("en", "where can I find food in San Antonio"),
    ("en", "I need a job in Dallas"),
    ("en", "can I vote on parole in Texas"),
    ("es", "¿Dónde puedo encontrar vivienda en Austin?"),
    ("es", "necesito comida en El Paso"),
    ("en", "i want to kill myself"),
    ("en", "help with a birth certificate in Corpus Christi"),
]

SERVER = """
import sys, django, uvicorn
django.setup()
uvicorn.run("pathways_site.asgi:application", host="127.0.0.1", port=int(sys.argv[1]), lifespan="off", log_level="warning", ws_max_queue=64)
"""
NO_LIMITS = {
    "CHAT_RATE_LIMIT_SESSION": "1000000",
    "CHAT_RATE_LIMIT_IP": "1000000",
    "CHAT_RATE_LIMIT_CREATE_IP": "1000000",
    "CHAT_RATE_LIMIT_RESTART_IP": "1000000",
}


def _server_params() -> dict[str, str]:
    db = settings.DATABASES["default"]
    host = db.get("HOST") or (db.get("OPTIONS") or {}).get("host") or "127.0.0.1"
    return {
        "host": host,
        "port": str(db.get("PORT") or 5432),
        "user": db.get("USER") or "postgres",
        "password": db.get("PASSWORD") or "",
    }


def _database_url(name: str) -> str:
    params = _server_params()
    if params["host"].startswith("/"):
        return f"postgresql://{params['user']}@/{name}?host={quote(params['host'])}"
    return f"postgresql://{params['user']}:{quote(params['password'])}@{params['host']}:{params['port']}/{name}"


def _admin(sql: str) -> None:
    params = _server_params()
    with psycopg.connect(
        host=params["host"],
        port=params["port"],
        user=params["user"],
        password=params["password"] or None,
        dbname="postgres",
        autocommit=True,
    ) as conn:
        conn.execute(sql)


def _prepare_database(env: dict[str, str]) -> None:
    _admin(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
    _admin(f'CREATE DATABASE "{DB_NAME}"')
    for args in (["migrate", "--noinput", "-v", "0"], ["corpus", "load"], ["resources", "load"]):
        subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True)


class _Session:
    """One open chat: its conversation, bearer token, WebSocket and the turns the socket said finished."""

    def __init__(self, index: int, conversation_id: str, token: str, ws: Any) -> None:
        self.index, self.conversation_id, self.ws = index, conversation_id, ws
        self.headers = {"Authorization": f"Bearer {token}"}
        self.finished: dict[str, asyncio.Event] = {}
        self.listener = asyncio.create_task(self._listen())

    async def _listen(self) -> None:
        async for raw in self.ws:
            event = json.loads(raw)
            if event.get("type") == "progress" and event.get("status") != "running":
                self.finished.setdefault(event["turn_id"], asyncio.Event()).set()

    async def close(self) -> None:
        self.listener.cancel()
        await self.ws.close()


async def _open(index: int, base: str, client: httpx.AsyncClient) -> _Session:
    """What the page does before the first message: create the conversation, accept the notice, open the socket."""
    await asyncio.sleep(random.uniform(0, RAMP))
    created = (await client.post(f"{base}/api/v1/conversations/", json={"language": "en"})).json()
    conversation_id, token = created["conversation_id"], created["token"]
    await client.post(
        f"{base}/api/v1/conversations/{conversation_id}/consent",
        json={"version": NOTICE_VERSION},
        headers={"Authorization": f"Bearer {token}"},
    )
    ws_url = base.replace("http://", "ws://") + f"/ws/conversations/{conversation_id}/"
    ws = await websockets.connect(ws_url, origin=base, open_timeout=30)
    await ws.send(json.dumps({"type": "auth", "token": token}))  # the token never goes in the URL
    return _Session(index, conversation_id, token, ws)


async def _converse(session: _Session, base: str, client: httpx.AsyncClient, results: list[dict]) -> None:
    """Send MESSAGES messages, each after a think pause (the first too, so arrivals are steady from the start)."""
    for n in range(MESSAGES):
        await asyncio.sleep(random.expovariate(1 / THINK) if THINK > 0 else 0)
        language, text = QUESTIONS[(session.index + n) % len(QUESTIONS)]
        started = time.perf_counter()
        response = await client.post(
            f"{base}/api/v1/conversations/{session.conversation_id}/turns/",
            json={"text": text, "client_message_id": f"s{session.index}m{n}", "language": language, "wait": False},
            headers=session.headers,
        )
        turn = response.json()
        notified = True
        if turn.get("status") == "running":
            done = session.finished.setdefault(turn["turn_id"], asyncio.Event())
            try:
                await asyncio.wait_for(done.wait(), EVENT_TIMEOUT)
            except TimeoutError:
                notified = False
        while True:  # the finished turn always comes from the API
            turn = (await client.get(f"{base}/api/v1/turns/{turn['turn_id']}/", headers=session.headers)).json()
            if turn["status"] != "running":
                break
            await asyncio.sleep(0.25)
        elapsed = (time.perf_counter() - started) * 1000
        results.append(
            {
                "ms": elapsed,
                "status": turn["status"],
                "reply": bool(turn["reply"]),
                "notified": notified,
                "crisis": turn["crisis"] != "none",
            }
        )


async def _run(base: str) -> tuple[list[dict], float, float, list[str]]:
    """Open every session first (the 100 concurrent sockets), then converse; only send → reply is timed."""
    limits = httpx.Limits(max_connections=SESSIONS + 10, max_keepalive_connections=SESSIONS + 10)
    results: list[dict] = []
    async with httpx.AsyncClient(limits=limits, timeout=120) as client:
        started = time.perf_counter()
        opened = await asyncio.gather(*(_open(i, base, client) for i in range(SESSIONS)), return_exceptions=True)
        setup = time.perf_counter() - started
        sessions = [o for o in opened if isinstance(o, _Session)]
        errors = [f"open: {type(o).__name__}: {o}"[:200] for o in opened if isinstance(o, BaseException)]
        started = time.perf_counter()
        outcomes = await asyncio.gather(
            *(_converse(s, base, client, results) for s in sessions), return_exceptions=True
        )
        wall = time.perf_counter() - started
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
    errors += [f"{type(o).__name__}: {o}"[:200] for o in outcomes if isinstance(o, BaseException)]
    return results, setup, wall, errors


def _node_timings(env: dict[str, str]) -> dict[str, float]:
    """Median ms per node in the bench database: where the time of a turn goes."""
    params = _server_params()
    with psycopg.connect(
        host=params["host"],
        port=params["port"],
        user=params["user"],
        password=params["password"] or None,
        dbname=DB_NAME,
    ) as conn:
        rows = conn.execute(
            "SELECT node, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM conversations_noderun GROUP BY node"
        ).fetchall()
        total = conn.execute(
            "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY total_ms), percentile_cont(0.95) WITHIN GROUP (ORDER BY total_ms) FROM conversations_turn WHERE total_ms IS NOT NULL"
        ).fetchone()
    timings = {f"node_{node}_p50_ms": round(float(ms), 2) for node, ms in rows}
    timings["turn_total_p50_ms"] = round(float(total[0] or 0), 1)
    timings["turn_total_p95_ms"] = round(float(total[1] or 0), 1)
    return timings


def _start_servers(env: dict[str, str], port: int, log_path: Path) -> tuple[tuple[Any, Any, Any], str]:
    """Redis, uvicorn (2 workers) and a Celery worker when redis-server exists, else one uvicorn process."""
    bin_dir = Path(sys.executable).parent
    worker = None
    redis_proc = redis_start(env)
    if redis_proc is not None:
        server = subprocess.Popen(
            uvicorn_command(bin_dir, port, "--ws-max-queue", "64"),
            cwd=ROOT,
            env=env,
            stdout=log_path.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        worker = subprocess.Popen(
            celery_worker_command(bin_dir),
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        setup = "uvicorn 2 workers + Redis channel layer + Celery worker (concurrency 2) running the turns, demo mode, loopback"
    else:
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(port)],
            cwd=ROOT,
            env=env,
            stdout=log_path.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        setup = "uvicorn 1 process, InMemoryChannelLayer, turns on threads, demo mode (no API key), loopback"
    return (redis_proc, server, worker), setup


def _warm_up(base: str) -> None:
    """Load the embedding model and lazy imports in every process: a fresh connection per turn, so both
    uvicorn workers (they share one listening socket) serve some, and both Celery children run some."""
    for n in range(12):
        with httpx.Client(base_url=base, timeout=120) as client:
            created = client.post("/api/v1/conversations/", json={}).json()
            headers = {"Authorization": f"Bearer {created['token']}"}
            client.post(
                f"/api/v1/conversations/{created['conversation_id']}/consent",
                json={"version": NOTICE_VERSION},
                headers=headers,
            )
            turn = client.post(
                f"/api/v1/conversations/{created['conversation_id']}/turns/",
                json={"text": f"warm up {n}: food in Austin", "client_message_id": f"warm{n}", "wait": False},
                headers=headers,
            ).json()
            deadline = time.monotonic() + 120
            while turn.get("status") == "running" and time.monotonic() < deadline:
                time.sleep(0.05)
                turn = client.get(f"/api/v1/turns/{turn['turn_id']}/", headers=headers).json()


def main() -> int:
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)  # one log line per request would load the generator
    env = dict(
        os.environ,
        DATABASE_URL=_database_url(DB_NAME),
        DJANGO_SETTINGS_MODULE="pathways_site.settings",
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING",  # as served: no per-query debug cursor
    )
    env.pop("ANTHROPIC_API_KEY", None)  # demo mode
    env.pop("REDIS_URL", None)  # one process: in-memory channel layer, turns on threads
    print(f"preparing database {DB_NAME} …")
    _prepare_database(env)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = ROOT / "var" / "bench-webchat-server.log"
    log_path.parent.mkdir(exist_ok=True)
    env.update(NO_LIMITS)
    (redis_proc, server, worker), setup = _start_servers(env, port, log_path)
    try:
        try:
            _wait_http(f"{base}/healthz")
        except RuntimeError:
            print(f"server did not start, see {log_path}")
            return 1
        _warm_up(base)
        print(
            f"running {SESSIONS} sessions x {MESSAGES} messages (think ~{THINK}s, ramp {RAMP}s) on {base} ({setup}) …"
        )
        results, setup, wall, errors = asyncio.run(_run(base))
        timings = _node_timings(env)
    finally:
        for process, name in ((worker, "celery worker"), (server, "uvicorn"), (redis_proc, "redis")):
            _stop(process, name)
        if os.environ.get("BENCH_KEEP_DB") != "1":
            _admin(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')

    expected = SESSIONS * MESSAGES
    latencies = [r["ms"] for r in results]
    delivered = sum(1 for r in results if r["status"] in ("completed", "escalated") and r["reply"])
    summary = {
        "sessions": SESSIONS,
        "messages_per_session": MESSAGES,
        "think_seconds_mean": THINK,
        "expected_replies": expected,
        "delivered_replies": delivered,
        "notified_by_websocket": sum(1 for r in results if r["notified"]),
        "fell_back_to_polling": sum(1 for r in results if not r["notified"]),
        "session_errors": errors[:10],
        "p50_ms": round(_percentile(latencies, 50), 1) if latencies else None,
        "p95_ms": round(_percentile(latencies, 95), 1) if latencies else None,
        "p99_ms": round(_percentile(latencies, 99), 1) if latencies else None,
        "max_ms": round(max(latencies), 1) if latencies else None,
        "mean_ms": round(statistics.fmean(latencies), 1) if latencies else None,
        "crisis_p95_ms": round(_percentile([r["ms"] for r in results if r["crisis"]], 95), 1)
        if any(r["crisis"] for r in results)
        else None,
        "session_setup_seconds": round(setup, 1),
        "wall_seconds": round(wall, 1),
        "throughput_turns_per_s": round(len(results) / wall, 2)
        if wall
        else None,  # the slowest session's tail sets the wall
        "offered_turns_per_s": round(SESSIONS / THINK, 1)
        if THINK > 0
        else None,  # sessions / mean think: the steady arrival rate
        "target_p95_ms": TARGET_P95_MS,
        "server": setup,
        "cpu_count": os.cpu_count(),
        **timings,
    }
    summary["all_delivered"] = delivered == expected and not errors
    summary["p95_ok"] = summary["p95_ms"] is not None and summary["p95_ms"] <= TARGET_P95_MS
    summary["pass"] = summary["all_delivered"] and summary["p95_ok"]
    out = ROOT / "bench" / "results" / "webchat.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")
    for key, value in summary.items():
        print(f"  {key}: {value}")
    print(f"wrote {out}")
    return 0 if summary["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
