"""The inbox: scope, tiers, the thread and its decisions, staff replies on both channels, the query budget."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from caseload import priority as priority_rules
from caseload.errors import NotInCaseload, ReplyNotPossible
from caseload.inbox import selectors as inbox_selectors
from caseload.inbox import services as inbox_services
from caseload.models import ClientContact
from conversations.models import Contact, Conversation, OutboundMessage, StaffMessage, Turn
from tests.caseload.factories import (
    ConversationFactory,
    OutboundFactory,
    TurnFactory,
    client_with_conversation,
)

pytestmark = pytest.mark.django_db
Tier = priority_rules.Tier


def _ago(**kwargs: Any) -> Any:
    return timezone.now() - timedelta(**kwargs)


def _turn(conversation: Conversation, *, crisis: str = "none", at: Any = None, text: str = "hello") -> Turn:
    turn = TurnFactory(conversation=conversation, seq=conversation.turns.count() + 1, crisis=crisis, redacted_text=text)
    if at is not None:
        Turn.objects.filter(pk=turn.pk).update(created_at=at)
    return turn


def _pending(turn: Turn, *, at: Any = None) -> OutboundMessage:
    message = OutboundFactory(turn=turn)
    if at is not None:
        OutboundMessage.objects.filter(pk=message.pk).update(created_at=at)
    return message


def _labels(user: Any) -> list[str]:
    return [row.label for row in inbox_selectors.inbox_rows(user=user)]


def test_a_case_manager_sees_only_their_caseload_and_a_supervisor_everything(cast: Any) -> None:
    mine = _labels(cast.cm_a)
    assert "Alice Aardvark" in mine and "Bob Bobolink" not in mine
    everything = _labels(cast.supervisor)
    assert {"Alice Aardvark", "Bob Bobolink"} <= set(everything)
    assert any(label.startswith("SMS …") for label in everything)  # the on-call conversation, named by its number


def test_tiers_put_an_open_crisis_first_even_against_a_higher_score(cast: Any) -> None:
    """The issue's case: released 10 days ago + asked for a person + a pending reply (score 60) vs a crisis (50)."""
    cm = cast.cm_a
    high, high_conv = client_with_conversation(
        name="Hank High-score", case_manager=cm, release_date=timezone.localdate() - timedelta(days=10)
    )
    Conversation.objects.filter(pk=high_conv.pk).update(needs_human=True, needs_human_reason="asked_for_human")
    _pending(_turn(high_conv, at=_ago(hours=3)), at=_ago(hours=3))
    _old_crisis_client, old_crisis = client_with_conversation(name="Carla Crisis-old", case_manager=cm)
    _turn(old_crisis, crisis="suicide_self_harm", at=_ago(hours=5))
    _new_crisis_client, new_crisis = client_with_conversation(name="Cody Crisis-new", case_manager=cm)
    _turn(new_crisis, crisis="domestic_violence", at=_ago(minutes=5))
    _waiting_long_client, waiting_long = client_with_conversation(name="Wanda Waiting-long", case_manager=cm)
    _pending(_turn(waiting_long, at=_ago(hours=2)), at=_ago(hours=2))
    Turn.objects.filter(pk=cast.turn_a.pk).update(created_at=_ago(minutes=20))
    OutboundMessage.objects.filter(pk=cast.msg_a.pk).update(created_at=_ago(minutes=20))

    rows = inbox_selectors.inbox_rows(user=cm)
    order = [(row.label, row.tier) for row in rows]
    assert order == [
        ("Cody Crisis-new", Tier.OPEN_CRISIS),
        ("Carla Crisis-old", Tier.OPEN_CRISIS),
        ("Hank High-score", Tier.ASKED_FOR_PERSON),
        ("Wanda Waiting-long", Tier.APPROVAL_WAITING),
        ("Alice Aardvark", Tier.APPROVAL_WAITING),
    ]
    # The old score would have put Hank (60) above either crisis (50): the tiers do not.
    hank = priority_rules.annotate_priority(type(high).objects.filter(pk=high.pk), now=timezone.now()).get()
    assert hank.priority >= 60


