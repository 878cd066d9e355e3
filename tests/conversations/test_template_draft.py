"""The template draft: a request for places leads with the places; a rule question keeps the honest hedge."""

from __future__ import annotations

import pytest

from conversations.workflow import templates

FOOD_BANK = {"name": "San Antonio Food Bank", "phone_display": "(210) 431-8326", "city": "San Antonio"}


@pytest.mark.parametrize(
    "query",
    [
        "where can I find food in San Antonio",
        "I need a shelter tonight in Austin",
        "food bank near me",
        "¿Dónde puedo encontrar comida en San Antonio?",
        "necesito un albergue en Dallas",
    ],
)
def test_a_request_for_places_is_answered_with_places(query: str) -> None:
    assert templates.asks_for_a_place(query)
    reply = templates.render(language="en", channel="web", evidence=[], gated=True, resources=[FOOD_BANK], query=query)
    assert "not certain about the rule" not in reply
    assert reply.startswith(templates.PLACES["en"]) and "San Antonio Food Bank, (210) 431-8326" in reply


@pytest.mark.parametrize(
    "query",
    [
        "can I vote on parole in Texas",
        "am I allowed to live in public housing with a felony",
        "where is it legal for me to live on parole",
        "I need to know if I can get SNAP with a drug felony",
        "¿puedo votar si estoy en libertad condicional?",
        "necesito saber si la ley me deja trabajar de barbero",
        "help with my record",
    ],
)
def test_a_rule_question_without_evidence_keeps_the_hedge(query: str) -> None:
    assert not templates.asks_for_a_place(query)
    reply = templates.render(language="en", channel="web", evidence=[], gated=True, resources=[FOOD_BANK], query=query)
    assert reply.startswith(templates.NO_ASSERT["en"])


def test_with_no_places_to_list_a_place_request_still_gets_the_hedge_and_211() -> None:
    reply = templates.render(language="es", channel="sms", evidence=[], gated=True, resources=[], query="dónde hay comida")
    assert reply.startswith(templates.NO_ASSERT["es"]) and "2-1-1" in reply


def test_the_spanish_place_reply_is_in_spanish() -> None:
    reply = templates.render(language="es", channel="web", evidence=[], gated=True, resources=[FOOD_BANK], query="¿Dónde puedo encontrar comida?")
    assert reply.splitlines()[0] == templates.PLACES["es"]
