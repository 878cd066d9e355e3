"""Browser fixtures: the real ASGI app under uvicorn on loopback (HTTP + WebSocket) and Debian's Chromium.

The server runs in a subprocess against the pytest test database, which is filled once per
session (corpus + directory) and never flushed, so the tests do not use django_db marks: they
only talk to the server, and read the database through `db_read` when they check side effects.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from django.core.management import call_command
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "var" / "screenshots"
TILE_HOST = "tiles.pathways.test"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]


def _tile_png() -> bytes:
    """A 256x256 pale tile, so maps render without any tile server."""
    row = b"\x00" + bytes((232, 238, 241)) * 256
    raw = row * 256

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 256, 256, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


TILE = _tile_png()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url_for_tests() -> str:
    """A DATABASE_URL naming the pytest test database (same server, user and socket)."""
    db = connection.settings_dict
    # The embedded server is reached through a socket directory given in OPTIONS, not HOST.
    host = db.get("HOST") or (db.get("OPTIONS") or {}).get("host") or ""
    name = db["NAME"]
    if host.startswith("/"):
        return f"postgresql://{db.get('USER') or 'postgres'}@/{name}?host={quote(host)}"
    return f"postgresql://{db.get('USER')}:{db.get('PASSWORD') or ''}@{host}:{db.get('PORT') or 5432}/{name}"


# Package scope, not session: Playwright's sync API keeps an event loop running in the main thread
# until it stops, and Django refuses sync ORM calls (and async_to_sync) while one runs.
@pytest.fixture(scope="package")
def live_url(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """Start uvicorn on a free loopback port against the test database; yield its base URL."""
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed (apt-get install chromium; .ci/run does it)")
    with django_db_blocker.unblock():
        call_command("corpus", "load", verbosity=0)
        call_command("resources", "load", verbosity=0)
        url = database_url_for_tests()
    port = _free_port()
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="pathways_site.settings",
        DATABASE_URL=url,
        DJANGO_ENV="development",
        DEBUG="true",
    )
    # Turns run in the server process even when CI sets REDIS_URL: no Celery worker serves this test.
    env["CELERY_TASK_ALWAYS_EAGER"] = "true"
    # Every browser context comes from 127.0.0.1: the per-IP conversation limit would only measure the suite.
    env["CHAT_RATE_LIMIT_CREATE_IP"] = env["CHAT_RATE_LIMIT_RESTART_IP"] = "100000"
    env["MAP_TILE_URL"] = f"http://{TILE_HOST}/{{z}}/{{x}}/{{y}}.png"
    env.pop("ANTHROPIC_API_KEY", None)  # demo mode: deterministic nodes, no network
    log = (ROOT / "var" / "browser-server.log").open("w")
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
        env=env,
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
        _warm_up(base)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _warm_up(base: str) -> None:
    """Run one turn so the embedding model is loaded before any test measures anything."""
    with httpx.Client(base_url=base, timeout=120) as client:
        created = client.post("/api/v1/conversations/", json={"language": "en"}).json()
        headers = {"Authorization": f"Bearer {created['token']}"}
        client.post(
            f"/api/v1/conversations/{created['conversation_id']}/consent",
            json={"version": created["notice_version"]},
            headers=headers,
        )
        client.post(
            f"/api/v1/conversations/{created['conversation_id']}/turns/",
            json={"text": "warm up: a state ID in Austin", "client_message_id": "warm"},
            headers=headers,
        )


@pytest.fixture(scope="package")
def browser(live_url: str) -> Iterator[Any]:
    """Debian's Chromium (never a downloaded browser); starts after the server, whose setup uses the ORM."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


def _route_outside(route: Any) -> None:
    """Nothing leaves the machine: map tiles get a local image, anything else is refused."""
    if TILE_HOST in route.request.url:
        route.fulfill(status=200, content_type="image/png", body=TILE)
    else:
        route.abort()


@pytest.fixture
def new_context(browser: Any, live_url: str) -> Iterator[Callable[..., Any]]:
    """Make isolated browser contexts (own cookies, cache and service worker); all closed after the test."""
    contexts: list[Any] = []

    def make(width: int = 390, height: int = 800, locale: str = "en-US", **options: Any) -> Any:
        context = browser.new_context(
            viewport={"width": width, "height": height}, locale=locale, base_url=live_url, **options
        )
        context.route(lambda url: not url.startswith(live_url), _route_outside)
        context.set_default_timeout(20_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def shot() -> Callable[[Any, str], Path]:
    """Save a full-page screenshot under var/screenshots/ (git-ignored test artifact)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: Any, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def db_read(django_db_blocker: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Let a test read what the server wrote (autocommit, no test transaction to roll back).

    Playwright's sync API keeps an event loop marked as running in this thread; the ORM calls
    here are plain blocking reads, so Django's async-safety guard is lifted for them.
    """
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with django_db_blocker.unblock():
        yield
        connection.close()  # the test database is dropped at the end of the session
