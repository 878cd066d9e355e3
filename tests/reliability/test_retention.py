"""Retention and erasure: expired or erased content leaves no row anywhere; only content-free audit events stay."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client as HttpClient
from django.utils import timezone

from audit.models import AuditEvent
from audit.selectors import audit_chain_verify
from caseload.models import Client, ClientContact
from conversations import retention, services
from conversations.models import Contact, Conversation, InboundSms, NodeRun, OutboundMessage, Turn
from conversations.web.services import NOTICE_VERSION, conversation_delete
from tests.reliability.conftest import rows_containing

pytestmark = pytest.mark.django_db

# Distinctive words that survive redaction, so a row holding the message is easy to find.
OLD = "quokkaville"
NEW = "wombatburg"


def _web_turn(word: str) -> Turn:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(
        conversation=conversation, text=f"where can I get an ID in Houston {word}", idempotency_key=uuid.uuid4().hex
    )
    return services.turn_run(turn_id=turn.pk)


def _sms_turn(post_sms: Any, dispatched: Any, word: str, sender: str = "+15125550177") -> Turn:
    response = post_sms(f"I need food in Austin {word}", sender=sender)
    assert response.status_code == 200
    dispatched.run_all()
    return Turn.objects.get(inbound_sms__message_sid=response.sid)


def _age(turn: Turn, days: int) -> None:
    past = timezone.now() - timedelta(days=days)
    Turn.objects.filter(pk=turn.pk).update(created_at=past, started_at=past)
    OutboundMessage.objects.filter(turn_id=turn.pk).update(created_at=past)
    InboundSms.objects.filter(turn_id=turn.pk).update(received_at=past)


def test_it_purges_expired_turns_node_runs_and_sms_bodies_and_keeps_recent_ones(post_sms, dispatched, settings) -> None:
    settings.RETENTION_DAYS = 180
    old_web, old_sms = _web_turn(OLD), _sms_turn(post_sms, dispatched, OLD)
    _age(old_web, 200)
    _age(old_sms, 200)
    new_sms = _sms_turn(post_sms, dispatched, NEW, sender="+15125550188")
    assert rows_containing(OLD)  # the scan finds content before the purge
    assert NodeRun.objects.filter(turn=old_web).exists() and old_sms.outbound_messages.exists()

    result = retention.conversations_purge_expired(now=timezone.now())

    assert (
        result["turns"] == 2
        and result["inbound_sms"] == 1
        and result["outbound_messages"] >= 1
        and result["node_runs"] >= 6
    )
    assert rows_containing(OLD) == {}
    assert not Turn.objects.filter(pk__in=[old_web.pk, old_sms.pk]).exists()
    assert Turn.objects.filter(pk=new_sms.pk).exists() and rows_containing(NEW)
    event = AuditEvent.objects.filter(action="conversations.purged").get()
    assert event.data["turns"] == 2
    assert audit_chain_verify().ok


def test_a_dry_run_counts_and_deletes_nothing(settings) -> None:
    settings.RETENTION_DAYS = 30
    turn = _web_turn(OLD)
    _age(turn, 31)
    result = retention.conversations_purge_expired(now=timezone.now(), dry_run=True)
    assert result["turns"] == 1 and result["dry_run"] is True
    assert Turn.objects.filter(pk=turn.pk).exists()
    assert not AuditEvent.objects.filter(action="conversations.purged").exists()


def test_the_purge_command_and_beat_task_delete_expired_turns(settings, capsys) -> None:
    from conversations.tasks import purge_expired

    settings.RETENTION_DAYS = 10
    first, second = _web_turn(OLD), _web_turn(OLD)
    _age(first, 11)
    call_command("purge", "--dry-run")
    assert "would delete" in capsys.readouterr().out and Turn.objects.filter(pk=first.pk).exists()
    call_command("purge")
    assert not Turn.objects.filter(pk=first.pk).exists()
    _age(second, 11)
    assert purge_expired.apply().get()["turns"] == 1
    assert rows_containing(OLD) == {}


def test_in_flight_outbound_messages_survive_the_purge(post_sms, dispatched, settings) -> None:
    turn = _sms_turn(post_sms, dispatched, OLD)
    OutboundMessage.objects.filter(turn=turn).update(status=OutboundMessage.Status.SENDING)
    _age(turn, 400)
    retention.conversations_purge_expired(now=timezone.now())
    assert OutboundMessage.objects.filter(conversation=turn.conversation, status="sending").exists()


def test_erasing_an_sms_contact_removes_every_row_with_their_content(post_sms, dispatched) -> None:
    turn = _sms_turn(post_sms, dispatched, OLD)
    post_sms("STOP")
    contact = turn.conversation.contact
    other = _sms_turn(post_sms, dispatched, NEW, sender="+15125550188")

    counts = retention.contact_erase(contact_id=contact.pk, actor="user:1")

    assert counts["turns"] == 1 and counts["inbound_sms"] == 2 and counts["outbound_messages"] >= 2
    assert rows_containing(OLD) == {}
    assert not Contact.objects.filter(pk=contact.pk).exists()
    assert not Conversation.objects.filter(contact_id=contact.pk).exists()
    # The phone hash was the last link to the number.
    assert rows_containing(contact.phone_hash) == {}
    assert Turn.objects.filter(pk=other.pk).exists()
    event = AuditEvent.objects.get(action="contact.erased")
    assert event.object_id == str(contact.pk) and event.data["turns"] == 1
    assert audit_chain_verify().ok


def test_erasing_twice_is_a_clear_error() -> None:
    turn = _web_turn(OLD)
    contact_id = turn.conversation.contact_id
    retention.contact_erase(contact_id=contact_id, actor="system")
    with pytest.raises(retention.UnknownContact):
        retention.contact_erase(contact_id=contact_id, actor="system")


def test_delete_my_conversation_leaves_no_row_with_its_text() -> None:
    turn = _web_turn(OLD)
    conversation_delete(conversation=turn.conversation)
    assert rows_containing(OLD) == {}
    assert AuditEvent.objects.filter(action="conversation.deleted").exists()


def test_delete_my_conversation_over_http_leaves_no_row_with_its_text() -> None:
    http = HttpClient()
    created = http.post("/api/v1/conversations/", {"language": "en"}, content_type="application/json").json()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {created['token']}"}
    http.post(
        f"/api/v1/conversations/{created['conversation_id']}/consent",
        {"version": NOTICE_VERSION},
        content_type="application/json",
        **auth,
    )
    url = f"/api/v1/conversations/{created['conversation_id']}/"
    answer = http.post(
        url + "turns/", {"text": f"I need a job in Dallas {OLD}"}, content_type="application/json", **auth
    )
    assert answer.status_code == 201 and rows_containing(OLD)
    deleted = http.delete(url, **auth)
    assert deleted.status_code in (200, 204)
    assert rows_containing(OLD) == {}


def test_the_admin_erase_action_removes_the_client_and_their_conversations(cast, client) -> None:
    alice_contact = ClientContact.objects.get(client=cast.alice).contact
    assert rows_containing("Alice asks where to get a state ID")
    client.force_login(cast.admin)
    response = client.post(
        "/admin/caseload/client/", {"action": "erase_people", "_selected_action": [str(cast.alice.pk)]}
    )
    assert response.status_code == 302
    assert not Client.objects.filter(pk=cast.alice.pk).exists()
    assert not Contact.objects.filter(pk=alice_contact.pk).exists()
    assert rows_containing("Alice asks where to get a state ID") == {}
    assert rows_containing("Alice Aardvark") == {}
    assert Client.objects.filter(pk=cast.bob.pk).exists() and rows_containing("Bob asks about housing vouchers")
    assert AuditEvent.objects.filter(action="client.erased", object_id=str(cast.alice.pk)).exists()


def test_a_case_manager_cannot_erase(cast, client) -> None:
    client.force_login(cast.cm_a)
    client.post("/admin/caseload/client/", {"action": "erase_people", "_selected_action": [str(cast.alice.pk)]})
    assert Client.objects.filter(pk=cast.alice.pk).exists()


def test_progress_events_on_the_channel_layer_carry_no_message_text(
    monkeypatch, django_capture_on_commit_callbacks
) -> None:
    import time

    from conversations.web import events

    sent: list[dict[str, Any]] = []

    class RecordingLayer:
        async def group_send(self, group: str, payload: dict[str, Any]) -> None:
            sent.append(payload)

    monkeypatch.setattr(events, "get_channel_layer", RecordingLayer)
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(conversation=conversation, text=f"where can I get an ID {OLD}", idempotency_key="k1")
    with django_capture_on_commit_callbacks(execute=True):
        services.turn_run(turn_id=turn.pk)
    deadline = time.monotonic() + 5  # events leave on the publisher's loop, after the turn returns
    while len(sent) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(sent) >= 5
    assert all(OLD not in str(payload) and "Houston" not in str(payload) for payload in sent)


# --- #21 item 3: erasure that erases -----------------------------------------------------------


def test_erasure_scrubs_the_admin_log_of_the_client_name(cast, client) -> None:
    client.force_login(cast.supervisor)
    name = "Zebulon Quartermaine"
    added = client.post(
        "/admin/caseload/client/add/",
        {
            "name": name,
            "case_manager": str(cast.cm_a.pk),
            "status": "active",
            "supervision_type": "parole",
            "notes": "",
            "link_phone": "",
            "client_contacts-TOTAL_FORMS": "0",
            "client_contacts-INITIAL_FORMS": "0",
        },
    )
    assert added.status_code == 302, added.content.decode()[:2000]
    created = Client.objects.get(name=name)
    assert "django_admin_log" in rows_containing(name)  # admin's own history keeps the name

    response = client.post("/admin/caseload/client/", {"action": "erase_people", "_selected_action": [str(created.pk)]})

    assert response.status_code == 302
    assert rows_containing(name) == {}
    assert AuditEvent.objects.filter(action="client.erased", object_id=str(created.pk)).exists()


def test_supervisors_may_erase_as_the_operations_guide_says(cast, client) -> None:
    client.force_login(cast.supervisor)
    client.post("/admin/caseload/client/", {"action": "erase_people", "_selected_action": [str(cast.alice.pk)]})
    assert not Client.objects.filter(pk=cast.alice.pk).exists()
    assert rows_containing("Alice Aardvark") == {}


def test_the_admin_delete_view_erases_too(cast, client) -> None:
    alice_contact = ClientContact.objects.get(client=cast.alice).contact
    client.force_login(cast.supervisor)
    response = client.post(f"/admin/caseload/client/{cast.alice.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Contact.objects.filter(pk=alice_contact.pk).exists()
    assert rows_containing("Alice Aardvark") == {} and rows_containing("Alice asks where to get a state ID") == {}


def test_texting_delete_then_yes_erases_the_texter(post_sms, dispatched, fake_twilio) -> None:
    sender = "+15125550199"
    turn = _sms_turn(post_sms, dispatched, OLD, sender=sender)
    contact = turn.conversation.contact
    phone_hash = contact.phone_hash
    other = _sms_turn(post_sms, dispatched, NEW, sender="+15125550188")

    post_sms("DELETE", sender=sender)
    dispatched.run_all()  # a keyword answer is queued while the webhook answers
    asked = [r["form"]["Body"] for r in fake_twilio.sent if r["form"]["To"] == sender]
    assert any("reply YES within 15 minutes to erase" in body for body in asked)
    assert Contact.objects.filter(pk=contact.pk).exists()  # nothing goes before the YES

    post_sms("yes", sender=sender)

    assert not Contact.objects.filter(pk=contact.pk).exists()
    assert rows_containing(OLD) == {}
    assert rows_containing(phone_hash) == {}
    last = [r["form"]["Body"] for r in fake_twilio.sent if r["form"]["To"] == sender][-1]
    assert "your messages and number are erased" in last
    assert Turn.objects.filter(pk=other.pk).exists()
    assert AuditEvent.objects.filter(action="contact.erased", object_id=str(contact.pk)).exists()
    assert audit_chain_verify().ok


def test_borrar_in_spanish_and_a_message_in_between_cancels_the_ask(post_sms, dispatched, fake_twilio) -> None:
    sender = "+15125550198"
    turn = _sms_turn(post_sms, dispatched, OLD, sender=sender)
    post_sms("Borrar", sender=sender)
    dispatched.run_all()
    asked = [r["form"]["Body"] for r in fake_twilio.sent if r["form"]["To"] == sender]
    assert any("responda SI en los próximos 15 minutos para borrar" in body for body in asked)
    _sms_turn(post_sms, dispatched, "where can I sleep tonight", sender=sender)
    post_sms("si", sender=sender)
    dispatched.run_all()
    assert Contact.objects.filter(pk=turn.conversation.contact_id).exists()

    post_sms("BORRAR", sender=sender)
    post_sms("Sí", sender=sender)
    assert not Contact.objects.filter(pk=turn.conversation.contact_id).exists()
    last = [r["form"]["Body"] for r in fake_twilio.sent if r["form"]["To"] == sender][-1]
    assert "sus mensajes y su número fueron borrados" in last


def test_pending_inbound_rows_go_with_the_contact_and_the_worker_does_not_recreate_it(post_sms, dispatched) -> None:
    from conversations.sms.services import inbound_process, inbound_record

    sender = "+15125550197"
    turn = _sms_turn(post_sms, dispatched, OLD, sender=sender)
    contact = turn.conversation.contact
    pending = inbound_record(message_sid="SM" + "e" * 32, from_number=sender, body=f"one more {OLD}")
    assert InboundSms.objects.filter(pk=pending, contact__isnull=True).exists()

    counts = retention.contact_erase(contact_id=contact.pk, actor="user:1")

    assert counts["inbound_sms"] == 2
    assert not InboundSms.objects.filter(pk=pending).exists()
    assert inbound_process(inbound_id=pending).outcome == "unknown"
    assert not Contact.objects.filter(phone_hash=contact.phone_hash).exists()
    assert rows_containing(contact.phone_hash) == {} and rows_containing(OLD) == {}


def test_retention_also_purges_contacts_and_conversations_with_nothing_left(
    post_sms, dispatched, settings, django_capture_on_commit_callbacks
) -> None:
    settings.RETENTION_DAYS = 30
    with django_capture_on_commit_callbacks(execute=True):  # the acknowledgement goes out once its turn commits
        old = _sms_turn(post_sms, dispatched, OLD, sender="+15125550196")
    contact = old.conversation.contact
    fresh_web = _web_turn(NEW)
    stopped = _sms_turn(post_sms, dispatched, OLD, sender="+15125550195").conversation.contact
    post_sms("STOP", sender="+15125550195")
    past = timezone.now() - timedelta(days=40)
    for one in (old, *Turn.objects.filter(conversation__contact=stopped)):
        _age(one, 40)
    InboundSms.objects.filter(contact__in=[contact, stopped]).update(received_at=past)
    OutboundMessage.objects.filter(conversation__contact__in=[contact, stopped]).update(created_at=past)
    Conversation.objects.filter(contact__in=[contact, stopped]).update(updated_at=past)
    Contact.objects.filter(pk__in=[contact.pk, stopped.pk]).update(created_at=past)

    assert retention.conversations_purge_expired(now=timezone.now(), dry_run=True)["empty_contacts"] == 0
    result = retention.conversations_purge_expired(now=timezone.now())

    assert result["empty_contacts"] == 1 and result["empty_conversations"] == 1
    assert not Contact.objects.filter(pk=contact.pk).exists()
    assert rows_containing(contact.phone_hash) == {}
    assert not Conversation.objects.filter(contact_id=contact.pk).exists()
    # A STOP is honoured for good: the opted-out number's contact stays.
    assert Contact.objects.filter(pk=stopped.pk, opted_out=True).exists()
    assert Turn.objects.filter(pk=fresh_web.pk).exists()


def test_help_tells_a_texter_how_to_erase(post_sms, dispatched, fake_twilio) -> None:
    post_sms("HELP", sender="+15125550194")
    post_sms("AYUDA", sender="+15125550194")
    dispatched.run_all()
    bodies = [r["form"]["Body"] for r in fake_twilio.sent if r["form"]["To"] == "+15125550194"]
    assert len(bodies) == 2, bodies
    assert "DELETE to erase your texts" in bodies[0] and "BORRAR para borrar sus mensajes" in bodies[1]
