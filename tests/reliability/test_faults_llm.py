"""LLM faults on every model-backed node (intake, draft, auditor): the turn takes the fallback path and completes.

tests/conversations/test_llm_path.py covers the draft node; this adds intake and the auditor,
connection errors, and malformed tool output of each.
"""

from __future__ import annotations

import uuid

import httpx2
import pytest

from conversations import llm, services
from conversations.models import Turn
from tests.conversations.fakes import FakeAnthropic, ok, status

pytestmark = pytest.mark.django_db

# "housing" + a vague phrasing makes the heuristic unsure, so intake asks the model.
UNSURE = "things are hard right now and I do not know where to start"
GOOD = {
    "classify": {"top_need": "housing", "language": "en", "supervision": "unknown"},
    "write_reply": {"reply": "211 Texas can help: call 2-1-1.", "cited": []},
    "report_findings": {"findings": []},
}
FAILURES = {
    "429": status(429, "rate_limit_error"),
    "500": status(500),
    "529": status(529, "overloaded_error"),
    "not-json": lambda body: httpx2.Response(200, content=b"{oops"),
    "empty-200": lambda body: httpx2.Response(200, content=b""),
    "html-502": lambda body: httpx2.Response(502, content=b"<html>bad gateway</html>"),
}
MALFORMED = {
    "classify": {"top_need": "spaceships", "language": "klingon"},
    "write_reply": {"reply": 42, "cited": "nope", "extra": True},
    "report_findings": {"findings": [{"rule": "not_a_rule", "verdict": "pass_everything", "message": "x"}]},
}


@pytest.fixture(autouse=True)
def _rules_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the LLM client's faults: with the trained message model off, a vague message
    is one the rules are unsure of, so every LLM node is really reached (the model would decide it alone)."""
    from conversations.hooks import message_model

    monkeypatch.setattr(message_model, "get_model", lambda: None)


def _run(text: str) -> Turn:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex)
    return services.turn_run(turn_id=turn.pk)


def _wire(fake: FakeAnthropic) -> None:
    for tool, payload in GOOD.items():
        fake.on(tool, ok(tool, payload))


@pytest.mark.parametrize("tool", ["classify", "write_reply", "report_findings"])
@pytest.mark.parametrize("failure", list(FAILURES))
def test_an_http_failure_of_any_llm_node_falls_back_and_the_turn_completes(
    fake_anthropic: FakeAnthropic, tool: str, failure: str
) -> None:
    _wire(fake_anthropic)
    fake_anthropic.on(tool, FAILURES[failure])
    turn = _run(UNSURE)
    assert turn.status in (Turn.Status.COMPLETED, Turn.Status.ESCALATED)
    assert turn.reply
    if tool in fake_anthropic.tools_called:
        assert turn.state.get("llm_errors"), "the failure was not recorded"


@pytest.mark.parametrize("tool", ["classify", "write_reply", "report_findings"])
def test_malformed_tool_output_is_rejected_at_the_boundary_and_the_turn_completes(
    fake_anthropic: FakeAnthropic, tool: str
) -> None:
    _wire(fake_anthropic)
    fake_anthropic.on(tool, ok(tool, MALFORMED[tool]))
    turn = _run(UNSURE)
    assert turn.status in (Turn.Status.COMPLETED, Turn.Status.ESCALATED) and turn.reply
    assert turn.top_need != "spaceships" and turn.language in ("en", "es")
    if tool == "report_findings":
        assert turn.audit_verdict in ("pass", "soft_block", "hard_block")  # the rule verdict stands


def test_a_connection_error_falls_back(fake_anthropic: FakeAnthropic) -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    llm.set_http_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(refuse)))
    turn = _run("I need a birth certificate in Dallas")
    assert turn.reply and turn.status in (Turn.Status.COMPLETED, Turn.Status.ESCALATED)
    assert turn.state.get("draft_source") == "template"


def test_a_crisis_gets_its_handoff_even_when_every_llm_call_fails(fake_anthropic: FakeAnthropic) -> None:
    for tool in GOOD:
        fake_anthropic.on(tool, status(500))
    turn = _run("I want to kill myself tonight")
    assert turn.status == Turn.Status.ESCALATED
    assert "988" in turn.reply


def test_the_unsure_message_really_reaches_the_intake_model(fake_anthropic: FakeAnthropic) -> None:
    _wire(fake_anthropic)
    _run(UNSURE)
    # The crisis second opinion (issue #23) is asked first, at ingress; then intake asks its model.
    assert fake_anthropic.tools_called[:2] == ["crisis_opinion", "classify"]
