"""Haiku's crisis second opinion at ingress, through the real SDK and the fake transport: it can only escalate."""

from __future__ import annotations

import json
import threading
import time
import uuid

import httpx2
import pytest

from conversations import crisis_opinion, services
from conversations.models import Turn
from conversations.workflow import graph
from tests.conversations.fakes import FakeAnthropic, ok, status

pytestmark = pytest.mark.django_db

TOOL = crisis_opinion.TOOL


def start(text: str) -> Turn:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex)
    return turn


def wire(fake: FakeAnthropic, category: str = "none", severity: str = "none") -> None:
    fake.on(TOOL, ok(TOOL, {"category": category, "severity": severity}, input_tokens=300, output_tokens=20))
    fake.on("classify", ok("classify", {"top_need": "id_documents", "language": "en", "supervision": "unknown"}))
    fake.on(
        "write_reply",
        ok("write_reply", {"reply": "211 Texas can help you find an ID office: call 2-1-1.", "cited": []}),
    )
    fake.on("report_findings", ok("report_findings", {"findings": []}))


def crisis_requests(fake: FakeAnthropic) -> list[dict]:
    return [body for body in fake.requests if (body.get("tool_choice") or {}).get("name") == TOOL]


def test_an_opinion_naming_a_crisis_the_rules_missed_escalates_the_turn(fake_anthropic: FakeAnthropic) -> None:
    wire(fake_anthropic, "suicide_self_harm", "high")
    turn = start("I need an ID in Houston")
    assert turn.crisis == "suicide_self_harm"
    assert turn.state["crisis"]["source"] == "second_opinion"
    assert turn.state["crisis_opinion"] == {
        "consulted": True,
        "model": "claude-haiku-4-5",
        "prompt": "crisis_v1",
        "outcome": "opinion",
        "category": "suicide_self_harm",
        "severity": "high",
        "ms": turn.state["crisis_opinion"]["ms"],
        "input_tokens": 300,
        "output_tokens": 20,
        "cost_usd": pytest.approx(0.0004),
    }
    turn = services.turn_run(turn_id=turn.pk)
    assert turn.status == Turn.Status.ESCALATED and "988" in turn.reply
    assert "write_reply" not in fake_anthropic.tools_called  # a crisis gets no draft
    assert turn.llm_calls >= 1 and float(turn.cost_usd) > 0


def test_an_opinion_of_none_never_cancels_a_rule_hit(fake_anthropic: FakeAnthropic) -> None:
    wire(fake_anthropic, "none", "none")
    turn = start("I want to kill myself")
    assert turn.crisis == "suicide_self_harm"
    assert turn.state["crisis"]["source"] != "second_opinion"
    assert turn.state["crisis_opinion"]["outcome"] == "opinion" and turn.state["crisis_opinion"]["category"] == "none"
    assert services.turn_run(turn_id=turn.pk).status == Turn.Status.ESCALATED


def test_a_less_urgent_opinion_leaves_the_rule_result_as_it_was(fake_anthropic: FakeAnthropic) -> None:
    wire(fake_anthropic, "housing_emergency", "elevated")
    turn = start("I want to kill myself")
    assert turn.crisis == "suicide_self_harm"
    assert "second_opinion" not in turn.state["crisis"]["source"]


def test_a_slow_opinion_is_abandoned_at_its_time_box_and_the_turn_completes(
    fake_anthropic: FakeAnthropic, settings: pytest.FixtureRequest
) -> None:
    settings.LLM_CRISIS_TIMEOUT_SECONDS = 0.3
    wire(fake_anthropic)
    released = threading.Event()
    answer = ok(TOOL, {"category": "suicide_self_harm", "severity": "imminent"})

    def slow(body: dict) -> httpx2.Response:
        released.wait(5)  # answers only after the test has moved on: far past the time box
        return answer(body)

    fake_anthropic.on(TOOL, slow)
    try:
        began = time.perf_counter()
        turn = start("I need an ID in Houston")
        assert time.perf_counter() - began < 3
        assert turn.crisis == "none"  # the late answer is never read
        assert turn.state["crisis_opinion"]["outcome"] == "timeout"
        assert turn.state["crisis_opinion"]["category"] is None
        assert services.turn_run(turn_id=turn.pk).status == Turn.Status.COMPLETED
    finally:
        released.set()


