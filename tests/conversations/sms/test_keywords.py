"""Keywords (en/es, any case): STOP family opts out with one confirmation, START opts in, HELP answers with 988."""

from __future__ import annotations

import pytest

from conversations.models import Contact, InboundSms, OutboundMessage, Turn
from conversations.sms.texts import keyword_match

pytestmark = pytest.mark.django_db

STOP_WORDS = ["STOP", "stopall", "Unsubscribe", "CANCEL", "end", "QUIT", "parar", "Stop.", " stop all "]


@pytest.mark.parametrize("word", STOP_WORDS)
def test_every_stop_keyword_opts_out_with_one_confirmation(post_sms, dispatched, word) -> None:
    post_sms(word)
    contact = Contact.objects.get()
    assert contact.opted_out and contact.opted_out_at is not None
    confirmation = OutboundMessage.objects.get()
    assert confirmation.purpose == "opt_out_confirmation" and confirmation.status == "approved"
    assert not Turn.objects.exists()
    assert InboundSms.objects.get().outcome == InboundSms.Outcome.KEYWORD
    assert dispatched.names() == ["conversations.outbound_send"]


def test_parar_confirms_in_spanish_and_stop_in_english(post_sms, dispatched) -> None:
    post_sms("PARAR")
    assert "se dio de baja" in OutboundMessage.objects.get().body
    post_sms("STOP", sender="+15125550178")
    assert "unsubscribed" in OutboundMessage.objects.get(conversation__contact__phone_last4="0178").body


def test_a_second_stop_gets_no_second_confirmation(post_sms, dispatched) -> None:
    post_sms("STOP")
    post_sms("stop")
    post_sms("QUIT")
    assert OutboundMessage.objects.filter(purpose="opt_out_confirmation").count() == 1


def test_stop_withdraws_messages_still_waiting_to_go_out(post_sms, dispatched) -> None:
    post_sms("need a job in dallas")
    dispatched.run_all()
    pending = OutboundMessage.objects.get(kind="reply")
    assert pending.status == "pending_approval"
    post_sms("STOP")
    pending.refresh_from_db()
    assert pending.status == "suppressed"


@pytest.mark.parametrize("word", ["START", "unstop", "Start!"])
def test_start_keywords_opt_back_in_with_a_confirmation(post_sms, dispatched, word) -> None:
    post_sms("STOP")
    post_sms(word)
    contact = Contact.objects.get()
    assert not contact.opted_out
    confirmation = OutboundMessage.objects.get(purpose="opt_in_confirmation")
    assert confirmation.status == "approved"


@pytest.mark.parametrize(
    ("word", "language", "fragment"),
    [
        ("HELP", "en", "Call or text 988"),
        ("help", "en", "988"),
        ("AYUDA", "es", "envíe un texto al 988"),
        ("ayuda", "es", "988"),
    ],
)
def test_help_keywords_answer_with_the_crisis_line(post_sms, dispatched, word, language, fragment) -> None:
    post_sms(word)
    message = OutboundMessage.objects.get()
    assert message.purpose == "help" and message.status == "approved"
    assert fragment in message.body
    assert ("PARAR" in message.body) == (language == "es")
    assert not Turn.objects.exists()


def test_an_opted_out_number_gets_no_help_text(post_sms, dispatched) -> None:
    post_sms("STOP")
    post_sms("HELP")
    assert OutboundMessage.objects.get(purpose="help").status == "suppressed"


def test_a_keyword_inside_a_sentence_is_an_ordinary_message(post_sms, dispatched) -> None:
    post_sms("please stop asking me about housing, I need a job")
    assert not Contact.objects.get().opted_out
    assert Turn.objects.count() == 1


def test_keyword_matching_ignores_case_accents_and_punctuation() -> None:
    assert keyword_match("Más") == ("more", "es", "MAS")
    assert keyword_match("  STOP!! ") == ("stop", None, "STOP")
    assert keyword_match("Ayuda.") == ("help", "es", "AYUDA")
    assert keyword_match("stop the eviction") is None
    assert keyword_match("") is None
