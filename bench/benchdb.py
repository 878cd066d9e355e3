"""A benchmark's own database: chosen before Django reads its settings, so the process knows no other.

Switching `settings_dict["NAME"]` after start-up is not enough: the per-process psycopg pool is
built once per alias and kept handing out connections to the development database, which then
received 50,000 synthetic services per `make bench`. Here the bench database is created on the same
server and `DATABASE_URL` names it before `django.setup()`; the development database is never
connected to. The database is dropped when the process exits (BENCH_KEEP_DB=1 keeps it).
"""

from __future__ import annotations

import atexit
import os
import sys
from pathlib import Path

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent


def with_database(url: str, name: str) -> str:
    """`url` with its database name replaced by `name` (query string, e.g. a unix-socket host, kept)."""
    head, _, tail = url.partition("?")
    return head.rsplit("/", 1)[0] + "/" + name + ("?" + tail if tail else "")


def server_url() -> str:
    """The development database's URL, as the settings would compute it: DATABASE_URL or the embedded server."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    from pathways_site.embedded_db import ensure_database

    return ensure_database(ROOT / "var" / "pgdata")


def _admin(url: str, statement: sql.Composable) -> None:
    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        conn.execute(statement)


def drop(url: str, name: str) -> None:
    """Drop `name` on the server of `url`, ending any session still connected to it."""
    _admin(url, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _drop_at_exit(url: str, name: str) -> None:
    """Close this process's connections and pool first, so the pool does not try to refill into a dropped database."""
    if "django.db" in sys.modules:
        from django.db import connections

        for conn in connections.all(initialized_only=True):
            conn.close()
            if hasattr(conn, "close_pool"):
                conn.close_pool()
    drop(url, name)


def own_database(name: str) -> str:
    """Create a fresh database `name` beside the development one and point this process at it.

    Must run before Django's settings are loaded: afterwards the connection settings (and the pool)
    are fixed and the call raises instead of silently writing elsewhere. BENCH_DB_SUFFIX is appended
    to the name so that a test can run a bench beside a real `make bench`. Returns the database name.
    """
    from django.conf import settings

    if settings.configured:
        raise RuntimeError("own_database() must run before Django loads its settings")
    name += os.environ.get("BENCH_DB_SUFFIX", "")
    base = server_url()
    drop(base, name)
    _admin(base, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    os.environ["DATABASE_URL"] = with_database(base, name)
    if os.environ.get("BENCH_KEEP_DB") != "1":
        atexit.register(_drop_at_exit, base, name)
    print(f"bench database {name!r} (dropped at exit)", file=sys.stderr)
    return name


def results_dir() -> Path:
    """Where a bench writes its JSON: bench/results, or BENCH_RESULTS_DIR (a test's small run)."""
    path = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
    path.mkdir(parents=True, exist_ok=True)
    return path


def uvicorn_command(bin_dir: Path, port: int, *extra: str) -> list[str]:
    """The ASGI server the process-level benches start: 2 workers on loopback, quiet logs."""
    return [
        str(bin_dir / "uvicorn"),
        "pathways_site.asgi:application",
        *("--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--lifespan", "off"),
        *("--no-access-log", "--log-level", "warning", *extra),
    ]


def celery_worker_command(bin_dir: Path) -> list[str]:
    """The Celery worker the benches start beside it: 2 processes, one task at a time each, no chatter."""
    return [
        str(bin_dir / "celery"),
        *("-A", "pathways_site", "worker", "--concurrency", "2", "--prefetch-multiplier", "1", "-l", "warning"),
        *("--without-gossip", "--without-mingle", "--without-heartbeat"),
    ]
