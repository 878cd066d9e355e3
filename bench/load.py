"""Load/soak run (`make load`): mixed traffic against `make run`-style servers, then the invariants.

Everything is on 127.0.0.1 and bounded: traffic for LOAD_SECONDS (default 300), then a drain of at
most LOAD_DRAIN_SECONDS (default 120) for queued turns and sends; every generator also has a count
cap. Started here, stopped here (also on Ctrl-C / SIGTERM), by pid:

- a dedicated database `load_pathways` on the same PostgreSQL server (migrated, `corpus load`,
  `resources load`; dropped at the end; LOAD_KEEP_DB=1 keeps it);
- a fake Twilio REST API (tests/conversations/sms/fake_twilio.py) that records every send;
- uvicorn with 2 workers; one Celery worker when the machine's Redis answers at 127.0.0.1:6379
  (DB 6 only, flushed before and after), else no worker and eager Celery (background pool).

Traffic: web sessions over the HTTP API (`wait: true`) and over WebSocket (`wait: false`, wait for
the progress event, GET the turn), signed SMS webhooks each delivered 1-3 times (duplicates) with
some STOPs (those numbers keep texting), and admin approvals of pending SMS replies through
`conversations.sms.outbox.outbound_approve` from this process.

Invariants (exit 1 if one fails): every accepted SMS has exactly one turn and one reply row (or an
escalated turn = recorded handoff); every web turn finished; no stored SMS lost; no text other than
the opt-out confirmation went to a number after its STOP was recorded (send claimed after it); the
audit chain verifies. Writes bench/results/load.json.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import platform
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

LOAD_DB = "load_pathways"
SECONDS = float(os.environ.get("LOAD_SECONDS", "300"))
DRAIN_SECONDS = float(os.environ.get("LOAD_DRAIN_SECONDS", "120"))
SMS_RATE = float(os.environ.get("LOAD_SMS_PER_SECOND", "2"))  # unique messages/s (each sent 1-3 times)
SESSION_EVERY = float(os.environ.get("LOAD_SESSION_EVERY_SECONDS", "2"))  # a new web session every N s
MAX_ACTIVE_SESSIONS = 12
MESSAGES_PER_SESSION = 3
THINK_SECONDS = 3.0
EVENT_TIMEOUT = 10.0  # then the session polls the turn (and the run counts the missed event)
APPROVE_EVERY = 1.0
STOP_SHARE = 0.04
NUMBERS = 200
MAX_IN_FLIGHT_SMS = 16
REDIS_HOST, REDIS_PORT, REDIS_DB = "127.0.0.1", 6379, 6
ACCOUNT_SID = "AC" + "1d" * 16
AUTH_TOKEN = "load-auth-token-" + "0" * 16
FROM_NUMBER = "+15125550199"
QUESTIONS = [
    ("en", "how do I get a state ID in Houston"),
    ("en", "where can I find food in San Antonio"),
    ("en", "I need a job in Dallas, who hires people with a record"),
    ("en", "can I vote on parole in Texas"),
    ("es", "¿Dónde puedo encontrar vivienda en Austin?"),
    ("en", "i want to kill myself"),
    ("en", "help with a birth certificate in Corpus Christi"),
]


def _redis_db6() -> Any:
    """The machine's Redis, DB 6, if it answers (flushed: only DB 6 is ever touched)."""
    import redis

    client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=REDIS_DB, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError:
        return None
    client.flushdb()
    return client


# --- before Django: the fake Twilio's port and the load database go into this process's settings too
from bench.benchdb import celery_worker_command, server_url, uvicorn_command, with_database  # noqa: E402
from tests.conversations.sms.fake_twilio import FakeTwilio  # noqa: E402


@dataclass
class RecordingTwilio(FakeTwilio):
    """The fake Twilio, plus the wall-clock time each accepted send arrived."""

    sent_at: dict[str, float] = field(default_factory=dict)

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict[str, Any]]:
        arrived = time.time()
        status, body = super().handle(path, headers, raw)
        if status == 201:
            with self.lock:
                self.sent_at[body["sid"]] = arrived
        return status, body


