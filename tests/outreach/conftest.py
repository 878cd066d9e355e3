"""Outreach fixtures: the real corpus and directory (plans), an SMS sender helper, frozen time."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command

from conversations.models import Contact, OutboundMessage
from conversations.sms.services import inbound_receive
from plans.dates import TZ

PERSON = "+15125550177"
_sids = iter(range(10**9))


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    with django_db_blocker.unblock():
        call_command("corpus", "load", verbosity=0)
        call_command("resources", "load", verbosity=0)


@pytest.fixture(autouse=True)
def _sms_settings(settings: Any) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.SMS_REQUIRE_APPROVAL = True


def local(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=TZ)


@pytest.fixture
def text_in(db: Any) -> Callable[..., Any]:
    """Deliver one inbound SMS from PERSON through the real gateway decision (time is whatever freezegun says)."""

    def send(body: str, *, number: str = PERSON) -> Any:
        return inbound_receive(message_sid=f"SM{next(_sids):032x}", from_number=number, body=body)

    return send


def outbox(purpose_prefix: str = "") -> list[OutboundMessage]:
    return list(OutboundMessage.objects.filter(purpose__startswith=purpose_prefix).order_by("created_at", "id"))


def person() -> Contact:
    return Contact.objects.get(phone_last4=PERSON[-4:])


from tests.caseload.conftest import cast, sms_client_of_a  # noqa: E402, F401 - the caseload cast, reused
