"""Benchmark the case-manager inbox list: p95 render time and SQL queries with 500 open conversations.

Creates its own database `bench_inbox` before Django starts (bench/benchdb.py, on the same PostgreSQL
server; dropped at exit, so the development database is never connected to), seeds 500 conversations that need a person — crises, asks for a
person, replies waiting for approval, unanswered staff threads, spread over 3 case managers and the
on-call queue — and times GET /admin/caseload/inbox/ in-process (Django's test client: URL
routing, session, scope, the annotated query, tier sort and template rendering; no network), as a
supervisor who sees all 500. Target: p95 ≤ 150 ms, ≤ 15 queries. Writes bench/results/inbox.json.

Usage: .venv/bin/python bench/bench_inbox.py [--conversations 500] [--requests 200]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")

from bench.benchdb import own_database, results_dir  # noqa: E402

BENCH_DB = own_database("bench_inbox")  # before Django starts: the process never knows the dev database
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client as HttpClient  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

TARGET_P95_MS = 150.0
TARGET_QUERIES = 15


def seed(count: int) -> object:
    """500 open conversations and the staff who see them; returns the supervisor."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from caseload import roles
    from caseload.models import Client, ClientContact
    from conversations.models import Contact, Conversation, OutboundMessage, StaffMessage, Turn

    users = get_user_model()
    supervisor = users.objects.create_user(username="bench-supervisor", password="x" * 16, is_staff=True)
    supervisor.groups.add(Group.objects.get(name=roles.SUPERVISOR))
    managers = []
    for index in range(3):
        user = users.objects.create_user(username=f"bench-cm-{index}", password="x" * 16, is_staff=True)
        user.groups.add(Group.objects.get(name=roles.CASE_MANAGER))
        managers.append(user)
    now = timezone.now()
    contacts = Contact.objects.bulk_create(
        [
            Contact(
                channel="sms" if i % 3 else "web",
                phone_hash=f"bench-{i:05d}" if i % 3 else "",
                phone_last4=f"{i:04d}"[-4:],
            )
            for i in range(count)
        ]
    )
    conversations = Conversation.objects.bulk_create(
        [
            Conversation(
                contact=contact,
                channel=contact.channel,
                mode=Conversation.Mode.HUMAN if i % 5 == 3 else Conversation.Mode.NAVIGATOR,
                needs_human=i % 5 in (1, 4),
                needs_human_reason="asked_for_human" if i % 5 == 1 else ("other" if i % 5 == 4 else ""),
            )
            for i, contact in enumerate(contacts)
        ]
    )
    clients = Client.objects.bulk_create(
        [
            Client(
                name=f"Bench client {i:03d}",
                case_manager=managers[i % 3] if i % 10 else None,
                release_date=(now - timedelta(days=i % 60)).date(),
            )
            for i in range(count)
        ]
    )
    ClientContact.objects.bulk_create(
        [
            ClientContact(client=client, contact=contact)
            for client, contact in zip(clients, contacts, strict=True)
            if client.pk
        ]
    )
    turns = []
    for i, conversation in enumerate(conversations):
        for seq in range(1, 4):
            turns.append(
                Turn(
                    conversation=conversation,
                    seq=seq,
                    idempotency_key=f"b{i}-{seq}",
                    channel=conversation.channel,
                    redacted_text=f"Bench question {seq} about an ID in Houston ({i})",
                    status=Turn.Status.COMPLETED,
                    workflow_version="bench",
                    crisis="suicide_self_harm" if (i % 5 == 0 and seq == 3) else "none",
                    started_at=now - timedelta(minutes=i + 10 - seq),
                )
            )
    Turn.objects.bulk_create(turns)
    OutboundMessage.objects.bulk_create(
        [
            OutboundMessage(
                conversation=conversation,
                kind="reply",
                body="Draft reply",
                draft_body="Draft reply",
                status=OutboundMessage.Status.PENDING_APPROVAL,
            )
            for i, conversation in enumerate(conversations)
            if i % 5 == 2 or i % 7 == 0
        ]
    )
    StaffMessage.objects.bulk_create(
        [
            StaffMessage(
                conversation=conversation,
                author=managers[i % 3],
                author_first_name="Bench",
                channel=conversation.channel,
                body="Staff note",
                idempotency_key=f"s{i}",
            )
            for i, conversation in enumerate(conversations)
            if i % 5 == 3
        ]
    )
    # Staff answered before the last turn in the human-mode threads: they are unanswered again.
    StaffMessage.objects.update(created_at=now - timedelta(hours=2))
    return supervisor


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=500)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    setup_test_environment()
    call_command("migrate", verbosity=0)
    try:
        supervisor = seed(args.conversations)
        from caseload.inbox.selectors import inbox_rows

        listed = len(inbox_rows(user=supervisor))
        client = HttpClient()
        client.force_login(supervisor)
        for _ in range(5):
            if client.get("/admin/caseload/inbox/").status_code != 200:  # warm up
                raise SystemExit("the inbox did not answer 200")
        # Counted by a wrapper: the request closes and reopens the connection, which clears connection.queries.
        queries: list[str] = []

        def count(execute: object, sql: str, params: object, many: bool, context: object) -> object:
            queries.append(sql)
            return execute(sql, params, many, context)  # type: ignore[operator]

        with connection.execute_wrapper(count):
            client.get("/admin/caseload/inbox/")
        timings = []
        for _ in range(args.requests):
            started = time.perf_counter()
            response = client.get("/admin/caseload/inbox/")
            timings.append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                raise SystemExit(f"the inbox answered {response.status_code}")
        timings.sort()
        p95 = timings[max(0, int(len(timings) * 0.95) - 1)]
        result = {
            "benchmark": "inbox list, GET /admin/caseload/inbox/ as a supervisor (in-process, template rendered)",
            "open_conversations_seeded": args.conversations,
            "rows_listed": listed,
            "requests": args.requests,
            "p50_ms": round(statistics.median(timings), 1),
            "p95_ms": round(p95, 1),
            "p99_ms": round(timings[max(0, int(len(timings) * 0.99) - 1)], 1),
            "max_ms": round(timings[-1], 1),
            "sql_queries": len(queries),
            "target_p95_ms": TARGET_P95_MS,
            "target_queries": TARGET_QUERIES,
            "met": p95 <= TARGET_P95_MS and len(queries) <= TARGET_QUERIES,
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)",
            # The machine is shared with other sessions: the load says how much CPU the run really had.
            "load_average_1m_at_end": round(os.getloadavg()[0], 2),
            "python": platform.python_version(),
        }
    finally:
        connection.close()
    out = results_dir() / "inbox.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0 if result["met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