FAKE = RecordingTwilio(ACCOUNT_SID, AUTH_TOKEN).start()
REDIS = _redis_db6()
ENV_OVERRIDES = {
    "DATABASE_URL": with_database(server_url(), LOAD_DB),
    "DB_CONN_MAX_AGE": "0",
    "DJANGO_ENV": "development",
    "DEBUG": "false",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "LOG_LEVEL": "WARNING",
    "DJANGO_SETTINGS_MODULE": "pathways_site.settings",
    "TWILIO_ACCOUNT_SID": ACCOUNT_SID,
    "TWILIO_AUTH_TOKEN": AUTH_TOKEN,
    "TWILIO_FROM_NUMBER": FROM_NUMBER,
    "TWILIO_API_BASE_URL": FAKE.url,
    "SMS_REQUIRE_APPROVAL": "true",
    # One address runs every web session on purpose: the chat rate limits would only measure themselves.
    "CHAT_RATE_LIMIT_SESSION": "1000000",
    "CHAT_RATE_LIMIT_IP": "1000000",
    "CHAT_RATE_LIMIT_CREATE_IP": "1000000",
    "CHAT_RATE_LIMIT_RESTART_IP": "1000000",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
if REDIS is not None:
    ENV_OVERRIDES["REDIS_URL"] = f"redis://{REDIS_HOST}:{REDIS_PORT}/{REDIS_DB}"
    ENV_OVERRIDES["CELERY_TASK_ALWAYS_EAGER"] = "false"
else:
    ENV_OVERRIDES["CELERY_TASK_ALWAYS_EAGER"] = "true"
os.environ.update(ENV_OVERRIDES)
for _name in ("REDIS_URL",) if REDIS is None else ():
    os.environ.pop(_name, None)
for _name in ("ANTHROPIC_API_KEY", "PUBLIC_BASE_URL", "BEHIND_TLS_PROXY"):  # demo mode, no status callbacks
    os.environ.pop(_name, None)

# Shared helpers of the SMS benchmark (importing it sets Django up with the environment above).
import httpx  # noqa: E402
import websockets  # noqa: E402
from bench_sms import _admin_conn, _free_port, _percentile, _stop, _wait_http  # noqa: E402
from django.db import connections  # noqa: E402

from conversations.sms.gateway import signature_compute  # noqa: E402
from conversations.web.services import NOTICE_VERSION  # noqa: E402


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    errors: dict[str, collections.Counter] = field(default_factory=lambda: collections.defaultdict(collections.Counter))
    web_turns: list[dict[str, Any]] = field(default_factory=list)
    sms_unique: list[str] = field(default_factory=list)
    sms_deliveries: int = 0
    stops: int = 0
    sessions_started: int = 0
    session_failures: list[str] = field(default_factory=list)
    approvals: int = 0
    approval_conflicts: int = 0

    def record(self, endpoint: str, started: float, status: int | str, ok: bool) -> None:
        self.latencies[endpoint].append((time.perf_counter() - started) * 1000)
        if not ok:
            self.errors[endpoint][str(status)] += 1


# --- web: HTTP-only sessions (wait: true) and WebSocket sessions (wait: false + progress event)
async def _timed(
    stats: Stats, endpoint: str, call: Any, ok_statuses: tuple[int, ...] = (200, 201, 202)
) -> httpx.Response | None:
    started = time.perf_counter()
    try:
        response = await call
    except httpx.HTTPError as exc:
        stats.record(endpoint, started, type(exc).__name__, False)
        return None
    stats.record(endpoint, started, response.status_code, response.status_code in ok_statuses)
    return response if response.status_code in ok_statuses else None


async def _finished_turn(
    stats: Stats, client: httpx.AsyncClient, url: str, headers: dict[str, str], deadline: float
) -> dict[str, Any] | None:
    while time.monotonic() < deadline:
        response = await _timed(stats, "GET /api/v1/turns/{id}/", client.get(url, headers=headers), (200,))
        if response is not None and response.json()["status"] != "running":
            return response.json()
        await asyncio.sleep(0.5)
    return None


async def _web_session(  # noqa: PLR0912, PLR0915 - one scripted visitor
    index: int, base: str, client: httpx.AsyncClient, stats: Stats, deadlines: tuple[float, float]
) -> None:
    """A visitor: create, consent, (WebSocket), MESSAGES_PER_SESSION turns; no new message after the traffic window."""
    stop_at, hard_deadline = deadlines
    use_ws = index % 2 == 0
    created = await _timed(
        stats, "POST /api/v1/conversations/", client.post(f"{base}/api/v1/conversations/", json={"language": "en"})
    )
    if created is None:
        return
    conversation_id, token = created.json()["conversation_id"], created.json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    await _timed(
        stats,
        "POST consent",
        client.post(
            f"{base}/api/v1/conversations/{conversation_id}/consent", json={"version": NOTICE_VERSION}, headers=headers
        ),
    )
    finished: dict[str, asyncio.Event] = {}
    ws = listener = None
    try:
        if use_ws:
            started = time.perf_counter()
            try:
                ws = await websockets.connect(
                    base.replace("http://", "ws://") + f"/ws/conversations/{conversation_id}/",
                    origin=base,
                    open_timeout=30,
                )
                await ws.send(json.dumps({"type": "auth", "token": token}))  # the token never goes in the URL
                stats.record("WS connect", started, 101, True)
            except (OSError, websockets.WebSocketException, TimeoutError) as exc:
                stats.record("WS connect", started, type(exc).__name__, False)
                return

            async def listen() -> None:
                with contextlib.suppress(websockets.WebSocketException):
                    async for raw in ws:
                        event = json.loads(raw)
                        if event.get("type") == "progress" and event.get("status") != "running":
                            finished.setdefault(event["turn_id"], asyncio.Event()).set()

            listener = asyncio.create_task(listen())
        for n in range(MESSAGES_PER_SESSION):
            language, text = QUESTIONS[(index + n) % len(QUESTIONS)]
            payload = {"text": text, "client_message_id": f"load{index}m{n}", "language": language, "wait": not use_ws}
            endpoint = "POST turns (wait:false)" if use_ws else "POST turns (wait:true)"
            started = time.perf_counter()
            response = await _timed(
                stats,
                endpoint,
                client.post(f"{base}/api/v1/conversations/{conversation_id}/turns/", json=payload, headers=headers),
            )
            if response is None:
                stats.web_turns.append({"turn_id": None, "finished": False, "accepted": False})
                continue
            turn = response.json()
            notified = None
            if use_ws and turn.get("status") == "running":
                done = finished.setdefault(turn["turn_id"], asyncio.Event())
                try:
                    await asyncio.wait_for(done.wait(), EVENT_TIMEOUT)
                    notified = True
                except TimeoutError:
                    notified = False
            if turn.get("status") == "running" or use_ws:
                turn = (
                    await _finished_turn(
                        stats, client, f"{base}/api/v1/turns/{turn['turn_id']}/", headers, hard_deadline
                    )
                    or turn
                )
            ms = (time.perf_counter() - started) * 1000
            if use_ws:
                stats.latencies["WS send → final reply"].append(ms)
            done_ok = turn.get("status") in ("completed", "escalated") and (
                bool(turn.get("reply")) or turn.get("status") == "escalated"
            )
            stats.web_turns.append(
                {
                    "turn_id": turn.get("turn_id"),
                    "finished": done_ok,
                    "accepted": True,
                    "notified": notified,
                    "question": (index + n) % len(QUESTIONS),
                }
            )
            if time.monotonic() > stop_at:
                return
            await asyncio.sleep(random.expovariate(1 / THINK_SECONDS))
    finally:
        if listener is not None:
            listener.cancel()
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()


async def _web_traffic(base: str, stats: Stats, stop_at: float, hard_deadline: float) -> None:
    active: set[asyncio.Task[None]] = set()
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=32)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        index = 0
        while time.monotonic() < stop_at and index < int(SECONDS / SESSION_EVERY) + 1:
            if len(active) < MAX_ACTIVE_SESSIONS:
                task = asyncio.create_task(_web_session(index, base, client, stats, (stop_at, hard_deadline)))
                active.add(task)
                task.add_done_callback(active.discard)
                stats.sessions_started += 1
                index += 1
            await asyncio.sleep(SESSION_EVERY)
        outcomes = await asyncio.gather(*active, return_exceptions=True)
    stats.session_failures += [f"{type(o).__name__}: {o}"[:200] for o in outcomes if isinstance(o, BaseException)]