def test_the_python_tier_and_the_database_tier_agree(cast: Any) -> None:
    for row in inbox_selectors.inbox_rows(user=cast.supervisor):
        expected = priority_rules.conversation_tier(
            open_crisis=row.crisis_at is not None,
            asked_for_person=row.needs_human_reason == "asked_for_human",
            pending_replies=row.pending,
        )
        assert row.tier == expected


def test_marking_a_crisis_handled_ends_its_tier_until_a_new_crisis(cast: Any) -> None:
    _turn(cast.conv_a, crisis="suicide_self_harm", at=_ago(minutes=30))
    assert inbox_selectors.inbox_rows(user=cast.cm_a)[0].tier == Tier.OPEN_CRISIS
    inbox_services.crisis_mark_handled(conversation_id=cast.conv_a.pk, user=cast.cm_a)
    row = next(r for r in inbox_selectors.inbox_rows(user=cast.cm_a) if r.label == "Alice Aardvark")
    assert row.tier == Tier.APPROVAL_WAITING  # still has a reply waiting, but no longer a crisis
    assert AuditEvent.objects.filter(action="caseload.crisis_handled", object_id=str(cast.conv_a.pk)).exists()
    # The crisis points of the client score end too (they used to stay 72 h after someone handled it).
    client = priority_rules.annotate_priority(
        type(cast.alice).objects.filter(pk=cast.alice.pk), now=timezone.now()
    ).get()
    assert not client.p_crisis_72h
    _turn(cast.conv_a, crisis="medical_emergency_overdose")
    assert inbox_selectors.inbox_rows(user=cast.cm_a)[0].tier == Tier.OPEN_CRISIS


def test_another_caseloads_crisis_cannot_be_marked_handled(cast: Any) -> None:
    _turn(cast.conv_b, crisis="suicide_self_harm")
    with pytest.raises(NotInCaseload):
        inbox_services.crisis_mark_handled(conversation_id=cast.conv_b.pk, user=cast.cm_a)


def test_the_inbox_list_renders_in_at_most_15_queries_whatever_its_length(client: Any, cast: Any) -> None:
    client.force_login(cast.supervisor)
    url = reverse("admin:caseload_inbox_changelist")
    client.get(url)  # warm caches (content types, sessions)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        return len(queries)

    def seed(index: int) -> None:
        _, conversation = client_with_conversation(name=f"Many {index:02d}", case_manager=cast.cm_b)
        turn = _turn(conversation, crisis="suicide_self_harm" if index % 7 == 0 else "none")
        if index % 2:
            _pending(turn)
        else:
            Conversation.objects.filter(pk=conversation.pk).update(needs_human=True, needs_human_reason="other")

    seed(1)
    seed(2)  # every kind of row is there once, so the larger list differs only in length
    small = count()
    for index in range(3, 43):
        seed(index)
    large = count()
    assert large <= 15, large
    assert large == small  # no per-row query
    assert len(inbox_selectors.inbox_rows(user=cast.supervisor)) >= 44


