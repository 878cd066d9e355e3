"""Project-wide test fixtures: the network is off except loopback; the database is real PostgreSQL."""

from __future__ import annotations

import os
import socket

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")


_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: object) -> object:
    host = address[0] if isinstance(address, tuple) else address
    is_inet = self.family in (socket.AF_INET, socket.AF_INET6)
    if is_inet and isinstance(host, str) and not (host.startswith("127.") or host in {"::1", "localhost"}):
        raise OSError(f"network access to {host!r} is disabled in tests")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse any connection that leaves the machine: external APIs are faked at their HTTP transport."""
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


@pytest.fixture(autouse=True, scope="session")
def _eager_celery() -> None:
    """Run tasks in-process even when REDIS_URL is set (CI sets it): a task sent to a broker with no
    worker would wait forever. Tests of the real broker start their own worker in a subprocess."""
    from django.conf import settings

    from pathways_site.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Rate-limit counters and other cached values never leak from one test into the next."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _audit_anchor_per_test(settings: pytest.FixtureRequest, tmp_path: object) -> None:
    """`audit verify` writes the chain head; each test gets its own file (test databases come and go)."""
    settings.AUDIT_ANCHOR_PATH = tmp_path / "audit-anchor.json"  # type: ignore[operator]


@pytest.fixture(autouse=True, scope="session")
def _flush_past_the_truncate_guard() -> None:
    """Transactional tests end with `flush`, a TRUNCATE of every table, which the audit log refuses
    (audit migration 0003). Tests only: the flush disables that one trigger around its statements."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    real = DatabaseOperations.sql_flush

    def sql_flush(self: DatabaseOperations, style: object, tables: list[str], **kwargs: object) -> list[str]:
        statements = real(self, style, tables, **kwargs)
        if "audit_auditevent" not in tables or not statements:
            return statements
        return [
            "ALTER TABLE audit_auditevent DISABLE TRIGGER audit_event_no_truncate",
            *statements,
            "ALTER TABLE audit_auditevent ENABLE TRIGGER audit_event_no_truncate",
        ]

    DatabaseOperations.sql_flush = sql_flush  # type: ignore[method-assign]


@pytest.fixture
def redis_url() -> str:
    """The real Redis URL; skips when CI/dev did not provide one."""
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("REDIS_URL not set: Redis-backed path not exercised here")
    return url
