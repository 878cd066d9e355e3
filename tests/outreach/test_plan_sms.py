"""The release plan by SMS: a whole request in one message → the plan in parts; PLAN resends it;
another state → the Texas-only handoff; a question that only mentions release stays a turn."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from freezegun import freeze_time

from conversations.models import InboundSms, OutboundMessage
from outreach.models import PlanDelivery
from tests.outreach.conftest import local
from tests.outreach.conftest import outbox as _outbox


def outbox(purpose: str) -> list[OutboundMessage]:
    """Plan parts in their own numbering ("(3/9) …"): frozen time gives them one created_at."""
    messages = _outbox(purpose)
    if purpose == "plan":
        messages.sort(key=lambda message: (message.created_at, int(message.body[1:].split("/", 1)[0])))
    return messages


pytestmark = pytest.mark.django_db
TUESDAY = local(2026, 12, 1, 10)


@pytest.mark.parametrize(
    ("body", "language", "first_words"),
    [
        ("I get out Friday, going to Bexar County, on parole", "en", "Report to your parole officer"),
        ("Salgo el viernes, voy al condado de Bexar, en libertad condicional", "es", "Preséntese con su oficial"),
    ],
)
def test_a_plan_request_by_sms_is_answered_with_the_plan_in_parts(
    text_in: Any, body: str, language: str, first_words: str
) -> None:
    with freeze_time(TUESDAY):
        result = text_in(body)
    assert result.outcome == InboundSms.Outcome.KEYWORD and result.turn_id is None
    parts = outbox("plan")
    assert len(parts) >= 7
    assert all(len(part.body) <= 320 for part in parts)
    assert first_words in parts[0].body and parts[0].body.startswith(f"(1/{len(parts)})")
    # A substantive reply: it waits for a case manager like any other SMS reply.
    assert {part.status for part in parts} == {OutboundMessage.Status.PENDING_APPROVAL}
    delivery = PlanDelivery.objects.get()
    assert (
        delivery.release_date == dt.date(2026, 12, 4)
        and delivery.destination == "Bexar County"
        and delivery.language == language
    )

    with freeze_time(TUESDAY + dt.timedelta(days=5)):
        assert text_in("PLAN").outcome == InboundSms.Outcome.KEYWORD
    assert len(outbox("plan")) == 2 * len(parts)


def test_plan_with_nothing_sent_before_says_how_to_ask(text_in: Any) -> None:
    with freeze_time(TUESDAY):
        text_in("plan")
    assert "release plan" in outbox("plan_none")[0].body


def test_another_state_gets_the_texas_only_handoff(text_in: Any) -> None:
    with freeze_time(TUESDAY):
        text_in("I get out Friday and I'm going to Tulsa, Oklahoma")
    assert not PlanDelivery.objects.exists()
    handoff = outbox("out_of_state")
    assert len(handoff) == 1 and "Texas" in handoff[0].body


def test_a_question_that_only_mentions_release_is_an_ordinary_turn(text_in: Any) -> None:
    with freeze_time(TUESDAY):
        result = text_in("when is my release date?")
    assert result.outcome == InboundSms.Outcome.TURN
    assert not outbox("plan")


def test_a_case_manager_prints_and_texts_a_clients_plan(sms_client_of_a: Any) -> None:
    from caseload.errors import NotInCaseload
    from caseload.outreach import client_plan, client_plan_send_sms
    from plans.render import plan_text

    cast = sms_client_of_a
    cast.alice.release_date = dt.date(2026, 12, 11)
    cast.alice.supervision_type = "parole"
    cast.alice.save(update_fields=["release_date", "supervision_type"])
    plan = client_plan(client_id=cast.alice.pk, user=cast.cm_a, destination="Harris County", today=TUESDAY.date())
    assert plan.steps[0].key == "report_parole" and "Tex. Gov't Code § 501.015" in plan_text(plan)
    with pytest.raises(NotInCaseload):
        client_plan(client_id=cast.alice.pk, user=cast.cm_b, destination="Harris County", today=TUESDAY.date())
    with freeze_time(TUESDAY):
        parts = client_plan_send_sms(
            client_id=cast.alice.pk, user=cast.cm_a, destination="Harris County", language="es"
        )
    sent = outbox("plan")
    assert len(sent) == parts and {m.status for m in sent} == {OutboundMessage.Status.APPROVED}
    assert {m.kind for m in sent} == {OutboundMessage.Kind.HUMAN} and "Preséntese" in sent[0].body


def test_the_admin_plan_page_prints_the_plan_and_adds_a_reminder(sms_client_of_a: Any, client: Any) -> None:
    from django.utils import timezone

    cast = sms_client_of_a
    today = timezone.localdate()
    cast.alice.release_date = today + dt.timedelta(days=10)
    cast.alice.supervision_type = "parole"
    cast.alice.save(update_fields=["release_date", "supervision_type"])
    client.force_login(cast.cm_a)
    url = f"/admin/caseload/client/{cast.alice.pk}/plan/"
    page = client.get(url, {"destination": "Bexar County", "language": "es"})
    assert page.status_code == 200
    html = page.content.decode()
    assert (
        "Preséntese con su oficial" in html
        and "Tex. Gov&#x27;t Code § 501.015" in html
        and "data-print" in html
        and "caseload/print.js" in html
    )
    due = today + dt.timedelta(days=3)
    client.post(
        url,
        {
            "action": "add_reminder",
            "label": "Court",
            "date": due.isoformat(),
            "time": "10:00",
            "destination": "Bexar County",
        },
    )
    from outreach.models import Reminder

    assert Reminder.objects.get().status == Reminder.Status.AWAITING
    # Another case manager's client is not found.
    client.logout()
    client.force_login(cast.cm_b)
    assert client.get(url, {"destination": "Bexar County"}).status_code == 404
