"""The mobile web chat in Debian's Chromium against the real ASGI server (WebSocket, SSE, polling)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPLY_TIMEOUT = 30_000

# Records every text the progress line shows (each mutation, so fast steps are not missed).
RECORD_STEPS = """
window.__steps = [];
document.addEventListener("DOMContentLoaded", function () {
  var line = document.getElementById("progress");
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      record.addedNodes.forEach(function (node) {
        var text = node.textContent;
        if (text && window.__steps[window.__steps.length - 1] !== text) { window.__steps.push(text); }
      });
    });
  }).observe(line, { childList: true, subtree: true, characterData: true });
});
"""

# Delivery failures: no WebSocket and no EventSource at all, or a WebSocket that opens and drops every event.
NO_EVENTS = "window.WebSocket = undefined; window.EventSource = undefined;"
DROPPED_EVENTS = """
(function () {
  var Real = window.WebSocket;
  function Deaf(url, protocols) {
    var socket = new Real(url, protocols);
    Object.defineProperty(socket, "onmessage", { set: function () {}, get: function () { return null; } });
    return socket;
  }
  Deaf.prototype = Real.prototype;
  window.WebSocket = Deaf;
  window.EventSource = undefined;
}());
"""


def open_chat(context: Any, path: str = "/", *scripts: str) -> Page:
    page = context.new_page()
    page.add_init_script(RECORD_STEPS)
    for script in scripts:
        page.add_init_script(script)
    page.goto(path)
    return page


def accept_notice(page: Page) -> None:
    expect(page.locator("#notice")).to_be_visible()
    page.locator("#accept").click()
    expect(page.locator("#notice")).to_be_hidden()


def send(page: Page, text: str) -> Any:
    """Send a message and return the locator of its reply once it has arrived."""
    before = page.locator(".msg.bot").count()
    page.locator("#message").fill(text)
    page.locator("#send").click()
    expect(page.locator(".msg.bot")).to_have_count(before + 1, timeout=REPLY_TIMEOUT)
    return page.locator(".msg.bot").last


def turn_json(page: Page, reply: Any) -> dict:
    turn_id = reply.get_attribute("data-turn")
    return page.evaluate("async (id) => (await fetch('/api/v1/turns/' + id + '/')).json()", turn_id)


def steps(page: Page) -> list[str]:
    return page.evaluate("window.__steps")


def test_an_english_question_shows_progress_then_a_cited_reply_with_cards(
    new_context: Callable, shot: Callable
) -> None:
    page = open_chat(new_context())
    shot(page, "01-notice-en")
    accept_notice(page)
    reply = send(page, "How do I get a state ID in Houston?")
    seen = steps(page)
    assert "Checking Texas rules…" in seen
    assert "Finding places near you…" in seen
    assert "Double-checking the answer…" in seen
    turn = turn_json(page, reply)
    assert turn["status"] == "completed" and turn["citations"]
    source = reply.locator(".sources a").first
    expect(source).to_have_attribute("href", turn["citations"][0]["url"])
    cards = reply.locator(".card")
    expect(cards).to_have_count(len(turn["resources"]))
    phones = [r for r in turn["resources"] if r["phone"]]
    if phones:
        expect(reply.locator(f'.card a[href="tel:{phones[0]["phone"]}"]')).to_be_visible()
    if not any(r["lat"] is not None and not r["is_statewide_line"] for r in turn["resources"]):
        expect(reply.locator(".map")).to_have_count(0)  # statewide lines only: nothing to pin, no map
    expect(page.locator("#progress")).to_be_empty()
    shot(page, "02-reply-en")


def test_a_spanish_question_gets_spanish_steps_a_map_with_only_local_pins_and_cards(
    new_context: Callable, shot: Callable
) -> None:
    context = new_context(locale="es-US")
    page = open_chat(context, "/?lang=es")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator("#accept")).to_have_text("Entiendo — empezar")
    accept_notice(page)
    reply = send(page, "¿Dónde puedo encontrar comida en San Antonio?")
    seen = steps(page)
    assert "Revisando las reglas de Texas…" in seen or "Buscando lugares cerca de usted…" in seen
    turn = turn_json(page, reply)
    assert turn["language"] == "es"
    pins = [
        r for r in turn["resources"] if r["lat"] is not None and r["lon"] is not None and not r["is_statewide_line"]
    ]
    assert pins, "this question should match at least one place with coordinates"
    expect(reply.locator(".map")).to_have_attribute("data-pins", str(len(pins)))
    expect(reply.locator(".leaflet-marker-icon")).to_have_count(len(pins))
    expect(reply.locator(".card")).to_have_count(len(turn["resources"]))
    expect(reply.locator(".card a.btn", has_text="Cómo llegar").first).to_be_visible()
    # The map sits above the cards.
    map_box = reply.locator(".map").bounding_box()
    first_card = reply.locator(".card").first.bounding_box()
    assert map_box and first_card and map_box["y"] < first_card["y"]
    shot(page, "03-reply-es-map")


def test_a_crisis_message_shows_the_crisis_handoff_at_once(new_context: Callable, shot: Callable) -> None:
    page = open_chat(new_context())
    accept_notice(page)
    page.locator("#message").fill("i want to kill myself")
    page.locator("#send").click()
    handoff = page.locator(".msg.handoff")
    expect(handoff).to_be_visible(timeout=5_000)
    expect(handoff.locator('a[href="tel:988"]').first).to_be_visible()
    expect(page.locator('#crisis a[href="tel:988"]')).to_be_in_viewport()
    shot(page, "04-crisis")


def test_reloading_keeps_the_conversation(new_context: Callable, shot: Callable) -> None:
    page = open_chat(new_context())
    accept_notice(page)
    reply = send(page, "I need a job in Dallas")
    text = reply.locator(".bubble").inner_text()
    page.reload()
    expect(page.locator(".msg.user")).to_have_count(1)
    expect(page.locator(".msg.bot .bubble")).to_have_text(text)
    expect(page.locator("#notice")).to_be_hidden()
    shot(page, "05-reloaded")


@pytest.mark.parametrize(
    "script", [NO_EVENTS, DROPPED_EVENTS], ids=["no-websocket-no-sse", "websocket-drops-every-event"]
)
def test_a_reply_arrives_by_polling_when_events_are_lost(new_context: Callable, script: str) -> None:
    page = open_chat(new_context(), "/", script)
    polled: list[str] = []
    page.on(
        "request",
        lambda request: (
            polled.append(request.url) if "/api/v1/turns/" in request.url and request.method == "GET" else None
        ),
    )
    accept_notice(page)
    reply = send(page, "Where can I find food in Austin?")
    expect(reply.locator(".bubble")).not_to_be_empty()
    assert polled, "the reply must have come from GET /api/v1/turns/{id}/"
    assert not any("/events" in url for url in polled)


def test_a_rate_limited_message_stays_in_the_box_and_sends_later(new_context: Callable) -> None:
    page = open_chat(new_context())
    accept_notice(page)
    refusal = {"error": {"code": "rate_limited", "message": "slow down"}}

    def refuse(route: Any) -> None:
        route.fulfill(status=429, content_type="application/json", body=json.dumps(refusal))

    page.route("**/turns/", refuse)
    page.locator("#message").fill("Where is a food bank in Houston?")
    page.locator("#send").click()
    expect(page.locator("#form-error")).to_contain_text("Please wait a minute")
    expect(page.locator("#message")).to_have_value("Where is a food bank in Houston?")
    expect(page.locator(".msg.user")).to_have_count(0)
    page.unroute("**/turns/", refuse)
    page.locator("#send").click()
    expect(page.locator(".msg.bot")).to_have_count(1, timeout=REPLY_TIMEOUT)
    expect(page.locator("#message")).to_have_value("")


def test_the_page_works_at_320_px_with_large_tap_targets(new_context: Callable, shot: Callable) -> None:
    page = open_chat(new_context(width=320, height=640))
    accept_notice(page)
    send(page, "Can I vote on parole in Texas?")
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    for selector in ("#send", "#crisis a.pill >> nth=0", ".lang", "#delete", "#restart", ".card a.btn >> nth=0"):
        if page.locator(selector).count():
            box = page.locator(selector).bounding_box()
            assert box and box["height"] >= 44 and box["width"] >= 44, selector
    expect(page.locator("#message")).to_have_attribute("aria-describedby", "form-error")
    expect(page.locator("label[for=message]")).to_have_count(1)
    expect(page.locator("#announce")).to_have_attribute("aria-live", "polite")
    shot(page, "06-320px")


def test_the_page_weighs_under_150_kb_and_loads_no_map_code_until_needed(new_context: Callable) -> None:
    context = new_context()
    page = context.new_page()
    sizes: dict[str, int] = {}
    page.on(
        "requestfinished",
        lambda request: sizes.__setitem__(
            request.url, request.sizes()["responseBodySize"] + request.sizes()["responseHeadersSize"]
        ),
    )
    page.goto("/")
    page.wait_for_load_state("networkidle")
    total = sum(sizes.values())
    assert total <= 150 * 1024, sizes
    assert not any("leaflet" in url for url in sizes)


def test_the_shell_opens_offline_and_says_so(new_context: Callable, shot: Callable) -> None:
    context = new_context()
    page = open_chat(context)
    accept_notice(page)
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    context.set_offline(True)
    page.reload()
    expect(page.locator("#offline")).to_be_visible()
    expect(page.locator('#crisis a[href="tel:988"]')).to_be_visible()
    expect(page.locator("#message")).to_be_visible()
    shot(page, "07-offline")
    context.set_offline(False)


def test_deleting_the_conversation_erases_its_turns_and_logs_it_without_content(
    new_context: Callable, shot: Callable, db_read: None
) -> None:
    from audit.log import AuditEvent
    from conversations.models import Conversation, NodeRun, Turn

    page = open_chat(new_context())
    accept_notice(page)
    reply = send(page, "help with housing in El Paso")
    turn = turn_json(page, reply)
    conversation_id = turn["conversation_id"]
    assert Turn.objects.filter(conversation_id=conversation_id).exists()
    asked: list[str] = []

    def confirm(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", confirm)
    page.locator("#delete").click()
    expect(page.locator(".msg")).to_have_count(0)
    expect(page.locator("#notice")).to_be_visible()
    assert "all your conversations on this device" in asked[0]  # the confirmation says what goes
    expect(page.locator("#form-error")).to_contain_text("All your conversations on this device were deleted (1)")
    assert not Conversation.objects.filter(pk=conversation_id).exists()
    assert not Turn.objects.filter(conversation_id=conversation_id).exists()
    assert not NodeRun.objects.filter(turn_id=turn["turn_id"]).exists()
    event = AuditEvent.objects.filter(action="conversation.deleted", object_id=conversation_id).get()
    assert event.data["turns"] == 1
    assert "El Paso" not in json.dumps(event.data)
    page.reload()
    expect(page.locator(".msg")).to_have_count(0)
    expect(page.locator("#notice")).to_be_visible()
    shot(page, "08-deleted")


# WCAG 2.x contrast of every visible text against the first opaque background behind it.
CONTRAST_REPORT = """
() => {
  function rgb(value) { const m = value.match(/[\\d.]+/g) || []; return m.map(Number); }
  function lum(c) {
    const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  function background(el) {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.99)) { return c; }
    }
    return [255, 255, 255];
  }
  const rows = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (!own || box.width < 2 || box.height < 2 || style.visibility === "hidden" || el.closest(".leaflet-container, .sr-only")) { continue; }
    const [a, b] = [lum(rgb(style.color)), lum(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
    rows.push({ text: el.textContent.trim().slice(0, 40), ratio: Math.round(ratio * 100) / 100, needed: large ? 3 : 4.5 });
  }
  return rows;
}
"""


@pytest.mark.parametrize("language_path", ["/", "/?lang=es"])
def test_every_visible_text_meets_wcag_aa_contrast(new_context: Callable, language_path: str) -> None:
    context = new_context()
    page = open_chat(context, language_path)
    report = page.evaluate(CONTRAST_REPORT)  # the notice, the crisis bar, the form
    accept_notice(page)
    send(page, "how do I get a state ID in Houston")  # a reply with citations and resource cards
    report += page.evaluate(CONTRAST_REPORT)
    assert len(report) > 20
    failing = [row for row in report if row["ratio"] < row["needed"]]
    assert failing == [], failing
