"""A crisis carries to the next message that continues it only when it was clearly one."""

from __future__ import annotations

import uuid

import pytest

from conversations import services
from conversations.hooks import message_model
from conversations.hooks.crisis import CARRY_MIN_MODEL_PROBABILITY, CrisisResult, crisis_carries
from conversations.models import Turn

pytestmark = pytest.mark.django_db


def _start(conversation, text: str) -> Turn:
    turn, _ = services.turn_start(conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex)
    return turn


def _model_says(monkeypatch: pytest.MonkeyPatch, crisis: str, probability: float) -> None:
    said = message_model.Assessment(crisis=crisis, crisis_probability=probability, available=True, version="test")
    monkeypatch.setattr(services.message_model, "assess", lambda text, embedding=None: said)


def test_a_borderline_model_alarm_is_handed_off_but_does_not_carry_to_the_next_message(monkeypatch) -> None:
    conversation, _ = services.conversation_create(channel="web", language="es")
    _model_says(monkeypatch, "housing_emergency", CARRY_MIN_MODEL_PROBABILITY - 0.2)
    first = _start(conversation, "hola, busco trabajo")
    assert first.crisis == "housing_emergency" and first.state["crisis"]["carries"] is False
    monkeypatch.setattr(services.message_model, "assess", lambda text, embedding=None: message_model.UNAVAILABLE)
    assert _start(conversation, "estoy en mcallen").crisis == "none"


def test_a_sure_model_crisis_and_a_rules_crisis_carry(monkeypatch) -> None:
    conversation, _ = services.conversation_create(channel="web", language="es")
    _model_says(monkeypatch, "housing_emergency", CARRY_MIN_MODEL_PROBABILITY + 0.1)
    assert _start(conversation, "hola, busco trabajo").state["crisis"]["carries"] is True
    monkeypatch.setattr(services.message_model, "assess", lambda text, embedding=None: message_model.UNAVAILABLE)
    second = _start(conversation, "estoy en mcallen")
    assert (second.crisis, second.state["crisis"]["source"]) == ("housing_emergency", "context")
    assert second.state["crisis"]["carries"] is True  # a carried crisis goes on carrying
    other, _ = services.conversation_create(channel="web", language="en")
    assert _start(other, "i been saving pills, whats the point anymore").state["crisis"]["carries"] is True
    assert _start(other, "im in mcallen").crisis == "suicide_self_harm"


def test_only_the_models_own_alarm_needs_the_carry_probability() -> None:
    assert not crisis_carries(CrisisResult(), 1.0)
    assert not crisis_carries(CrisisResult(category="domestic_violence", source="model"), 0.5)
    assert crisis_carries(CrisisResult(category="domestic_violence", source="model"), 0.9)
    for source in ("rules", "rules+model", "context", "second_opinion"):
        assert crisis_carries(CrisisResult(category="domestic_violence", source=source), 0.0), source


def test_a_later_turn_after_no_crisis_reads_the_model_with_its_later_turn_thresholds(monkeypatch) -> None:
    conversation, _ = services.conversation_create(channel="web", language="en")
    # The model alarms under its ordinary thresholds but not under the later-turn ones.
    said = message_model.Assessment(
        crisis="housing_emergency", crisis_later="none", crisis_probability=0.5, available=True, version="test"
    )
    monkeypatch.setattr(services.message_model, "assess", lambda text, embedding=None: said)
    assert _start(conversation, "I'm in Pasadena by the way").crisis == "housing_emergency"  # an opening turn
    other, _ = services.conversation_create(channel="web", language="en")
    monkeypatch.setattr(services.message_model, "assess", lambda text, embedding=None: message_model.UNAVAILABLE)
    assert _start(other, "I need a job in Houston").crisis == "none"
    monkeypatch.setattr(services.message_model, "assess", lambda text, embedding=None: said)
    assert _start(other, "I'm in Pasadena by the way").crisis == "none"
    # The rules are the floor on every turn.
    assert _start(other, "i been saving pills, whats the point anymore").crisis == "suicide_self_harm"
