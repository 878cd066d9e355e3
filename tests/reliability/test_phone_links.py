"""Consented phone links (#21 item 1): a number joins a caseload only on the person's YES, and leaves on STOP SHARING."""

from __future__ import annotations

from typing import Any

import pytest

from audit.models import AuditEvent
from caseload import selectors, services
from caseload.models import ClientContact, PhoneLinkRequest
from caseload.phone_links import NEUTRAL_ANSWER
from conversations.models import Contact, Conversation, Turn

pytestmark = pytest.mark.django_db

NUMBER = "+15125550161"


def _texted(post_sms: Any, dispatched: Any, text: str, sender: str = NUMBER) -> Turn:
    response = post_sms(text, sender=sender)
    assert response.status_code == 200
    dispatched.run_all()
    return Turn.objects.get(inbound_sms__message_sid=response.sid)


@pytest.fixture
def link(django_capture_on_commit_callbacks: Any) -> Any:
    """Link through the service as the admin form does; the SMS leaves on commit."""

    def run(**kwargs: Any) -> str:
        with django_capture_on_commit_callbacks(execute=True):
            return services.client_phone_link(**kwargs)

    return run


def _bodies(fake_twilio: Any, to: str = NUMBER) -> list[str]:
    return [r["form"]["Body"] for r in fake_twilio.sent if r["form"]["To"] == to]


def test_linking_asks_the_person_and_hides_their_history_until_they_answer_yes(
    cast, link, post_sms, dispatched, fake_twilio
) -> None:
    turn = _texted(post_sms, dispatched, "I need food in Austin quokkaville")
    conversation = turn.conversation

    answer = link(client=cast.alice, phone=NUMBER, user=cast.cm_a)

    assert answer == NEUTRAL_ANSWER
    assert any("Reply YES to let your case manager at Pathways see your messages" in b for b in _bodies(fake_twilio))
    # Not visible yet: no transcript, turn or outbox row of the number is in the case manager's scope.
    assert not selectors.conversation_queryset(user=cast.cm_a).filter(pk=conversation.pk).exists()
    assert not selectors.turn_queryset(user=cast.cm_a).filter(pk=turn.pk).exists()
    assert not selectors.outbound_queryset(user=cast.cm_a).filter(conversation=conversation).exists()
    assert not ClientContact.objects.filter(contact=conversation.contact).exists()

    post_sms("Yes", sender=NUMBER)
    dispatched.run_all()  # the confirmation is queued while the webhook answers

    link = ClientContact.objects.get(contact=conversation.contact)
    assert link.client == cast.alice
    assert selectors.turn_queryset(user=cast.cm_a).filter(pk=turn.pk).exists()
    assert any("can now see your messages" in b for b in _bodies(fake_twilio))
    assert PhoneLinkRequest.objects.get(contact=conversation.contact).status == "confirmed"
    assert AuditEvent.objects.filter(action="caseload.phone_link_confirmed").exists()

    post_sms("stop sharing", sender=NUMBER)
    dispatched.run_all()

    assert not ClientContact.objects.filter(contact=conversation.contact).exists()
    assert not selectors.conversation_queryset(user=cast.cm_a).filter(pk=conversation.pk).exists()
    assert any("no case manager can see your messages" in b for b in _bodies(fake_twilio))
    # STOP SHARING is not an opt-out: the person still gets answers.
    assert not Contact.objects.get(pk=conversation.contact_id).opted_out


