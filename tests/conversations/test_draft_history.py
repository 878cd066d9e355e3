"""The model draft sees the conversation's last turns, redacted and bounded; the template path does not change."""

from __future__ import annotations

import json
import uuid

import pytest

from conversations import services
from conversations.models import Turn
from conversations.workflow import graph
from tests.conversations.fakes import FakeAnthropic, ok

pytestmark = pytest.mark.django_db


def say(conversation: object, text: str) -> Turn:
    turn, _ = services.turn_start(conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex)
    return services.turn_run(turn_id=turn.pk)


def wire(fake: FakeAnthropic) -> None:
    fake.on("crisis_opinion", ok("crisis_opinion", {"category": "none", "severity": "none"}))
    fake.on("classify", ok("classify", {"top_need": "id_documents", "language": "en", "supervision": "unknown"}))
    fake.on(
        "write_reply",
        ok("write_reply", {"reply": "211 Texas can help you find an ID office: call 2-1-1.", "cited": []}),
    )
    fake.on("report_findings", ok("report_findings", {"findings": []}))


def draft_prompts(requests: list[dict]) -> list[str]:
    """The instruction text of every draft request (the draft forces no tool)."""
    return [
        next(block["text"] for block in reversed(body["messages"][0]["content"]) if block.get("type") == "text")
        for body in requests
        if not body.get("tool_choice")
    ]


def test_a_follow_up_draft_carries_the_earlier_turns_redacted(fake_anthropic: FakeAnthropic) -> None:
    wire(fake_anthropic)
    conversation, _ = services.conversation_create(channel="web")
    first = say(conversation, "my ssn is 123-45-6789, call me at 713-555-0199. I need an ID in Houston")
    before = len(fake_anthropic.requests)
    second = say(conversation, "what about Dallas? email me at jo.doe@example.com")
    prompt = draft_prompts(fake_anthropic.requests[before:])[-1]
    earlier = prompt.split("EARLIER TURNS (oldest first, redacted):\n", 1)[1].split("\n\nQUESTION:", 1)[0]
    assert f"PERSON: {first.redacted_text}" in earlier
    assert "I need an ID in Houston" in earlier and "PATHWAYS: " in earlier
    assert first.reply.split("\n")[0][:60] in earlier  # the reply the person was given
    sent = json.dumps(fake_anthropic.requests[before:])
    for raw in ("123-45-6789", "555-0199", "jo.doe@example.com"):
        assert raw not in sent
    assert second.state["history"] == [{"person": first.redacted_text, "reply": earlier.split("PATHWAYS: ", 1)[1]}]


def test_the_first_message_of_a_conversation_has_no_earlier_turns(fake_anthropic: FakeAnthropic) -> None:
    wire(fake_anthropic)
    conversation, _ = services.conversation_create(channel="web")
    turn = say(conversation, "I need an ID in Houston")
    assert "history" not in turn.state
    assert "EARLIER TURNS (oldest first, redacted):\n(none)" in draft_prompts(fake_anthropic.requests)[-1]


def test_the_history_keeps_the_last_turns_within_its_character_bound(fake_anthropic: FakeAnthropic) -> None:
    wire(fake_anthropic)
    conversation, _ = services.conversation_create(channel="web")
    for n in range(5):
        say(conversation, f"question {n} about an ID in Houston " + "and more words " * 60)
    turn = say(conversation, "and in Dallas?")
    history = turn.state["history"]
    assert 1 <= len(history) <= services.HISTORY_TURNS
    assert history[-1]["person"].startswith("question 4")  # the newest earlier turn is kept, the oldest dropped
    assert all(
        len(item["person"]) <= services.HISTORY_MESSAGE_CHARS and len(item["reply"]) <= services.HISTORY_REPLY_CHARS
        for item in history
    )
    assert sum(len(item["person"]) + len(item["reply"]) for item in history) <= services.HISTORY_MAX_CHARS


def test_only_the_draft_node_may_read_the_history() -> None:
    assert [node for node, reads in graph.NODE_READS.items() if "history" in reads] == ["draft"]


def test_without_a_key_the_template_path_is_unchanged() -> None:
    conversation, _ = services.conversation_create(channel="web")
    say(conversation, "I need an ID in Houston")
    turn = say(conversation, "what about Dallas?")
    assert "history" not in turn.state
    assert turn.state["draft_source"] == "template"
