"""The LLM path through the real anthropic client and a fake HTTP transport: budgets, fallbacks, privacy."""

from __future__ import annotations

import json
import uuid

import httpx2
import pytest

from conversations import llm, services
from conversations.models import NodeRun, Turn
from tests.conversations.fakes import FakeAnthropic, ok, status

pytestmark = pytest.mark.django_db

GOOD_DRAFT = {"reply": "211 Texas can help you find an ID office: call 2-1-1.", "cited": []}


def run(text: str) -> Turn:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex)
    return services.turn_run(turn_id=turn.pk)


def wire_happy(fake: FakeAnthropic) -> None:
    fake.on("classify", ok("classify", {"top_need": "id_documents", "language": "en", "supervision": "unknown"}))
    fake.on("write_reply", ok("write_reply", GOOD_DRAFT))
    fake.on("report_findings", ok("report_findings", {"findings": []}))


def test_the_normal_path_makes_at_most_three_llm_calls_and_accounts_their_cost(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    turn = run("I just got out and need an ID in Houston")
    assert turn.status == Turn.Status.COMPLETED
    assert 1 <= turn.llm_calls <= 3
    assert fake_anthropic.tools_called[-2:] == ["write_reply", "report_findings"]
    draft_run = NodeRun.objects.get(turn=turn, node="draft")
    assert draft_run.input_tokens == 900 and draft_run.output_tokens == 120
    assert draft_run.cost_usd > 0
    assert float(turn.cost_usd) <= 0.02


def test_a_heuristic_sure_message_does_not_spend_an_intake_call(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    run("I need a birth certificate in Dallas")
    assert "classify" not in fake_anthropic.tools_called


def test_the_system_prompt_is_cached_and_tools_are_forced(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    run("I need a birth certificate in Dallas")
    body = fake_anthropic.requests[0]
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["tool_choice"]["type"] == "tool"


@pytest.mark.parametrize(
    "responder",
    [
        status(429, "rate_limit_error"),
        status(500),
        status(529, "overloaded_error"),
        lambda body: httpx2.Response(200, content=b"{not json"),
        ok("write_reply", {"answer": "wrong field"}),
        ok("write_reply", GOOD_DRAFT, stop_reason="refusal"),
    ],
    ids=["429", "500", "529", "malformed-json", "schema-mismatch", "refusal"],
)
def test_any_llm_failure_falls_back_to_the_template_and_the_turn_completes(fake_anthropic: FakeAnthropic, responder: object) -> None:
    wire_happy(fake_anthropic)
    fake_anthropic.on("write_reply", responder)
    turn = run("I need a birth certificate in Dallas")
    assert turn.status in (Turn.Status.COMPLETED, Turn.Status.ESCALATED)
    assert turn.reply
    assert turn.state["draft_source"] == "template"
    assert turn.state.get("llm_errors")


def test_a_timeout_falls_back_too(fake_anthropic: FakeAnthropic) -> None:
    def slow(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("timed out", request=request)

    llm.set_http_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(slow)))
    turn = run("I need a birth certificate in Dallas")
    assert turn.reply
    assert "timeout" in turn.state["llm_errors"]


def test_only_redacted_text_reaches_the_model(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    run("my ssn is 123-45-6789 and i need an ID in houston, call me 713-555-0199")
    sent = json.dumps(fake_anthropic.requests)
    assert "123-45-6789" not in sent and "555-0199" not in sent
    assert fake_anthropic.requests


def test_the_llm_auditor_can_block_but_never_unblock(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    fake_anthropic.on("report_findings", ok("report_findings", {"findings": [{"rule": "outcome_promise", "verdict": "hard_block", "message": "promise"}]}))
    turn = run("I need a birth certificate in Dallas")
    assert turn.status == Turn.Status.ESCALATED
    assert turn.audit_verdict == "hard_block"