# --- SMS: signed webhooks, 1-3 deliveries each, some STOPs
async def _sms_traffic(base: str, stats: Stats, stop_at: float) -> None:
    url = f"{base}/sms/twilio/inbound"
    in_flight = asyncio.Semaphore(MAX_IN_FLIGHT_SMS)
    tasks: list[asyncio.Task[None]] = []
    rng = random.Random(12)
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=MAX_IN_FLIGHT_SMS), timeout=30) as client:

        async def deliver(form: dict[str, str], signature: str) -> None:
            try:
                headers = {"X-Twilio-Signature": signature, "I-Twilio-Idempotency-Token": form["MessageSid"] + "-t"}
                await _timed(stats, "POST /sms/twilio/inbound", client.post(url, data=form, headers=headers), (200,))
            finally:
                in_flight.release()

        start = time.monotonic()
        n = 0
        while time.monotonic() < stop_at and n < int(SMS_RATE * SECONDS) + 1:
            delay = start + n / SMS_RATE - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            number = f"+1512{8000000 + rng.randrange(NUMBERS):07d}"
            stop = rng.random() < STOP_SHARE
            body = "STOP" if stop else f"{QUESTIONS[n % len(QUESTIONS)][1]} ({n})"
            sid = f"SM{0xF00D0000 + n:032x}"
            form = {
                "MessageSid": sid,
                "AccountSid": ACCOUNT_SID,
                "From": number,
                "To": FROM_NUMBER,
                "Body": body,
                "NumMedia": "0",
                "NumSegments": "1",
                "SmsStatus": "received",
            }
            signature = signature_compute(url=url, params=form, token=AUTH_TOKEN)
            stats.sms_unique.append(sid)
            stats.stops += stop
            for _ in range(rng.choice((1, 2, 3))):  # Twilio retries and duplicate deliveries
                await in_flight.acquire()
                stats.sms_deliveries += 1
                tasks.append(asyncio.create_task(deliver(form, signature)))
            n += 1
        await asyncio.gather(*tasks)


