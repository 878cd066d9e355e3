"""Fixed-window rate limits on posting messages, per chat session and per client IP, in Django's cache.

A refused message is never recorded, so nothing is lost: the page keeps it in the input box and
the person sends it again after the wait. Limits come from settings (CHAT_RATE_LIMIT_SESSION,
CHAT_RATE_LIMIT_IP, CHAT_RATE_LIMIT_WINDOW_SECONDS) with the defaults below. With several
server processes the cache must be shared (Redis) for the limits to be global.
"""

from __future__ import annotations

import hashlib
import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import gettext
from redis.exceptions import RedisError

from conversations.errors import RateLimited

logger = logging.getLogger(__name__)

DEFAULT_SESSION_LIMIT = 10  # messages per window from one conversation: faster than anyone types
DEFAULT_IP_LIMIT = 60  # per window from one address: a shelter's shared Wi-Fi serves many people
DEFAULT_WINDOW_SECONDS = 60


def _setting(name: str, default: int) -> int:
    value = getattr(settings, name, default)
    return int(value) if value is not None else default


def _client_ip(request: HttpRequest) -> str:
    # REMOTE_ADDR only: behind a proxy, uvicorn's --proxy-headers puts the real client here;
    # trusting X-Forwarded-For ourselves would let anyone pick their own bucket.
    return request.META.get("REMOTE_ADDR") or "unknown"


def _hit(scope: str, ident: str, window: int) -> int:
    """Count one hit in the current window and return the count (keys hold hashes, never raw IPs)."""
    digest = hashlib.sha256(f"{scope}:{ident}".encode()).hexdigest()[:32]
    key = f"pathways:rl:{scope}:{digest}:{int(time.time()) // window}"
    cache.add(key, 0, timeout=window + 5)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window + 5)
        return 1


def turn_rate_check(*, request: HttpRequest, conversation_id: object) -> None:
    """Count a message post and raise RateLimited (429, in the person's language) over either limit."""
    window = max(1, _setting("CHAT_RATE_LIMIT_WINDOW_SECONDS", DEFAULT_WINDOW_SECONDS))
    checks = (
        ("session", str(conversation_id), _setting("CHAT_RATE_LIMIT_SESSION", DEFAULT_SESSION_LIMIT)),
        ("ip", _client_ip(request), _setting("CHAT_RATE_LIMIT_IP", DEFAULT_IP_LIMIT)),
    )
    for scope, ident, limit in checks:
        try:
            count = _hit(scope, ident, window) if limit > 0 else 0
        except RedisError:
            # Fail open: with the cache (Redis) down a person still gets an answer; the limit is a
            # courtesy against floods, and the per-turn workflow bounds still hold.
            logger.warning("rate-limit cache unavailable; %s limit not applied", scope)
            continue
        if count > limit:
            raise RateLimited(
                gettext(
                    "You are sending messages faster than we can answer. Please wait a minute, then press Send again. Your message is still in the box."
                ),
                code="rate_limited",
            )
