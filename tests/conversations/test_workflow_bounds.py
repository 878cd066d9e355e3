"""Each bound ends the turn in escalate with a recorded reason: revisions, steps, LLM calls, deadline."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from audit.types import AuditResult, Finding, Verdict
from conversations import services
from conversations.models import Turn
from conversations.workflow import graph, nodes
from tests.conversations.fakes import ok

pytestmark = pytest.mark.django_db


def start(text: str = "where can i get a state id in houston") -> Turn:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex)
    return turn


def always_soft(*, draft: str, evidence: object, context: object, statements: object = ()) -> AuditResult:
    return AuditResult(Verdict.SOFT_BLOCK, (Finding(rule="tone", verdict=Verdict.SOFT_BLOCK, message="too long"),))


def test_audit_revisions_are_bounded_and_then_escalate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nodes.audit_rules, "check_draft", always_soft)
    turn = services.turn_run(turn_id=start().pk)
    assert turn.status == Turn.Status.ESCALATED
    assert turn.revisions == graph.MAX_AUDIT_REVISIONS
    assert turn.escalation_reason == "audit_revisions_exhausted"
    drafts = turn.node_runs.filter(node="draft").count()
    assert drafts == graph.MAX_AUDIT_REVISIONS + 1
    assert turn.steps <= graph.MAX_NODE_STEPS


def test_a_hard_block_escalates_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        nodes.audit_rules,
        "check_draft",
        lambda **_: AuditResult(
            Verdict.HARD_BLOCK, (Finding(rule="fabricated_citation", verdict=Verdict.HARD_BLOCK, message="x"),)
        ),
    )
    turn = services.turn_run(turn_id=start().pk)
    assert turn.status == Turn.Status.ESCALATED
    assert turn.node_runs.filter(node="draft").count() == 1
    assert "988" not in turn.reply and turn.reply


def test_the_step_bound_stops_a_loop_even_if_revisions_were_unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nodes.audit_rules, "check_draft", always_soft)
    monkeypatch.setattr(nodes, "MAX_AUDIT_REVISIONS", 99)
    turn = services.turn_run(turn_id=start().pk)
    assert turn.status == Turn.Status.ESCALATED
    assert turn.escalation_reason == "max_steps"
    assert turn.steps <= graph.MAX_NODE_STEPS


def test_a_turn_past_its_deadline_escalates_with_a_templated_reply(settings: pytest.FixtureRequest) -> None:
    turn = start()
    Turn.objects.filter(pk=turn.pk).update(
        started_at=timezone.now() - timedelta(seconds=settings.TURN_DEADLINE_SECONDS + 1)
    )
    turn = services.turn_run(turn_id=turn.pk)
    assert turn.status == Turn.Status.ESCALATED
    assert turn.escalation_reason == "deadline"
    assert turn.reply


def test_llm_calls_never_exceed_the_bound_when_the_auditor_keeps_objecting(fake_anthropic: object) -> None:
    fake_anthropic.on(
        "classify", ok("classify", {"top_need": "id_documents", "language": "en", "supervision": "unknown"})
    )
    fake_anthropic.on(
        "write_reply",
        ok("write_reply", {"reply": "Call 211 Texas (2-1-1) for help.", "cited": []}, model="claude-sonnet-4-6"),
    )
    fake_anthropic.on(
        "report_findings",
        ok("report_findings", {"findings": [{"rule": "tone", "verdict": "soft_block", "message": "plainer please"}]}),
    )
    turn = services.turn_run(turn_id=start("hmm hello there").pk)
    assert turn.llm_calls <= graph.MAX_LLM_CALLS
    assert len(fake_anthropic.requests) == turn.llm_calls
    assert turn.status in (Turn.Status.ESCALATED, Turn.Status.COMPLETED)
