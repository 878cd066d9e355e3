"""The chat runs under a strict Content-Security-Policy (#21 item 8): no inline script, no violation.

The browser reports every blocked script, style, image, connection or worker as a
`securitypolicyviolation` event; the page records them and the test asserts there were none while
the person accepts the notice, asks a question that draws a map, and the reply arrives live.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.test_chat import accept_notice, open_chat, send

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " " + e.blockedURI);
});
"""


def test_the_chat_sends_a_strict_policy(live_url: str) -> None:
    policy = httpx.get(f"{live_url}/", timeout=10).headers["content-security-policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if " " in part.strip())
    assert directives["script-src"] == "'self'"
    assert "'unsafe-inline'" not in directives["script-src"] and "'unsafe-eval'" not in policy
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"


def test_the_chat_works_with_no_policy_violation(new_context: Callable) -> None:
    context = new_context(locale="es-US")
    page = open_chat(context, "/?lang=es", RECORD_VIOLATIONS)
    accept_notice(page)
    reply = send(page, "¿Dónde puedo encontrar comida en San Antonio?")
    expect(reply.locator(".leaflet-marker-icon").first).to_be_visible()
    assert page.evaluate("window.__csp") == []
