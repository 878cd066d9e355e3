"""Staff sign-in throttling and session lifetime (#21 item 8)."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings as live_settings

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password-42"
LOGIN = "/admin/login/?next=/admin/"


def _attempt(client: Any, username: str, password: str, ip: str) -> Any:
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_one_username_is_locked_out_whatever_ips_try_it(client: Any, cast: Any, settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3
    for n in range(3):
        _attempt(client, "cara-cm", "wrong-password-xx", f"203.0.113.{n + 1}")
    # The right password from a fresh address: still locked (rotating IPs does not help an attacker).
    assert _attempt(client, "cara-cm", PASSWORD, "198.51.100.7").status_code == 429
    # Another user is not affected.
    assert _attempt(client, "ben-cm", PASSWORD, "198.51.100.8").status_code == 302


def test_one_ip_is_locked_out_whatever_usernames_it_tries(client: Any, cast: Any, settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3
    for name in ("alpha", "bravo", "charlie"):
        _attempt(client, name, "wrong-password-xx", "203.0.113.50")
    # Spraying usernames from one address locks the address, even for a real account's right password.
    assert _attempt(client, "cara-cm", PASSWORD, "203.0.113.50").status_code == 429
    assert _attempt(client, "cara-cm", PASSWORD, "203.0.113.51").status_code == 302


def test_staff_sessions_last_8_hours_and_end_with_the_browser(client: Any, cast: Any) -> None:
    assert live_settings.SESSION_COOKIE_AGE == 8 * 3600 and live_settings.SESSION_EXPIRE_AT_BROWSER_CLOSE
    response = _attempt(client, "cara-cm", PASSWORD, "198.51.100.9")
    assert response.status_code == 302
    cookie = response.cookies[live_settings.SESSION_COOKIE_NAME]
    assert not cookie["expires"] and not cookie["max-age"]  # a browser-session cookie
    assert client.session.get_expiry_age() == 8 * 3600
    assert client.session.get_expire_at_browser_close()


def test_the_admin_sends_the_strict_policy(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    policy = client.get("/admin/").headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy + ";" and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in policy