def test_the_thread_outside_ones_scope_is_a_404_and_so_is_replying_to_it(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    assert client.get(reverse("admin:caseload_inbox_thread", args=[cast.conv_b.pk])).status_code == 404
    response = client.post(
        reverse("admin:caseload_inbox_act", args=[cast.conv_b.pk]),
        {"action": "reply", "body": "hello", "reply_key": "k1"},
    )
    assert response.status_code == 404
    assert not StaffMessage.objects.exists()
    with pytest.raises(NotInCaseload):
        inbox_services.conversation_reply(conversation_id=cast.conv_b.pk, user=cast.cm_a, body="x", idempotency_key="k")


def test_the_thread_shows_the_transcript_and_the_draft_with_its_decisions(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    response = client.get(reverse("admin:caseload_inbox_thread", args=[cast.conv_a.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert cast.turn_a.redacted_text in html
    assert f'data-message="{cast.msg_a.pk}"' in html
    for action in ('value="approve"', 'value="reject"', 'value="take_over"', 'name="reply_key"'):
        assert action in html


def test_edit_and_approve_from_the_thread_sends_the_edited_text_once_even_when_double_clicked(
    client: Any, sms_client_of_a: Any, fake_twilio: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cast = sms_client_of_a
    client.force_login(cast.cm_a)
    url = reverse("admin:caseload_inbox_act", args=[cast.conv_a.pk])
    data = {"action": "approve", "message_id": str(cast.msg_a.pk), "body": "Edited: go to DPS with your papers."}
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(url, data)
        second = client.post(url, data, follow=True)
    assert first.status_code == 302
    assert "not waiting for approval" in second.content.decode()
    assert [r["form"]["Body"] for r in fake_twilio.sent] == ["Edited: go to DPS with your papers."]
    assert AuditEvent.objects.filter(action="caseload.outbound_approved", object_id=str(cast.msg_a.pk)).count() == 1


def test_reject_needs_a_reason_and_then_sends_nothing(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    url = reverse("admin:caseload_inbox_act", args=[cast.conv_a.pk])
    response = client.post(url, {"action": "reject", "message_id": str(cast.msg_a.pk), "reason": ""}, follow=True)
    assert "Give a reason" in response.content.decode()
    client.post(url, {"action": "reject", "message_id": str(cast.msg_a.pk), "reason": "wrong office"})
    message = OutboundMessage.objects.get(pk=cast.msg_a.pk)
    assert message.status == OutboundMessage.Status.REJECTED and message.rejection_reason == "wrong office"


def test_take_over_and_hand_back_from_the_thread(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    url = reverse("admin:caseload_inbox_act", args=[cast.conv_a.pk])
    client.post(url, {"action": "take_over"})
    assert Conversation.objects.get(pk=cast.conv_a.pk).mode == Conversation.Mode.HUMAN
    client.post(url, {"action": "hand_back"})
    assert Conversation.objects.get(pk=cast.conv_a.pk).mode == Conversation.Mode.NAVIGATOR


# --- staff replies ---------------------------------------------------------------------------


def _web_conversation_of_alice(cast: Any) -> tuple[Conversation, str]:
    from conversations.services import conversation_create

    conversation, token = conversation_create(channel="web", language="en")
    ClientContact.objects.filter(client=cast.alice).delete()
    ClientContact.objects.create(client=cast.alice, contact=conversation.contact)
    return conversation, token


def test_a_web_reply_is_a_staff_message_in_the_persons_timeline_with_the_first_name_only(
    client: Any, cast: Any
) -> None:
    conversation, token = _web_conversation_of_alice(cast)
    cast.cm_a.first_name, cast.cm_a.last_name = "Cara", "Castillo"
    cast.cm_a.save()
    message = inbox_services.conversation_reply(
        conversation_id=conversation.pk, user=cast.cm_a, body="Hi, this is Cara. I can help.", idempotency_key="k1"
    )
    assert message.author == cast.cm_a and message.channel == "web" and message.outbound is None
    assert AuditEvent.objects.filter(action="staff_message.created", object_id=str(conversation.pk)).exists()
    client.logout()
    response = client.get(f"/api/v1/conversations/{conversation.pk}/messages/", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    staff = [item for item in response.json() if item["author"] == "staff"]
    assert staff == [
        {
            "author": "staff",
            "text": "Hi, this is Cara. I can help.",
            "created_at": staff[0]["created_at"],
            "turn_id": None,
            "from_name": "Cara",
            "id": str(message.pk),
        }
    ]
    assert "Castillo" not in response.content.decode()


def test_the_timeline_needs_the_conversations_token(client: Any, cast: Any) -> None:
    conversation, _ = _web_conversation_of_alice(cast)
    assert client.get(f"/api/v1/conversations/{conversation.pk}/messages/").status_code == 403
    _other, other_token = _web_conversation_of_alice(cast)
    wrong = client.get(f"/api/v1/conversations/{conversation.pk}/messages/", HTTP_AUTHORIZATION=f"Bearer {other_token}")
    assert wrong.status_code == 403
    missing = client.get(f"/api/v1/conversations/{uuid.uuid4()}/messages/", HTTP_AUTHORIZATION=f"Bearer {other_token}")
    assert missing.status_code == 404


def test_the_timeline_is_person_pathways_and_staff_oldest_first(client: Any, cast: Any) -> None:
    conversation, token = _web_conversation_of_alice(cast)
    first = TurnFactory(conversation=conversation, seq=1, channel="web", redacted_text="Q1", reply="A1")
    Turn.objects.filter(pk=first.pk).update(
        created_at=_ago(minutes=10), finished_at=_ago(minutes=10) + timedelta(seconds=2)
    )
    inbox_services.conversation_reply(conversation_id=conversation.pk, user=cast.cm_a, body="S1", idempotency_key="a")
    TurnFactory(conversation=conversation, seq=2, channel="web", redacted_text="Q2", reply="")
    items = client.get(
        f"/api/v1/conversations/{conversation.pk}/messages/", HTTP_AUTHORIZATION=f"Bearer {token}"
    ).json()
    assert [(i["author"], i["text"]) for i in items] == [
        ("person", "Q1"),
        ("pathways", "A1"),
        ("staff", "S1"),
        ("person", "Q2"),
    ]
    assert items[0]["turn_id"] == str(first.pk)


def test_an_sms_reply_goes_through_the_outbox_and_reaches_twilio_once(
    sms_client_of_a: Any, fake_twilio: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cast = sms_client_of_a
    with django_capture_on_commit_callbacks(execute=True):
        message = inbox_services.conversation_reply(
            conversation_id=cast.conv_a.pk, user=cast.cm_a, body="Cara here: call me at noon.", idempotency_key="k"
        )
        again = inbox_services.conversation_reply(
            conversation_id=cast.conv_a.pk, user=cast.cm_a, body="Cara here: call me at noon.", idempotency_key="k"
        )
    assert again.pk == message.pk
    outbound = OutboundMessage.objects.get(pk=message.outbound_id)
    assert outbound.kind == OutboundMessage.Kind.HUMAN and outbound.status == OutboundMessage.Status.SENT
    assert [r["form"]["Body"] for r in fake_twilio.sent] == ["Cara here: call me at noon."]
    assert StaffMessage.objects.filter(conversation=cast.conv_a).count() == 1


def test_double_posting_the_composer_stores_one_message(client: Any, cast: Any) -> None:
    conversation, _ = _web_conversation_of_alice(cast)
    client.force_login(cast.cm_a)
    url = reverse("admin:caseload_inbox_act", args=[conversation.pk])
    for _ in range(2):
        client.post(url, {"action": "reply", "body": "Only once", "reply_key": "same-key"})
    assert StaffMessage.objects.filter(conversation=conversation).count() == 1


@pytest.mark.parametrize(
    ("body", "expected"),
    [("", "Type a message first"), ("   ", "Type a message first"), ("x" * 2001, "limited to 2000 characters")],
)
def test_empty_and_too_long_replies_are_refused_and_nothing_is_stored(cast: Any, body: str, expected: str) -> None:
    conversation, _ = _web_conversation_of_alice(cast)
    with pytest.raises(ReplyNotPossible, match=expected):
        inbox_services.conversation_reply(
            conversation_id=conversation.pk, user=cast.cm_a, body=body, idempotency_key="k"
        )
    assert not StaffMessage.objects.exists()


def test_an_sms_reply_over_1600_characters_is_refused(sms_client_of_a: Any) -> None:
    with pytest.raises(ReplyNotPossible, match="limited to 1600 characters"):
        inbox_services.conversation_reply(
            conversation_id=sms_client_of_a.conv_a.pk, user=sms_client_of_a.cm_a, body="y" * 1601, idempotency_key="k"
        )


def test_a_reply_to_an_opted_out_number_is_refused_with_the_reason(client: Any, sms_client_of_a: Any) -> None:
    cast = sms_client_of_a
    Contact.objects.filter(pk=cast.conv_a.contact_id).update(opted_out=True)
    with pytest.raises(ReplyNotPossible, match="replied STOP"):
        inbox_services.conversation_reply(
            conversation_id=cast.conv_a.pk, user=cast.cm_a, body="hi", idempotency_key="k"
        )
    client.force_login(cast.cm_a)
    response = client.post(
        reverse("admin:caseload_inbox_act", args=[cast.conv_a.pk]),
        {"action": "reply", "body": "hi", "reply_key": "k2"},
        follow=True,
    )
    assert "replied STOP" in response.content.decode()
    assert not StaffMessage.objects.exists()
    assert not OutboundMessage.objects.filter(kind=OutboundMessage.Kind.HUMAN).exists()


@pytest.mark.django_db(transaction=True)
def test_two_case_managers_replying_at_once_are_both_stored_in_order(cast: Any) -> None:
    conversation, _ = _web_conversation_of_alice(cast)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def reply(user: Any, text: str) -> None:
        try:
            start.wait()
            inbox_services.conversation_reply(
                conversation_id=conversation.pk, user=user, body=text, idempotency_key=uuid.uuid4().hex
            )
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=reply, args=(cast.cm_a, "from Cara")),
        threading.Thread(target=reply, args=(cast.supervisor, "from Sam")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    rows = list(StaffMessage.objects.filter(conversation=conversation).order_by("created_at"))
    assert sorted(row.body for row in rows) == ["from Cara", "from Sam"]
    assert rows[0].created_at < rows[1].created_at


# --- branding --------------------------------------------------------------------------------


def test_the_admin_is_branded_and_opens_on_the_users_own_counts(client: Any, cast: Any) -> None:
    _turn(cast.conv_a, crisis="suicide_self_harm")
    client.force_login(cast.cm_a)
    html = client.get(reverse("admin:index")).content.decode()
    assert "Django administration" not in html and "Pathways" in html
    assert '<strong data-count="crises">1</strong>' in html
    assert '<strong data-count="approvals">1</strong>' in html
    assert 'id="pw-alert-badge"' in html


def test_conversations_are_named_by_client_or_channel_never_by_a_hex_id(cast: Any) -> None:
    conversation = ConversationFactory(channel="web")
    Conversation.objects.filter(pk=conversation.pk).update(needs_human=True, needs_human_reason="asked_for_human")
    labels = _labels(cast.supervisor)
    assert "Alice Aardvark" in labels
    day = timezone.localtime(conversation.created_at)
    assert f"Web chat, {day.day} {day:%b}" in labels
    assert f"SMS …{cast.oncall_conv.contact.phone_last4}" in labels


def test_admin_strings_are_in_spanish_for_a_spanish_speaking_case_manager(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    html = client.get(reverse("admin:caseload_inbox_changelist"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Bandeja de entrada" in html


def test_staff_messages_past_the_retention_period_are_purged(cast: Any) -> None:
    from conversations.retention import conversations_purge_expired

    conversation, _ = _web_conversation_of_alice(cast)
    old = inbox_services.conversation_reply(
        conversation_id=conversation.pk, user=cast.cm_a, body="old", idempotency_key="o"
    )
    inbox_services.conversation_reply(conversation_id=conversation.pk, user=cast.cm_a, body="new", idempotency_key="n")
    StaffMessage.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=400))
    result = conversations_purge_expired(now=timezone.now())
    assert result["staff_messages"] == 1
    assert list(StaffMessage.objects.values_list("body", flat=True)) == ["new"]


def test_the_thread_previews_what_an_sms_draft_costs_the_person(client: Any, cast: Any) -> None:
    """The approval screen shows the parts and encoding the person would receive (sender.outbound_preview)."""
    client.force_login(cast.cm_a)
    OutboundMessage.objects.filter(pk=cast.msg_a.pk).update(body="¿Dónde está la oficina? " * 8)
    html = client.get(reverse("admin:caseload_inbox_thread", args=[cast.conv_a.pk])).content.decode()
    assert 'class="pw-preview"' in html
    assert "UCS-2" in html or "ucs2" in html.lower()
