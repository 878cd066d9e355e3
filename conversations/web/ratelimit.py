"""Fixed-window rate limits of the web chat: messages per session and per IP, new conversations and restarts per IP.

A refused message is never recorded, so nothing is lost: the page keeps it in the input box and
the person sends it again after the wait. Limits come from settings (CHAT_RATE_LIMIT_*) with the
defaults below. Counters are shared by every server process: in Redis when the cache is Redis,
otherwise in the database (the local-memory cache is per process, so a limit kept there would be
multiplied by the number of workers).

The client address is REMOTE_ADDR, or — only when REMOTE_ADDR is one of TRUSTED_PROXIES — the
right-most X-Forwarded-For entry that is not itself a trusted proxy (the entries left of it are
whatever the client chose to send).
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import random
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext
from redis.exceptions import RedisError

from conversations.errors import RateLimited
from conversations.models import RateCounter

logger = logging.getLogger(__name__)

DEFAULT_SESSION_LIMIT = 10  # messages per window from one conversation: faster than anyone types
DEFAULT_IP_LIMIT = 60  # per window from one address: a shelter's shared Wi-Fi serves many people
DEFAULT_WINDOW_SECONDS = 60
DEFAULT_CREATE_LIMIT = 60  # new conversations (or restarts) per address per create window
DEFAULT_CREATE_WINDOW_SECONDS = 600
PURGE_CHANCE = 0.01  # database counters: one hit in a hundred deletes the expired rows

_PER_PROCESS_CACHES = ("django.core.cache.backends.locmem.", "django.core.cache.backends.dummy.")


def _setting(name: str, default: int) -> int:
    value = getattr(settings, name, default)
    return int(value) if value is not None else default


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in getattr(settings, "TRUSTED_PROXIES", []))


def client_ip(request: HttpRequest) -> str:
    """The client's address: X-Forwarded-For is read only when the direct peer is a trusted proxy."""
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    if not _trusted(remote):
        return remote
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return remote  # a trusted proxy would not write that: fall back to the peer we know
        if not _trusted(hop):
            return hop
    return hops[0] if hops else remote


def counters_shared_by_cache() -> bool:
    """True when the cache is shared between processes (Redis, Memcached, database), False for local memory."""
    backend = settings.CACHES["default"]["BACKEND"]
    return not backend.startswith(_PER_PROCESS_CACHES)


def _hit_cache(key: str, window: int) -> int:
    cache.add(key, 0, timeout=window + 5)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window + 5)
        return 1


def _hit_database(key: str, window: int) -> int:
    expires = timezone.now() + timedelta(seconds=window + 5)
    table = RateCounter._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:  # one statement: concurrent hits never lose a count
        cursor.execute(
            f"INSERT INTO {table} (key, count, expires_at) VALUES (%s, 1, %s) "  # noqa: S608 - table name from the model
            f"ON CONFLICT (key) DO UPDATE SET count = {table}.count + 1 RETURNING count",
            [key, expires],
        )
        count = int(cursor.fetchone()[0])
    if random.random() < PURGE_CHANCE:  # noqa: S311 - housekeeping, not security
        RateCounter.objects.filter(expires_at__lt=timezone.now()).delete()
    return count


def _hit(scope: str, ident: str, window: int) -> int:
    """Count one hit in the current window and return the count (keys hold hashes, never raw IPs)."""
    digest = hashlib.sha256(f"{scope}:{ident}".encode()).hexdigest()[:32]
    key = f"pathways:rl:{scope}:{digest}:{int(time.time()) // window}"
    if counters_shared_by_cache():
        return _hit_cache(key, window)
    return _hit_database(key, window)


def _check(checks: tuple[tuple[str, str, int], ...], window: int, message: str) -> None:
    for scope, ident, limit in checks:
        try:
            count = _hit(scope, ident, window) if limit > 0 else 0
        except (RedisError, DatabaseError):
            # Fail open: with the counter store down a person still gets an answer; the limit is a
            # courtesy against floods, and the per-turn workflow bounds still hold.
            logger.warning("rate-limit counters unavailable; %s limit not applied", scope)
            continue
        if count > limit:
            raise RateLimited(message, code="rate_limited")


def turn_rate_check(*, request: HttpRequest, conversation_id: object) -> None:
    """Count a message post and raise RateLimited (429, in the person's language) over either limit."""
    window = max(1, _setting("CHAT_RATE_LIMIT_WINDOW_SECONDS", DEFAULT_WINDOW_SECONDS))
    checks = (
        ("session", str(conversation_id), _setting("CHAT_RATE_LIMIT_SESSION", DEFAULT_SESSION_LIMIT)),
        ("ip", client_ip(request), _setting("CHAT_RATE_LIMIT_IP", DEFAULT_IP_LIMIT)),
    )
    _check(
        checks,
        window,
        gettext(
            "You are sending messages faster than we can answer. Please wait a minute, then press Send again. Your message is still in the box."
        ),
    )


def conversation_rate_check(*, request: HttpRequest, action: str) -> None:
    """Count a new conversation (`create`) or a start-over (`restart`) from this address; 429 over the limit."""
    setting = {"create": "CHAT_RATE_LIMIT_CREATE_IP", "restart": "CHAT_RATE_LIMIT_RESTART_IP"}[action]
    window = max(1, _setting("CHAT_RATE_LIMIT_CREATE_WINDOW_SECONDS", DEFAULT_CREATE_WINDOW_SECONDS))
    _check(
        ((action, client_ip(request), _setting(setting, DEFAULT_CREATE_LIMIT)),),
        window,
        gettext("Too many new conversations from this connection. Please wait a few minutes and try again."),
    )
