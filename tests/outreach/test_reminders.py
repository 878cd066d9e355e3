"""Confirmed SMS reminders: sent only after YES, the day before and two hours before, exactly once,
never after CANCEL, never after STOP, never in quiet hours; en and es; case managers add, people confirm."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from freezegun import freeze_time

from conversations.models import InboundSms, OutboundMessage
from outreach.models import Reminder, ReminderSend
from outreach.schedule import send_times
from outreach.services import _dispatch_one, reminders_dispatch_due
from outreach.tasks import reminders_dispatch
from tests.outreach.conftest import local, outbox, person

pytestmark = pytest.mark.django_db
FRIDAY_10AM = local(2026, 3, 6, 10)  # a Friday; the appointment is Tuesday 9am
TUESDAY_9AM = local(2026, 3, 10, 9)


def _dispatch_at(moment: dt.datetime) -> int:
    with freeze_time(moment):
        return reminders_dispatch.apply().get()


def _confirmed_reminder(text_in: Any, body: str = "remind me about my PO appointment tuesday 9am") -> Reminder:
    with freeze_time(FRIDAY_10AM):
        text_in(body)
        text_in("YES")
    return Reminder.objects.get()


def test_a_reminder_is_sent_once_at_each_due_time_only_after_yes(text_in: Any) -> None:
    with freeze_time(FRIDAY_10AM):
        result = text_in("remind me about my PO appointment tuesday 9am")
    assert result.outcome == InboundSms.Outcome.KEYWORD and result.turn_id is None
    reminder = Reminder.objects.get()
    assert reminder.status == Reminder.Status.AWAITING and reminder.number == 1
    assert reminder.label == "my PO appointment" and reminder.due_at == TUESDAY_9AM
    ask = outbox("reminder_ask")
    assert len(ask) == 1 and "YES" in ask[0].body and "Tue Mar 10 at 9:00 AM" in ask[0].body
    # Not confirmed: no send exists and nothing goes out.
    assert not reminder.sends.exists()
    assert _dispatch_at(FRIDAY_10AM + dt.timedelta(minutes=1)) == 0

    with freeze_time(FRIDAY_10AM + dt.timedelta(minutes=5)):
        text_in("YES")
    reminder.refresh_from_db()
    assert reminder.status == Reminder.Status.CONFIRMED
    assert dict(reminder.sends.values_list("slot", "send_at")) == {
        "day_before": local(2026, 3, 9, 9),
        "two_hours": local(2026, 3, 10, 8),
    }  # 7 am is quiet: moved to 8

    assert _dispatch_at(local(2026, 3, 9, 8, 59)) == 0
    assert _dispatch_at(local(2026, 3, 9, 9, 0)) == 1
    assert _dispatch_at(local(2026, 3, 9, 9, 1)) == 0  # beat again, a retry: nothing twice
    assert len(outbox("reminder_day_before")) == 1
    assert _dispatch_at(local(2026, 3, 10, 7, 59)) == 0
    assert _dispatch_at(local(2026, 3, 10, 8, 0)) == 1
    assert _dispatch_at(local(2026, 3, 10, 8, 30)) == 0
    sends = outbox("reminder_day_before") + outbox("reminder_two_hours")
    assert len(sends) == 2
    assert all(
        message.status == OutboundMessage.Status.APPROVED and "my PO appointment" in message.body for message in sends
    )
    reminder.refresh_from_db()
    assert reminder.status == Reminder.Status.DONE


def test_a_reminder_never_confirmed_expires_and_a_late_yes_does_not_revive_it(text_in: Any) -> None:
    with freeze_time(FRIDAY_10AM):
        text_in("remind me about my PO appointment tuesday 9am")
    assert _dispatch_at(local(2026, 3, 7, 11)) == 0
    assert Reminder.objects.get().status == Reminder.Status.EXPIRED
    with freeze_time(local(2026, 3, 7, 11, 5)):
        assert text_in("YES").outcome == InboundSms.Outcome.TURN
    assert _dispatch_at(local(2026, 3, 9, 9)) == 0 and not ReminderSend.objects.exists()


def test_a_send_claimed_twice_becomes_one_message(text_in: Any) -> None:
    reminder = _confirmed_reminder(text_in)
    send = reminder.sends.get(slot="day_before")
    moment = local(2026, 3, 9, 9, 0)
    assert _dispatch_one(send_id=send.pk, now=moment) == 1
    assert _dispatch_one(send_id=send.pk, now=moment) == 0
    assert reminders_dispatch_due(now=moment) == 0
    assert OutboundMessage.objects.filter(reminder_send__isnull=False).count() == 1


def test_cancel_n_stops_every_later_send_and_is_not_an_opt_out(text_in: Any) -> None:
    _confirmed_reminder(text_in)
    with freeze_time(local(2026, 3, 7, 12)):
        result = text_in("CANCEL 1")
    assert InboundSms.objects.get(pk=result.inbound_id).keyword == "CANCEL_N"
    assert Reminder.objects.get().status == Reminder.Status.CANCELLED
    assert not person().opted_out
    assert len(outbox("reminder_cancelled")) == 1
    assert _dispatch_at(local(2026, 3, 9, 9, 0)) == 0
    assert _dispatch_at(local(2026, 3, 10, 8, 0)) == 0
    assert not outbox("reminder_day_before") and not outbox("reminder_two_hours")
    assert set(ReminderSend.objects.values_list("status", flat=True)) == {ReminderSend.Status.CANCELLED}
    # A CANCEL with no such reminder, and a bare CANCEL, stay what carriers mean: stop all texts.
    with freeze_time(local(2026, 3, 7, 12, 5)):
        text_in("CANCEL 7")
    assert person().opted_out


def test_stop_after_confirming_suppresses_the_sends(text_in: Any) -> None:
    _confirmed_reminder(text_in)
    with freeze_time(local(2026, 3, 7, 12)):
        text_in("STOP")
    assert _dispatch_at(local(2026, 3, 9, 9, 0)) == 0
    assert ReminderSend.objects.get(slot="day_before").status == ReminderSend.Status.SUPPRESSED
    assert not outbox("reminder_day_before")


def test_a_reminder_after_opt_out_is_refused_and_nothing_is_stored(text_in: Any) -> None:
    with freeze_time(FRIDAY_10AM):
        text_in("hello")  # creates the contact
        text_in("STOP")
        before = OutboundMessage.objects.exclude(status=OutboundMessage.Status.SUPPRESSED).count()
        text_in("remind me about my PO appointment tuesday 9am")
    assert not Reminder.objects.exists()
    assert OutboundMessage.objects.exclude(status=OutboundMessage.Status.SUPPRESSED).count() == before


@pytest.mark.parametrize(
    ("body", "purpose", "says"),
    [
        ("remind me about court yesterday at 9am", "reminder_past", "already passed"),
        ("remind me about court next friday at 3pm", "reminder_which_week", "Mar 13 or Mar 20"),
        ("remind me about court monday at 9", "reminder_am_pm", "am or pm"),
        ("remind me about court", "reminder_need_when", "what day and time"),
        ("remind me about court today at 10:30am", "reminder_too_soon", "too soon"),
    ],
)
def test_unclear_or_past_times_are_asked_about_and_nothing_is_stored(
    text_in: Any, body: str, purpose: str, says: str
) -> None:
    with freeze_time(FRIDAY_10AM):
        text_in(body)
    assert not Reminder.objects.exists()
    replies = outbox(purpose)
    assert len(replies) == 1 and says in replies[0].body


def test_in_spanish_the_person_confirms_with_si_and_lists_with_recordatorios(text_in: Any) -> None:
    with freeze_time(FRIDAY_10AM):
        text_in("recuérdame mi cita con el oficial el martes a las 9am")
        ask = outbox("reminder_ask")[0]
        assert "Responda SI" in ask.body and "mar 10 de mar a las 09:00" in ask.body
        text_in("SI")
        text_in("RECORDATORIOS")
    reminder = Reminder.objects.get()
    assert reminder.status == Reminder.Status.CONFIRMED and reminder.language == "es"
    assert reminder.label == "mi cita con el oficial"
    listing = outbox("reminder_list")[0]
    assert listing.body.startswith("Recordatorios de Pathways:") and "1) mi cita con el oficial" in listing.body
    assert _dispatch_at(local(2026, 3, 9, 9, 0)) == 1
    assert outbox("reminder_day_before")[0].body.startswith("Recordatorio de Pathways")


def test_reminders_lists_and_yes_without_a_pending_reminder_is_an_ordinary_message(text_in: Any) -> None:
    with freeze_time(FRIDAY_10AM):
        text_in("REMINDERS")
        assert "no reminders" in outbox("reminder_list")[0].body
        result = text_in("yes")
    assert result.outcome == InboundSms.Outcome.TURN


def test_quiet_hours_move_sends_and_hold_the_dispatcher() -> None:
    seven_am = local(2026, 3, 10, 7)
    times = send_times(seven_am, now=FRIDAY_10AM)
    assert times == {"day_before": local(2026, 3, 9, 8), "two_hours": local(2026, 3, 9, 20, 30)}
    assert all(8 <= moment.hour < 21 for moment in times.values())
    assert reminders_dispatch_due(now=local(2026, 3, 9, 23)) == 0
    # Past times are dropped; an appointment an hour away has no send left.
    assert send_times(FRIDAY_10AM + dt.timedelta(hours=1), now=FRIDAY_10AM) == {}


def test_a_case_manager_adds_a_reminder_and_the_person_still_confirms(sms_client_of_a: Any, text_in: Any) -> None:
    from caseload.errors import NotInCaseload
    from caseload.outreach import client_reminder_add
    from tests.caseload.conftest import PASSWORD  # noqa: F401 - the cast's fixtures come from the caseload conftest

    cast = sms_client_of_a
    with freeze_time(FRIDAY_10AM):
        reminder = client_reminder_add(
            client_id=cast.alice.pk, user=cast.cm_a, label="Court hearing", due_at=TUESDAY_9AM
        )
        assert reminder.status == Reminder.Status.AWAITING and reminder.created_by == f"user:{cast.cm_a.pk}"
        assert "case manager" in outbox("reminder_ask")[0].body
        with pytest.raises(NotInCaseload):
            client_reminder_add(client_id=cast.alice.pk, user=cast.cm_b, label="x", due_at=TUESDAY_9AM)
        assert reminders_dispatch_due(now=FRIDAY_10AM + dt.timedelta(minutes=1)) == 0  # not confirmed yet
        text_in("yes", number="+15125550142")
    reminder.refresh_from_db()
    assert reminder.status == Reminder.Status.CONFIRMED
    assert _dispatch_at(local(2026, 3, 9, 9)) == 1