@pytest.mark.parametrize(
    "responder",
    [
        status(500),
        status(529, "overloaded_error"),
        ok(TOOL, {"category": "on_fire", "severity": "high"}),
        lambda body: httpx2.Response(200, content=b"{not json"),
    ],
    ids=["500", "529", "outside-the-schema", "malformed-json"],
)
def test_a_failed_opinion_is_no_opinion_and_the_turn_completes(
    fake_anthropic: FakeAnthropic, responder: object
) -> None:
    wire(fake_anthropic)
    fake_anthropic.on(TOOL, responder)
    turn = start("I need an ID in Houston")
    assert turn.crisis == "none"
    assert turn.state["crisis_opinion"]["outcome"] == "error" and turn.state["crisis_opinion"]["consulted"] is True
    assert services.turn_run(turn_id=turn.pk).status == Turn.Status.COMPLETED


def test_the_opinion_runs_while_ingress_works_not_after_it(
    fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire(fake_anthropic, "none", "none")
    answer = ok(TOOL, {"category": "none", "severity": "none"})

    def slow_answer(body: dict) -> httpx2.Response:
        time.sleep(0.6)
        return answer(body)

    def slow_embedding(redacted: str) -> None:
        time.sleep(0.6)

    fake_anthropic.on(TOOL, slow_answer)
    monkeypatch.setattr(services, "_embedding", slow_embedding)
    began = time.perf_counter()
    turn = start("I need an ID in Houston")
    elapsed = time.perf_counter() - began
    assert turn.state["crisis_opinion"]["outcome"] == "opinion"
    assert elapsed < 1.1  # 0.6 s + 0.6 s one after the other would be 1.2 s or more


def test_only_the_redacted_text_is_sent_for_the_opinion(fake_anthropic: FakeAnthropic) -> None:
    wire(fake_anthropic)
    start("my ssn is 123-45-6789, call me at 713-555-0199, i need an ID")
    sent = json.dumps(crisis_requests(fake_anthropic))
    assert crisis_requests(fake_anthropic) and "i need an ID" in sent
    assert "123-45-6789" not in sent and "555-0199" not in sent


def test_without_a_key_no_opinion_is_asked_and_none_recorded() -> None:
    turn = start("I need an ID in Houston")
    assert "crisis_opinion" not in turn.state and turn.llm_calls == 0


def test_the_opinion_counts_towards_the_llm_calls_bound(fake_anthropic: FakeAnthropic) -> None:
    wire(fake_anthropic)
    fake_anthropic.on(
        "report_findings",
        ok("report_findings", {"findings": [{"rule": "tone", "verdict": "soft_block", "message": "plainer please"}]}),
    )
    turn = services.turn_run(turn_id=start("hmm hello there").pk)
    assert len(crisis_requests(fake_anthropic)) == 1
    assert turn.llm_calls <= graph.MAX_LLM_CALLS
    assert len(fake_anthropic.requests) == turn.llm_calls


def test_the_workflow_gets_only_the_calls_the_opinion_left(
    fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conversations.workflow import engine

    monkeypatch.setattr(engine, "MAX_LLM_CALLS", 2)
    wire(fake_anthropic)
    turn = services.turn_run(turn_id=start("I need a birth certificate in Dallas").pk)
    assert len(crisis_requests(fake_anthropic)) == 1
    assert len(fake_anthropic.requests) == turn.llm_calls == 2  # the opinion and the draft; no auditor call was left
    assert "report_findings" not in fake_anthropic.tools_called
    assert turn.status in (Turn.Status.COMPLETED, Turn.Status.ESCALATED) and turn.reply
