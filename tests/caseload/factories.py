"""factory_boy factories for caseload tests: staff users, clients, SMS contacts, conversations, turns, outbox rows."""

from __future__ import annotations

import itertools
from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from caseload.models import Client, ClientContact
from conversations.models import Contact, Conversation, NodeRun, OutboundMessage, Turn

_phones = itertools.count(1)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"staff{n}")
    is_staff = True
    password = factory.PostGenerationMethodCall("set_password", "a-long-test-password-42")

    @factory.post_generation
    def role(self, create: bool, extracted: str | None, **kwargs: Any) -> None:
        if extracted:
            self.groups.add(Group.objects.get(name=extracted))
        self.save()


class ContactFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Contact

    channel = "sms"
    phone_hash = factory.LazyFunction(lambda: f"hash-{next(_phones):06d}")
    phone_last4 = factory.LazyAttribute(lambda o: o.phone_hash[-4:])
    phone_encrypted = "not-a-real-ciphertext"


class ClientFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Client

    name = factory.Sequence(lambda n: f"Client {n}")
    status = Client.Status.ACTIVE
    supervision_type = Client.Supervision.PAROLE


class ConversationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Conversation

    contact = factory.SubFactory(ContactFactory)
    channel = "sms"


class TurnFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Turn

    conversation = factory.SubFactory(ConversationFactory)
    seq = factory.Sequence(lambda n: n + 1)
    idempotency_key = factory.Sequence(lambda n: f"key-{n}")
    channel = "sms"
    redacted_text = "Where can I get a state ID?"
    status = Turn.Status.WAITING_APPROVAL
    workflow_version = "test"
    started_at = factory.LazyFunction(timezone.now)
    state = factory.LazyFunction(
        lambda: {
            "evidence": [
                {
                    "slug": "tx-id",
                    "citation": "Tex. Transp. Code § 521.142",
                    "url": "https://statutes.capitol.texas.gov/",
                    "title": "ID",
                    "assertable": True,
                }
            ],
            "audit": {
                "verdict": "pass",
                "findings": [{"rule": "tone", "verdict": "pass", "message": "plain language"}],
            },
            "retrieval": {"confidence": 0.8, "gated": False},
        }
    )


class NodeRunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = NodeRun

    turn = factory.SubFactory(TurnFactory)
    step = 1
    node = "intake"
    projection = factory.LazyFunction(lambda: {"text": "Where can I get a state ID?", "channel": "sms"})
    output = factory.LazyFunction(lambda: {"top_need": "id_documents"})
    outcome = "ok"
    transition = "intake→retrieve"
    ms = 1.5


class OutboundFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = OutboundMessage

    conversation = factory.SelfAttribute("turn.conversation")
    turn = factory.SubFactory(TurnFactory)
    kind = OutboundMessage.Kind.REPLY
    body = "You can apply at DPS. Tex. Transp. Code § 521.142 lists the documents."
    draft_body = factory.SelfAttribute("body")
    status = OutboundMessage.Status.PENDING_APPROVAL


def client_with_conversation(*, name: str, case_manager: Any, **client_fields: Any) -> tuple[Client, Conversation]:
    """A client, one linked SMS contact and its conversation."""
    client = ClientFactory(name=name, case_manager=case_manager, **client_fields)
    conversation = ConversationFactory()
    ClientContact.objects.create(client=client, contact=conversation.contact, linked_by="test")
    return client, conversation
