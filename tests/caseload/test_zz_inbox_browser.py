"""Browser: approving from the inbox thread sends exactly one SMS, even when Approve is double-clicked.

Django's live server has no WebSocket, so this page also runs on the polling fallback. The reply goes
through the real SMS sender to the fake Twilio server on 127.0.0.1. Named test_zz_ so it runs after
the other caseload tests (a live server needs a transactional database).
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


@pytest.mark.django_db(transaction=True)
def test_a_double_clicked_approval_in_the_inbox_sends_exactly_one_sms(
    live_server: Any, sms_client_of_a: Any, fake_twilio: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect, sync_playwright

    cast = sms_client_of_a
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{live_server.url}/admin/login/?next=/admin/caseload/inbox/")
            page.fill("#id_username", "cara-cm")
            page.fill("#id_password", "a-long-test-password-42")
            page.press("#id_password", "Enter")
            page.wait_for_url("**/admin/caseload/inbox/")
            expect(page.locator("#live-status")).to_have_text("polling")  # no WebSocket here: the fallback runs
            row = page.locator(f'tr[data-conversation="{cast.conv_a.pk}"]')
            expect(row).to_contain_text("Alice Aardvark")
            row.locator("a").first.click()
            card = page.locator(f'section[data-message="{cast.msg_a.pk}"]')
            expect(card).to_be_visible()
            card.locator("textarea").fill("Edited in the inbox: DPS opens at 8.")
            card.locator('button[value="approve"]').dblclick()
            page.wait_for_load_state()
            expect(page.locator("ul.messagelist")).to_contain_text("Approved")
            expect(page.locator(f'section[data-message="{cast.msg_a.pk}"]')).to_have_count(0)
        finally:
            browser.close()
    message = OutboundMessage.objects.get(pk=cast.msg_a.pk)
    assert message.status == OutboundMessage.Status.SENT and message.body == "Edited in the inbox: DPS opens at 8."
    assert [request["form"]["Body"] for request in fake_twilio.sent] == ["Edited in the inbox: DPS opens at 8."]
