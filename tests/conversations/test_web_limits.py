"""Flood limits that need no login: new conversations and restarts per client IP, the proxy rule, shared counters."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client, RequestFactory

from conversations.models import Conversation, RateCounter
from conversations.web import ratelimit

pytestmark = pytest.mark.django_db
LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


def _create(client: Client) -> Any:
    return client.post("/api/v1/conversations/", {"language": "en"}, content_type="application/json")


def _request(remote: str, forwarded: str | None = None) -> Any:
    extra = {"REMOTE_ADDR": remote} | ({"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {})
    return RequestFactory().get("/", **extra)


def test_x_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy(settings: Any) -> None:
    settings.TRUSTED_PROXIES = []
    assert ratelimit.client_ip(_request("203.0.113.9", "198.51.100.1")) == "203.0.113.9"
    settings.TRUSTED_PROXIES = [ipaddress.ip_network("10.0.0.0/8")]
    assert ratelimit.client_ip(_request("203.0.113.9", "198.51.100.1")) == "203.0.113.9"  # untrusted peer
    # The right-most untrusted hop: whatever the client wrote on the left is not believed.
    assert ratelimit.client_ip(_request("10.0.0.2", "1.2.3.4, 198.51.100.1, 10.0.0.5")) == "198.51.100.1"
    assert ratelimit.client_ip(_request("10.0.0.2", "198.51.100.1")) == "198.51.100.1"
    assert ratelimit.client_ip(_request("10.0.0.2", "not-an-ip")) == "10.0.0.2"
    assert ratelimit.client_ip(_request("10.0.0.2")) == "10.0.0.2"


def test_a_bad_trusted_proxies_value_fails_at_start_with_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from pathways_site.env import env_networks

    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8, proxy.example")
    with pytest.raises(ImproperlyConfigured, match="TRUSTED_PROXIES"):
        env_networks("TRUSTED_PROXIES")
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8,192.0.2.7")
    assert [str(n) for n in env_networks("TRUSTED_PROXIES")] == ["10.0.0.0/8", "192.0.2.7/32"]


def test_creating_conversations_is_limited_per_ip_with_a_clear_429(settings: Any) -> None:
    settings.CACHES = LOCMEM
    settings.CHAT_RATE_LIMIT_CREATE_IP = 2
    flood = Client(REMOTE_ADDR="203.0.113.9")
    assert [_create(flood).status_code for _ in range(2)] == [201, 201]
    before = Conversation.objects.count()
    refused = _create(flood)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert "Too many new conversations" in refused.json()["error"]["message"]
    assert Conversation.objects.count() == before  # nothing created
    # A spoofed X-Forwarded-For from an untrusted peer does not buy a new bucket.
    assert _create(Client(REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="198.51.100.50")).status_code == 429
    assert _create(Client(REMOTE_ADDR="198.51.100.7")).status_code == 201


def test_behind_a_trusted_proxy_each_client_has_its_own_bucket(settings: Any) -> None:
    settings.CACHES = LOCMEM
    settings.CHAT_RATE_LIMIT_CREATE_IP = 1
    settings.TRUSTED_PROXIES = [ipaddress.ip_network("10.0.0.2/32")]
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    assert _create(Client(**proxy, HTTP_X_FORWARDED_FOR="198.51.100.1")).status_code == 201
    assert _create(Client(**proxy, HTTP_X_FORWARDED_FOR="198.51.100.2")).status_code == 201
    assert _create(Client(**proxy, HTTP_X_FORWARDED_FOR="9.9.9.9, 198.51.100.1")).status_code == 429


def test_start_over_is_limited_per_ip(settings: Any) -> None:
    settings.CACHES = LOCMEM
    settings.CHAT_RATE_LIMIT_RESTART_IP = 2
    client = Client(REMOTE_ADDR="203.0.113.9")
    _create(client)
    statuses = [client.post("/api/v1/conversations/current/restart").status_code for _ in range(3)]
    assert statuses == [201, 201, 429]
    refused = client.post("/api/v1/conversations/current/restart")
    assert refused.json()["error"]["code"] == "rate_limited"
    assert client.get("/api/v1/conversations/current/").status_code == 200  # the refused restart revoked nothing


def test_without_redis_the_counters_live_in_the_database_not_in_the_process(settings: Any) -> None:
    settings.CACHES = LOCMEM
    settings.CHAT_RATE_LIMIT_CREATE_IP = 3
    assert not ratelimit.counters_shared_by_cache()
    client = Client(REMOTE_ADDR="203.0.113.9")
    assert _create(client).status_code == 201
    assert _create(client).status_code == 201
    cache.clear()  # what another worker process sees: an empty local-memory cache
    assert _create(client).status_code == 201
    assert _create(client).status_code == 429
    counter = RateCounter.objects.get()
    assert counter.count == 4 and "203.0.113.9" not in counter.key  # a hash, never the raw address


def test_with_redis_the_counters_live_in_redis(settings: Any, redis_url: str) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url}}
    settings.CHAT_RATE_LIMIT_CREATE_IP = 2
    cache.clear()
    assert ratelimit.counters_shared_by_cache()
    client = Client(REMOTE_ADDR="203.0.113.9")
    assert [_create(client).status_code for _ in range(3)] == [201, 201, 429]
    assert not RateCounter.objects.exists()
    cache.clear()