# --- admin approvals, in this process against load_pathways (one thread: one DB connection)
def _approve_pending(stats: Stats, limit: int = 25) -> int:
    from conversations.models import OutboundMessage
    from conversations.sms.errors import OutboundNotPending
    from conversations.sms.outbox import outbound_approve

    ids = list(
        OutboundMessage.objects.filter(status=OutboundMessage.Status.PENDING_APPROVAL)
        .order_by("created_at")
        .values_list("pk", flat=True)[:limit]
    )
    for message_id in ids:
        started = time.perf_counter()
        try:
            outbound_approve(message_id=message_id, actor="load-admin")
            stats.record("approve (outbound_approve)", started, "ok", True)
            stats.approvals += 1
        except OutboundNotPending:  # withdrawn by a STOP meanwhile: not an error
            stats.approval_conflicts += 1
        except Exception as exc:  # noqa: BLE001 - counted and reported, the run goes on
            stats.record("approve (outbound_approve)", started, type(exc).__name__, False)
    return len(ids)


async def _approvals(stats: Stats, orm: ThreadPoolExecutor, stop_at: float) -> None:
    loop = asyncio.get_running_loop()
    while time.monotonic() < stop_at:
        await loop.run_in_executor(orm, _approve_pending, stats)
        await asyncio.sleep(APPROVE_EVERY)


async def _traffic(base: str, stats: Stats, orm: ThreadPoolExecutor) -> float:
    started = time.monotonic()
    stop_at = started + SECONDS
    hard_deadline = stop_at + DRAIN_SECONDS
    await asyncio.gather(
        _web_traffic(base, stats, stop_at, hard_deadline),
        _sms_traffic(base, stats, stop_at),
        _approvals(stats, orm, stop_at),
    )
    return time.monotonic() - started


def _backlog() -> dict[str, int]:
    from conversations.models import OutboundMessage, Turn

    status = OutboundMessage.Status
    return {
        "running_turns": Turn.objects.filter(status=Turn.Status.RUNNING).count(),
        "pending_approval": OutboundMessage.objects.filter(status=status.PENDING_APPROVAL).count(),
        "unsent_approved": OutboundMessage.objects.filter(status__in=[status.APPROVED, status.SENDING]).count(),
    }


