"""MCP tool server fixtures: the real corpus and directory in the test database, committed, so a
server in a subprocess (stdio or uvicorn) reads the same data the test does."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.core.management import call_command

from tests.browser.conftest import database_url_for_tests

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    with django_db_blocker.unblock():
        call_command("corpus", "load", verbosity=0)
        call_command("resources", "load", verbosity=0)


@pytest.fixture(scope="session")
def server_env(django_db_setup: None, django_db_blocker: Any) -> dict[str, str]:
    """The environment of a server subprocess: the pytest test database, demo mode, INFO logs."""
    with django_db_blocker.unblock():
        url = database_url_for_tests()
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="pathways_site.settings",
        DATABASE_URL=url,
        DJANGO_ENV="development",
        LOG_LEVEL="INFO",
    )
    env.pop("ANTHROPIC_API_KEY", None)
    env["CELERY_TASK_ALWAYS_EAGER"] = "true"
    return env


@pytest.fixture(scope="module")
def served_data(django_db_setup: None, django_db_blocker: Any) -> None:
    """(Re)load the corpus and directory, committed: a transactional test elsewhere may have flushed
    them since the session started, and the server subprocess must find them (no-op when present)."""
    with django_db_blocker.unblock():
        call_command("corpus", "load", verbosity=0)
        call_command("resources", "load", verbosity=0)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def live_server_url(server_env: dict[str, str], served_data: None) -> Iterator[str]:
    """The real ASGI app (the one production serves) under uvicorn on a loopback port."""
    port = _free_port()
    log = (ROOT / "var" / "mcp-http-server.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "pathways_site.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--lifespan",
            "off",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=server_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the test server did not start; see {log.name}")
            time.sleep(0.3)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
