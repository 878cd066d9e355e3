"""The human loop in Chromium against the real ASGI server: a case manager answers a web chat live; the inbox updates live.

Figures (printed, and written to var/screenshots/human_loop_timing.json): the time from the case
manager pressing Send to the staff message appearing on the person's page, measured in the pages
(Date.now() in the admin before the click, a MutationObserver's Date.now() on the person's page).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import Page, expect

from caseload import roles
from caseload.models import Client, ClientContact
from conversations.models import Conversation, StaffMessage
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_chat import accept_notice, open_chat, send

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PASSWORD = "a-long-test-password-42"

# The person's page notes when a case manager's message first appears.
WATCH_STAFF = """
window.__staffSeenAt = null;
document.addEventListener("DOMContentLoaded", function () {
  new MutationObserver(function () {
    if (window.__staffSeenAt === null && document.querySelector("#messages .msg.staff")) { window.__staffSeenAt = Date.now(); }
  }).observe(document.getElementById("messages"), { childList: true, subtree: true });
});
"""


def _case_manager(first_name: str) -> Any:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(
        username=f"cm-{uuid.uuid4().hex[:8]}",
        password=PASSWORD,
        is_staff=True,
        first_name=first_name,
        last_name="Lastname-not-shown",
    )
    user.groups.add(Group.objects.get(name=roles.CASE_MANAGER))
    return user


def _link(conversation: Conversation, user: Any, name: str) -> Client:
    client = Client.objects.create(name=name, case_manager=user)
    ClientContact.objects.create(client=client, contact=conversation.contact, linked_by="test")
    return client


def _sign_in(page: Page, user: Any, next_path: str) -> None:
    page.goto(f"/admin/login/?next={next_path}")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.press("#id_password", "Enter")
    page.wait_for_url(f"**{next_path}")


def test_a_case_manager_takes_over_a_web_chat_and_the_reply_shows_within_2_s_without_reload(
    new_context: Callable, db_read: None, shot: Callable
) -> None:
    marker = f"talk-{uuid.uuid4().hex[:6]}"
    person = open_chat(new_context(), "/", WATCH_STAFF)
    accept_notice(person)
    send(person, f"Can I talk to a real person please? {marker}")
    conversation = Conversation.objects.get(turns__redacted_text__contains=marker)
    manager = _case_manager("Maria")
    _link(conversation, manager, f"Client {marker}")

    admin = new_context(width=1280, height=900).new_page()
    _sign_in(admin, manager, "/admin/caseload/inbox/")
    expect(admin.locator(f'tr[data-conversation="{conversation.pk}"]')).to_be_visible()
    admin.locator(f'tr[data-conversation="{conversation.pk}"] a').first.click()
    admin.locator("#take-over").click()
    expect(admin.locator("#mode-badge")).to_be_visible()
    text = f"Hi, this is Maria, your case manager. I can call you today. ({marker})"
    admin.fill("#reply-body", text)
    sent_at = admin.evaluate("Date.now()")
    admin.locator("#reply-send").click()
    staff_item = person.locator("#messages .msg.staff")
    # The 2 s budget is judged by the page's own clock (when the message was drawn), not by how soon a
    # loaded CI machine gets round to polling the page: wait longer, then assert the page's timing.
    expect(staff_item).to_contain_text(text, timeout=6000)
    seen_at = person.evaluate("window.__staffSeenAt")
    elapsed_ms = seen_at - sent_at
    expect(staff_item.locator(".who")).to_have_text("Case manager Maria")
    assert "Lastname-not-shown" not in person.content()
    assert elapsed_ms < 2000
    shot(person, "human_loop_person_sees_staff_reply")
    shot(admin, "human_loop_inbox_thread")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "human_loop_timing.json").write_text(json.dumps({"web_staff_reply_to_screen_ms": elapsed_ms}))
    print(f"web staff reply to the person's screen: {elapsed_ms} ms")

    person.reload()
    expect(person.locator("#messages .msg.staff")).to_contain_text(text)
    assert StaffMessage.objects.filter(conversation=conversation).count() == 1
    # After the reload the staff message sits between the person's messages, not after everything.
    order = person.evaluate(
        "Array.from(document.querySelectorAll('#messages > li')).map(li => li.className.split(' ')[1])"
    )
    assert order[-1] == "staff" and order.count("staff") == 1


def test_the_inbox_shows_a_new_crisis_live_without_reload(new_context: Callable, db_read: None, live_url: str) -> None:
    manager = _case_manager("Rosa")
    with httpx.Client(base_url=live_url, timeout=60) as api:
        created = api.post("/api/v1/conversations/", json={"language": "en"}).json()
        api.post(
            f"/api/v1/conversations/{created['conversation_id']}/consent",
            json={"version": created["notice_version"]},
            headers={"Authorization": f"Bearer {created['token']}"},
        )
        conversation = Conversation.objects.get(pk=created["conversation_id"])
        _link(conversation, manager, f"Crisis client {uuid.uuid4().hex[:6]}")
        admin = new_context(width=1280, height=900).new_page()
        _sign_in(admin, manager, "/admin/caseload/inbox/")
        expect(admin.locator("#live-status")).to_have_text("live")  # the WebSocket, not the polling fallback
        row = admin.locator(f'tr[data-conversation="{conversation.pk}"]')
        expect(row).to_have_count(0)
        api.post(
            f"/api/v1/conversations/{created['conversation_id']}/turns/",
            json={"text": "i want to kill myself tonight", "client_message_id": uuid.uuid4().hex},
            headers={"Authorization": f"Bearer {created['token']}"},
        )
    expect(row).to_have_attribute("data-tier", "0", timeout=5000)
    expect(admin.locator("#inbox-table tbody tr").first).to_have_attribute("data-conversation", str(conversation.pk))