def _drain(stats: Stats, orm: ThreadPoolExecutor) -> tuple[float, dict[str, int]]:
    """Approve what is left and wait (bounded) until no turn runs and no approved SMS waits to be sent."""
    started = time.monotonic()
    backlog = orm.submit(_backlog).result()
    while time.monotonic() - started < DRAIN_SECONDS:
        orm.submit(_approve_pending, stats, 200).result()
        backlog = orm.submit(_backlog).result()
        if not any(backlog.values()):
            break
        time.sleep(1.0)
    return time.monotonic() - started, backlog


# --- invariants, read from load_pathways and the fake Twilio
def _invariants(stats: Stats) -> dict[str, dict[str, Any]]:
    from django.db.models import Count

    from audit.selectors import audit_chain_verify
    from conversations import crypto
    from conversations.models import Contact, InboundSms, OutboundMessage, Turn

    stored = InboundSms.objects.filter(message_sid__in=stats.sms_unique)
    accepted = list(stored.filter(outcome=InboundSms.Outcome.TURN).values_list("message_sid", "turn_id"))
    turns: dict[str, tuple[int, str]] = {}
    for key, status in Turn.objects.filter(idempotency_key__in=[f"sms:{sid}" for sid, _ in accepted]).values_list(
        "idempotency_key", "status"
    ):
        count, _ = turns.get(key[4:], (0, ""))
        turns[key[4:]] = (count + 1, status)
    replies = dict(
        OutboundMessage.objects.filter(
            turn_id__in=[t for _, t in accepted if t],
            kind__in=[OutboundMessage.Kind.REPLY, OutboundMessage.Kind.CRISIS],
        )
        .values("turn_id")
        .annotate(n=Count("id"))
        .values_list("turn_id", "n")
    )
    turn_of = dict(accepted)
    no_turn = [sid for sid, _ in accepted if sid not in turns]
    many_turns = [sid for sid, (count, _) in turns.items() if count != 1]
    unfinished = [sid for sid, (_, status) in turns.items() if status == Turn.Status.RUNNING]
    reply_wrong = [
        sid
        for sid, (_, status) in turns.items()
        if replies.get(turn_of[sid], 0) != 1
        and not (status == Turn.Status.ESCALATED and replies.get(turn_of[sid], 0) == 0)
    ]
    stored_count = stored.count()
    sms = {
        "ok": stored_count == len(stats.sms_unique) and not (no_turn or many_turns or unfinished or reply_wrong),
        "unique_sent": len(stats.sms_unique),
        "stored": stored_count,
        "lost": len(stats.sms_unique) - stored_count,
        "accepted_as_turn": len(accepted),
        "outcomes": dict(stored.values("outcome").annotate(n=Count("id")).values_list("outcome", "n")),
        "without_turn": len(no_turn),
        "with_several_turns": len(many_turns),
        "turn_unfinished": len(unfinished),
        "reply_count_not_one": len(reply_wrong),
        "escalated_turns": sum(1 for _, s in turns.values() if s == Turn.Status.ESCALATED),
    }
    web_accepted = [t for t in stats.web_turns if t["accepted"]]
    running_web = Turn.objects.filter(channel="web", status=Turn.Status.RUNNING).count()
    web = {
        "ok": all(t["finished"] for t in web_accepted) and running_web == 0,
        "accepted": len(web_accepted),
        "finished_with_reply_or_handoff": sum(1 for t in web_accepted if t["finished"]),
        "not_accepted": len(stats.web_turns) - len(web_accepted),
        "running_in_db": running_web,
        "ws_notified": sum(1 for t in web_accepted if t.get("notified") is True),
        "ws_fell_back_to_polling": sum(1 for t in web_accepted if t.get("notified") is False),
        "ws_missed_by_question": dict(
            collections.Counter(QUESTIONS[t["question"]][1][:40] for t in web_accepted if t.get("notified") is False)
        ),
    }
    # Opt-out: every send the fake Twilio accepted, matched to its outbox row and the contact's STOP time.
    with FAKE.lock:
        sent = [
            (r["sid"], r["form"].get("To", ""), FAKE.sent_at.get(r["sid"], 0.0))
            for r in FAKE.requests
            if r["answered"] == 201
        ]
    rows = {
        m.provider_sid: m
        for m in OutboundMessage.objects.filter(provider_sid__in=[sid for sid, _, _ in sent]).select_related(
            "conversation__contact"
        )
    }
    opted_out = dict(Contact.objects.filter(opted_out=True).values_list("phone_hash", "opted_out_at"))
    violations, in_flight_at_stop, unmatched = [], 0, 0
    for sid, to, arrived in sent:
        message = rows.get(sid)
        stop_at = opted_out.get(crypto.phone_hash(crypto.normalize_phone(to)))
        if message is None:
            unmatched += 1
            continue
        if stop_at is None or message.purpose == "opt_out_confirmation" or arrived < stop_at.timestamp():
            continue
        # Claimed (handed to Twilio) before the STOP was recorded: already on its way, allowed; after it: a violation.
        if message.claimed_at is not None and message.claimed_at < stop_at:
            in_flight_at_stop += 1
        else:
            violations.append(str(message.pk))
    opt_out = {
        "ok": not violations and unmatched == 0,
        "sends_total": len(sent),
        "numbers_opted_out": len(opted_out),
        "texts_after_stop": len(violations),
        "in_flight_when_stop_arrived": in_flight_at_stop,
        "sends_without_outbox_row": unmatched,
        "suppressed_messages": OutboundMessage.objects.filter(status=OutboundMessage.Status.SUPPRESSED).count(),
    }
    report = audit_chain_verify()
    audit = {
        "ok": report.ok,
        "checked": report.checked,
        "first_broken_id": report.first_broken_id,
        "reason": report.reason,
    }
    return {
        "sms_one_turn_one_reply": sms,
        "web_turns_finished": web,
        "no_text_after_opt_out": opt_out,
        "audit_chain": audit,
    }