def test_the_answer_never_reveals_whether_the_number_texted_or_is_linked_elsewhere(
    cast, link, post_sms, dispatched, fake_twilio
) -> None:
    bob_number = "+15125550162"
    _texted(post_sms, dispatched, "hello there", sender=bob_number)
    link(client=cast.bob, phone=bob_number, user=cast.cm_b)
    post_sms("YES", sender=bob_number)
    assert ClientContact.objects.filter(client=cast.bob, contact__phone_last4=bob_number[-4:]).exists()
    sent_before, bob_before = len(fake_twilio.sent), len(_bodies(fake_twilio, to=bob_number))

    answers = {
        link(client=cast.alice, phone="+15125550163", user=cast.cm_a),  # never texted
        link(client=cast.alice, phone=bob_number, user=cast.cm_a),  # Bob's, linked
    }

    assert answers == {NEUTRAL_ANSWER}
    # Bob's number is not texted on a case manager's request, and stays Bob's.
    assert len(_bodies(fake_twilio, to=bob_number)) == bob_before
    assert len(fake_twilio.sent) == sent_before + 1  # only the never-texted number got the question
    held = PhoneLinkRequest.objects.get(client=cast.alice, contact__clients=cast.bob)
    assert held.status == "held"
    post_sms("YES", sender=bob_number)
    assert ClientContact.objects.get(contact=held.contact).client == cast.bob


def test_supervisors_see_pending_links_and_case_managers_do_not(cast, link, client, fake_twilio) -> None:
    link(client=cast.alice, phone=NUMBER, user=cast.cm_a)
    client.force_login(cast.supervisor)
    page = client.get("/admin/caseload/phonelinkrequest/")
    assert page.status_code == 200 and "Waiting for the person" in page.content.decode()
    client.force_login(cast.cm_a)
    assert client.get("/admin/caseload/phonelinkrequest/").status_code in (403, 404)
    assert "phonelinkrequest" not in client.get("/admin/").content.decode()


def test_the_confirmation_and_stop_sharing_are_in_spanish_for_a_spanish_contact(
    cast, link, post_sms, dispatched, fake_twilio
) -> None:
    _texted(post_sms, dispatched, "necesito comida en Austin", sender=NUMBER)
    Contact.objects.filter(phone_last4=NUMBER[-4:]).update(language="es")
    link(client=cast.alice, phone=NUMBER, user=cast.cm_a)
    assert any("Responda SI para que su administrador de casos" in b for b in _bodies(fake_twilio))
    post_sms("Sí", sender=NUMBER)
    assert ClientContact.objects.filter(client=cast.alice, contact__phone_last4=NUMBER[-4:]).exists()
    post_sms("NO COMPARTIR", sender=NUMBER)
    dispatched.run_all()
    assert not ClientContact.objects.filter(contact__phone_last4=NUMBER[-4:]).exists()
    assert any("ningún administrador de casos puede ver" in b for b in _bodies(fake_twilio))


def test_a_yes_without_any_open_ask_is_an_ordinary_message(cast, post_sms, dispatched) -> None:
    _texted(post_sms, dispatched, "hello", sender=NUMBER)
    post_sms("yes", sender=NUMBER)
    dispatched.run_all()
    assert not ClientContact.objects.filter(contact__phone_last4=NUMBER[-4:]).exists()
    assert Conversation.objects.filter(contact__phone_last4=NUMBER[-4:]).get().turns.count() == 2


def test_an_invalid_number_is_a_clear_error(cast) -> None:
    from caseload.errors import ReplyNotPossible

    with pytest.raises(ReplyNotPossible, match="not valid"):
        services.client_phone_link(client=cast.alice, phone="12", user=cast.cm_a)


def test_asking_again_sends_no_second_text_and_another_clients_ask_is_held(cast, link, fake_twilio) -> None:
    from caseload.models import Client

    link(client=cast.alice, phone=NUMBER, user=cast.cm_a)
    link(client=cast.alice, phone=NUMBER, user=cast.cm_a)
    assert len(_bodies(fake_twilio)) == 1
    other = Client.objects.create(name="Carol Caracal", case_manager=cast.cm_b)
    assert link(client=other, phone=NUMBER, user=cast.cm_b) == NEUTRAL_ANSWER
    assert len(_bodies(fake_twilio)) == 1
    assert PhoneLinkRequest.objects.get(client=other).status == "held"
    assert PhoneLinkRequest.objects.get(client=cast.alice).status == "pending"
