"""A person gives their release facts in the chat and gets the day-one plan card (issue #20, item 2)."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

pytestmark = pytest.mark.django_db


SOON = timezone.localdate() + dt.timedelta(days=40)
MONTHS_ES = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)


def ask(text: str, *extra: str) -> dict:
    out = StringIO()
    call_command("ask", text, "--json", *extra, stdout=out)
    return json.loads(out.getvalue())


def test_release_facts_in_chat_return_a_plan_card_with_cited_steps() -> None:
    turn = ask(f"I get out on {SOON:%B} {SOON.day} {SOON.year}, going to Bexar County, on parole")
    plan = turn["plan"]
    assert plan is not None and plan["request"]["supervision"] == "parole"
    assert turn["reply"].startswith("Here is a plan for your first days out")
    assert len(plan["steps"]) >= 6
    assert all(step["rules"] or step["places"] for step in plan["steps"])
    assert all(rule["url"].startswith("http") for step in plan["steps"] for rule in step["rules"])


def test_the_plan_card_is_in_spanish_for_a_spanish_message() -> None:
    turn = ask(
        f"salgo el {SOON.day} de {MONTHS_ES[SOON.month - 1]} de {SOON.year}, voy al condado de Bexar, con parole"
    )
    assert turn["language"] == "es" and turn["plan"]["language"] == "es"


def test_a_missing_release_date_becomes_one_question_not_a_guess() -> None:
    turn = ask("Paroling to Bexar County soon, release date not set yet")
    assert turn["plan"] is None and turn["plan_question"]


def test_getting_out_soon_is_a_release_plan_not_a_crisis() -> None:
    turn = ask("I get out soon and I'm going to Bexar County on parole")
    assert turn["crisis"] == "none"
    assert turn["plan"] is None and turn["plan_question"]


def test_an_ordinary_question_has_no_plan() -> None:
    turn = ask("where can i get food in san antonio")
    assert turn["plan"] is None and turn["plan_question"] is None
