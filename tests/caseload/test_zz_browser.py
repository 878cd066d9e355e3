"""Browser: a case manager signs in, approves a pending reply in the queue and sees it marked sent.

Playwright drives Debian's Chromium (/usr/bin/chromium; never a downloaded browser) against the live
server; the reply goes through the real SMS sender to the fake Twilio server on 127.0.0.1.
Named test_zz_ so it runs after the other caseload tests (a live server needs a transactional DB).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conversations.models import OutboundMessage

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed (apt-get install -y chromium)"),
]


# After the test the tables are flushed and post_migrate runs again, which re-creates the roles
# (caseload.signals.roles_sync_after_migrate), so later tests still find their groups.
@pytest.mark.django_db(transaction=True)
def test_a_case_manager_approves_a_pending_reply_and_sees_it_sent(
    live_server: Any, sms_client_of_a: Any, fake_twilio: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect, sync_playwright

    cast = sms_client_of_a
    message_id = str(cast.msg_a.pk)
    # Playwright's sync API keeps an event loop on this thread; the ORM calls below are still synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            page = browser.new_page()
            # The admin runs under the strict CSP (#21 item 8): any blocked script or style is recorded.
            page.add_init_script(
                "window.__csp = []; document.addEventListener('securitypolicyviolation',"
                " function (e) { window.__csp.push(e.violatedDirective + ' ' + e.blockedURI); });"
            )
            page.goto(f"{live_server.url}/admin/login/?next=/admin/caseload/queue/")
            page.fill("#id_username", "cara-cm")
            page.fill("#id_password", "a-long-test-password-42")
            page.press("#id_password", "Enter")
            page.wait_for_url("**/admin/caseload/queue/")
            card = page.locator(f'section[data-message="{message_id}"]')
            expect(card).to_contain_text(cast.turn_a.redacted_text)
            # Keyboard path: focus the draft, Tab to Approve, press Enter.
            card.locator("textarea").focus()
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.value") == "approve"
            page.keyboard.press("Enter")
            page.wait_for_load_state()
            expect(page.locator("ul.messagelist")).to_contain_text("Approved")
            page.goto(f"{live_server.url}/admin/conversations/outboundmessage/{message_id}/change/")
            expect(page.locator(".field-status")).to_contain_text("Sent")
            assert page.evaluate("window.__csp") == []
            page.goto(f"{live_server.url}/admin/caseload/client/{cast.alice.pk}/plan/")
            expect(page.locator("h1").first).to_contain_text("Release plan")
            page.goto(f"{live_server.url}/admin/caseload/dashboard/")
            assert page.evaluate("window.__csp") == []
            assert (
                "script-src 'self'"
                in (page.request.get(f"{live_server.url}/admin/").headers["content-security-policy"])
            )
        finally:
            browser.close()
    assert OutboundMessage.objects.get(pk=message_id).status == OutboundMessage.Status.SENT
    assert len(fake_twilio.sent) == 1
