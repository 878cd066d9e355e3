"""Per-number rate limit: a flood gets one polite notice; held messages are kept and processed later."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import InboundSms, OutboundMessage, Turn
from conversations.sms.services import inbound_process_held

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_limit(settings) -> None:
    settings.SMS_RATE_LIMIT_COUNT = 3
    settings.SMS_RATE_LIMIT_WINDOW_SECONDS = 60


def test_a_flood_is_held_with_one_notice_and_nothing_is_lost(
    post_sms, dispatched, django_capture_on_commit_callbacks
) -> None:
    sids = [post_sms(f"question {i} about food in austin").sid for i in range(7)]
    assert InboundSms.objects.count() == 7
    assert Turn.objects.count() == 3
    held = InboundSms.objects.filter(outcome=InboundSms.Outcome.HELD, processed=False)
    assert held.count() == 4
    notices = OutboundMessage.objects.filter(purpose="rate_limit")
    assert notices.count() == 1 and notices.get().status == "approved"
    # Not processed before the window has passed...
    assert inbound_process_held() == 0
    # ...and every held message becomes a turn afterwards, in order.
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound_process_held(now=timezone.now() + timedelta(seconds=61)) == 4
    assert Turn.objects.count() == 7
    assert set(Turn.objects.values_list("idempotency_key", flat=True)) == {f"sms:{sid}" for sid in sids}
    assert not InboundSms.objects.filter(processed=False).exists()
    assert dispatched.names().count("conversations.run_turn") == 7


def test_held_messages_are_processed_only_once(post_sms, dispatched) -> None:
    for i in range(5):
        post_sms(f"question {i} about housing")
    later = timezone.now() + timedelta(seconds=61)
    assert inbound_process_held(now=later) == 2
    assert inbound_process_held(now=later) == 0
    assert Turn.objects.count() == 5


def test_a_crisis_is_never_held(post_sms, dispatched) -> None:
    for i in range(3):
        post_sms(f"question {i} about housing")
    post_sms("I want to kill myself")
    inbound = InboundSms.objects.order_by("-received_at").first()
    assert inbound.crisis != "none"
    assert inbound.outcome == InboundSms.Outcome.TURN and inbound.turn_id is not None


def test_keywords_are_never_held(post_sms, dispatched) -> None:
    for i in range(4):
        post_sms(f"question {i} about housing")
    post_sms("STOP")
    assert OutboundMessage.objects.filter(purpose="opt_out_confirmation").count() == 1


def test_other_numbers_are_not_affected(post_sms, dispatched) -> None:
    for i in range(4):
        post_sms(f"question {i} about housing")
    post_sms("need food in austin", sender="+15125550178")
    assert InboundSms.objects.get(contact__phone_last4="0178").outcome == InboundSms.Outcome.TURN


def test_a_second_notice_only_after_the_window(post_sms, dispatched) -> None:
    from conversations.models import Contact

    for i in range(5):
        post_sms(f"question {i} about housing")
    Contact.objects.update(sms_rate_notice_at=timezone.now() - timedelta(seconds=61))
    post_sms("one more question")
    assert OutboundMessage.objects.filter(purpose="rate_limit").count() == 2
