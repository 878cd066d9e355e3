"""The fixed cast of the caseload tests.

Case manager A (`cm_a`) has Alice; case manager B (`cm_b`) has Bob; a supervisor; an admin; a partner
editor. Alice and Bob each have an SMS conversation with one turn (with a node run) and one reply
waiting for approval. A flagged conversation nobody is assigned to sits in the on-call queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from caseload import roles
from tests.caseload.factories import (
    ConversationFactory,
    NodeRunFactory,
    OutboundFactory,
    TurnFactory,
    UserFactory,
    client_with_conversation,
)

PASSWORD = "a-long-test-password-42"


@dataclass
class Cast:
    admin: Any
    supervisor: Any
    cm_a: Any
    cm_b: Any
    partner: Any
    alice: Any
    bob: Any
    conv_a: Any
    conv_b: Any
    turn_a: Any
    turn_b: Any
    msg_a: Any
    msg_b: Any
    oncall_conv: Any

    def user(self, role: str) -> Any:
        return {
            "admin": self.admin,
            "supervisor": self.supervisor,
            "case_manager": self.cm_a,
            "partner_editor": self.partner,
        }[role]


@pytest.fixture
def cast(db: Any) -> Cast:
    admin = UserFactory(username="ada-admin", role=roles.ADMIN)
    get_user_model().objects.filter(pk=admin.pk).update(is_superuser=True)
    admin.refresh_from_db()
    supervisor = UserFactory(username="sam-supervisor", role=roles.SUPERVISOR)
    cm_a = UserFactory(username="cara-cm", role=roles.CASE_MANAGER)
    cm_b = UserFactory(username="ben-cm", role=roles.CASE_MANAGER)
    partner = UserFactory(username="pat-partner", role=roles.PARTNER_EDITOR)
    alice, conv_a = client_with_conversation(name="Alice Aardvark", case_manager=cm_a)
    bob, conv_b = client_with_conversation(name="Bob Bobolink", case_manager=cm_b)
    turn_a = TurnFactory(conversation=conv_a, seq=1, redacted_text="Alice asks where to get a state ID")
    turn_b = TurnFactory(conversation=conv_b, seq=1, redacted_text="Bob asks about housing vouchers")
    NodeRunFactory(turn=turn_a)
    NodeRunFactory(turn=turn_b)
    msg_a = OutboundFactory(turn=turn_a)
    msg_b = OutboundFactory(turn=turn_b)
    oncall_conv = ConversationFactory(needs_human=True, needs_human_reason="asked_for_human")
    return Cast(
        admin, supervisor, cm_a, cm_b, partner, alice, bob, conv_a, conv_b, turn_a, turn_b, msg_a, msg_b, oncall_conv
    )


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """PBKDF2 at production strength costs ~0.3 s per user; the cast has five."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


TWILIO_SID = "AC" + "fedcba9876543210" * 2
TWILIO_TOKEN = "caseload-test-token-0123456789ab"


@pytest.fixture
def fake_twilio(settings: Any) -> Any:
    """The SMS engineer's fake Twilio REST server on 127.0.0.1, with the real twilio client pointed at it."""
    from conversations.sms import gateway
    from tests.conversations.sms.fake_twilio import FakeTwilio

    fake = FakeTwilio(TWILIO_SID, TWILIO_TOKEN).start()
    settings.TWILIO_ACCOUNT_SID = TWILIO_SID
    settings.TWILIO_AUTH_TOKEN = TWILIO_TOKEN
    settings.TWILIO_FROM_NUMBER = "+15125550100"
    settings.TWILIO_API_BASE_URL = fake.url
    settings.PUBLIC_BASE_URL = None
    settings.CELERY_TASK_ALWAYS_EAGER = True
    gateway.client_reset()
    yield fake
    fake.stop()
    gateway.client_reset()


@pytest.fixture
def sms_client_of_a(cast: Cast) -> Any:
    """Alice's conversation with a real (fictional, encrypted) phone number, so a send can happen."""
    from caseload.models import ClientContact
    from conversations.services import contact_for_phone

    contact, _ = contact_for_phone(phone="+15125550142")
    ClientContact.objects.filter(client=cast.alice).delete()
    ClientContact.objects.create(client=cast.alice, contact=contact)
    cast.conv_a.contact = contact
    cast.conv_a.save(update_fields=["contact"])
    contact.consent_version = "test"  # the first-contact notice is the SMS engineer's concern
    contact.save(update_fields=["consent_version"])
    return cast