def _endpoint_table(stats: Stats, seconds: float) -> dict[str, dict[str, Any]]:
    table = {}
    for endpoint, values in sorted(stats.latencies.items()):
        table[endpoint] = {
            "count": len(values),
            "per_s": round(len(values) / seconds, 2),
            "errors": sum(stats.errors[endpoint].values()),
            "error_kinds": dict(stats.errors[endpoint]),
            "p50_ms": round(_percentile(values, 50), 1),
            "p95_ms": round(_percentile(values, 95), 1),
            "p99_ms": round(_percentile(values, 99), 1),
            "max_ms": round(max(values), 1),
        }
    return table


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(f"signal {signum}")  # run the finally blocks: stop what we started, drop the DB


def _popen(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    # Own session: _stop signals the whole group (uvicorn / celery children), by pid.
    return subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )


def main() -> int:  # noqa: PLR0915 - one linear script: start, load, drain, check, clean up
    signal.signal(signal.SIGTERM, _terminate)
    env = dict(os.environ)
    bin_dir = Path(sys.executable).parent
    logs = ROOT / "var"
    logs.mkdir(exist_ok=True)
    server = worker = None
    orm = ThreadPoolExecutor(max_workers=1, thread_name_prefix="load-orm")
    stats = Stats()
    result: dict[str, Any] = {}
    load_at_start = os.getloadavg()
    try:
        with _admin_conn() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{LOAD_DB}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{LOAD_DB}"')
        print(f"database {LOAD_DB}: migrate, corpus load, resources load …")
        for args in (["migrate", "--noinput", "-v", "0"], ["corpus", "load"], ["resources", "load"]):
            subprocess.run(
                [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
            )
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        server = _popen(
            uvicorn_command(bin_dir, port),
            logs / "load-server.log",
            env,
        )
        if REDIS is not None:
            worker = _popen(
                celery_worker_command(bin_dir),
                logs / "load-worker.log",
                env,
            )
            print(f"celery worker (pid {worker.pid}), broker redis://{REDIS_HOST}:{REDIS_PORT}/{REDIS_DB}")
        else:
            print("Redis did not answer at 127.0.0.1:6379: no Celery worker, eager Celery (server background pool)")
        _wait_http(f"{base}/healthz")
        print(f"uvicorn, 2 workers, on {base} (pid {server.pid}); fake Twilio on {FAKE.url}")
        with httpx.Client(
            base_url=base, timeout=120
        ) as client:  # load the embedding model in both workers, outside the figures
            for _ in range(4):
                created = client.post("/api/v1/conversations/", json={}).json()
                client.post(
                    f"/api/v1/conversations/{created['conversation_id']}/consent",
                    json={"version": NOTICE_VERSION},
                    headers={"Authorization": f"Bearer {created['token']}"},
                )
                client.post(
                    f"/api/v1/conversations/{created['conversation_id']}/turns/",
                    json={"text": "warm up: food in Austin", "client_message_id": "warm"},
                    headers={"Authorization": f"Bearer {created['token']}"},
                )
        print(
            f"traffic for {SECONDS:.0f} s: web sessions every {SESSION_EVERY} s, {SMS_RATE} unique SMS/s (1-3 deliveries), approvals every {APPROVE_EVERY} s"
        )
        elapsed = asyncio.run(_traffic(base, stats, orm))
        drain_seconds, backlog = _drain(stats, orm)
        print(f"traffic {elapsed:.1f} s, drain {drain_seconds:.1f} s, backlog left {backlog}")
        invariants = orm.submit(_invariants, stats).result()
        endpoints = _endpoint_table(stats, elapsed)
        requests = sum(v["count"] for k, v in endpoints.items() if k != "WS send → final reply")
        result = {
            "benchmark": "load",
            "setup": {
                "seconds": SECONDS,
                "drain_limit_seconds": DRAIN_SECONDS,
                "server": "uvicorn, 2 workers, 127.0.0.1",
                "celery": "1 worker (concurrency 2), redis 127.0.0.1:6379/6" if worker else "eager (no Redis)",
                "database": LOAD_DB,
                "llm": "demo mode (no API key)",
                "sms_require_approval": True,
                "sms_unique_per_s": SMS_RATE,
                "web_session_every_s": SESSION_EVERY,
                "messages_per_session": MESSAGES_PER_SESSION,
                "stop_share": STOP_SHARE,
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "load_average_at_start": load_at_start,
                "load_average_at_end": os.getloadavg(),
            },
            "traffic": {
                "seconds": round(elapsed, 1),
                "drain_seconds": round(drain_seconds, 1),
                "backlog_after_drain": backlog,
                "requests": requests,
                "requests_per_s": round(requests / elapsed, 1),
                "errors": sum(v["errors"] for v in endpoints.values()),
                "web_sessions": stats.sessions_started,
                "web_session_failures": stats.session_failures[:10],
                "web_turns_per_s": round(len(stats.web_turns) / elapsed, 2),
                "sms_unique": len(stats.sms_unique),
                "sms_deliveries": stats.sms_deliveries,
                "sms_stops": stats.stops,
                "approvals": stats.approvals,
                "approvals_withdrawn_by_stop": stats.approval_conflicts,
                "sms_sent_by_fake_twilio": invariants["no_text_after_opt_out"]["sends_total"],
            },
            "endpoints": endpoints,
            "invariants": invariants,
            "pass": all(v["ok"] for v in invariants.values()),
        }
    finally:
        with contextlib.suppress(Exception):
            orm.submit(connections.close_all).result(timeout=10)
        orm.shutdown(wait=False, cancel_futures=True)
        _stop(worker, "celery worker")
        _stop(server, "uvicorn")
        FAKE.stop()
        if REDIS is not None:
            with contextlib.suppress(Exception):
                REDIS.flushdb()
        if os.environ.get("LOAD_KEEP_DB") != "1":
            with contextlib.suppress(Exception), _admin_conn() as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{LOAD_DB}" WITH (FORCE)')
                print(f"dropped {LOAD_DB}")
    out = ROOT / "bench" / "results" / "load.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    for endpoint, row in result.get("endpoints", {}).items():
        print(
            f"  {endpoint:32} n={row['count']:5} {row['per_s']:6}/s  p50 {row['p50_ms']:8} p95 {row['p95_ms']:8} p99 {row['p99_ms']:8} ms  errors {row['errors']}"
        )
    for name, check in result.get("invariants", {}).items():
        print(f"  invariant {name}: {'OK' if check['ok'] else 'FAILED'} {check}")
    print(f"wrote {out}")
    return 0 if result.get("pass") else 1


if __name__ == "__main__":
    sys.exit(main())
