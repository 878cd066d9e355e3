"""Fixtures of the SMS gateway tests: Twilio settings, the fake Twilio server, signed webhook posts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.test import Client

from conversations import background
from conversations.sms import gateway, outbox
from conversations.sms import services as sms_services
from tests.conversations.sms.fake_twilio import FakeTwilio

ACCOUNT_SID = "AC" + "0123456789abcdef" * 2
AUTH_TOKEN = "test-auth-token-0123456789abcdef"
FROM_NUMBER = "+15125550100"
PERSON = "+15125550177"


@pytest.fixture
def fake_twilio(settings: Any) -> Iterator[FakeTwilio]:
    """The real twilio client pointed at a fake Twilio on 127.0.0.1."""
    fake = FakeTwilio(ACCOUNT_SID, AUTH_TOKEN).start()
    settings.TWILIO_API_BASE_URL = fake.url
    gateway.client_reset()
    yield fake
    fake.stop()
    gateway.client_reset()


@pytest.fixture(autouse=True)
def twilio_settings(settings: Any) -> None:
    settings.TWILIO_ACCOUNT_SID = ACCOUNT_SID
    settings.TWILIO_AUTH_TOKEN = AUTH_TOKEN
    settings.TWILIO_FROM_NUMBER = FROM_NUMBER
    settings.TWILIO_API_BASE_URL = "http://127.0.0.1:9"  # discard port: nothing leaves unless a test starts the fake
    settings.PUBLIC_BASE_URL = None
    settings.SECURE_PROXY_SSL_HEADER = None
    settings.SMS_REQUIRE_APPROVAL = True
    settings.CELERY_TASK_ALWAYS_EAGER = True
    gateway.client_reset()


@dataclass
class Dispatched:
    """Background work the webhook queued (recorded instead of run, so tests control when it runs)."""

    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def run_all(self) -> None:
        while self.calls:
            name, args = self.calls.pop(0)
            background.task_for(name).apply(args=list(args), throw=True)


@pytest.fixture
def dispatched(monkeypatch: pytest.MonkeyPatch) -> Dispatched:
    record = Dispatched()
    for module in (sms_services, outbox):
        monkeypatch.setattr(module, "task_dispatch", lambda name, *args: record.calls.append((name, args)))
    return record


def sign(url: str, params: dict[str, str], token: str = AUTH_TOKEN) -> str:
    return gateway.signature_compute(url=url, params=params, token=token)


_counter = iter(range(10**9))


def new_sid() -> str:
    return f"SM{next(_counter):032x}"


@pytest.fixture
def post_sms(client: Client, django_capture_on_commit_callbacks: Callable[..., Any]) -> Callable[..., Any]:
    """POST a correctly signed inbound SMS webhook; on-commit callbacks run (dispatch is faked separately)."""

    def post(
        body: str,
        *,
        sid: str | None = None,
        sender: str = PERSON,
        headers: dict[str, str] | None = None,
        url: str = "http://testserver/sms/twilio/inbound",
    ) -> Any:
        params = {
            "MessageSid": sid or new_sid(),
            "AccountSid": ACCOUNT_SID,
            "From": sender,
            "To": FROM_NUMBER,
            "Body": body,
            "NumMedia": "0",
        }
        extra = {"HTTP_X_TWILIO_SIGNATURE": sign(url, params)}
        for key, value in (headers or {}).items():
            extra["HTTP_" + key.upper().replace("-", "_")] = value
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post("/sms/twilio/inbound", params, **extra)
        response.sid = params["MessageSid"]
        return response

    return post


@pytest.fixture
def post_status(client: Client, django_capture_on_commit_callbacks: Callable[..., Any]) -> Callable[..., Any]:
    def post(sid: str, status: str, *, error_code: str = "", message_id: str | None = None) -> Any:
        path = "/sms/twilio/status" + (f"?m={message_id}" if message_id else "")
        params = {"MessageSid": sid, "MessageStatus": status, "AccountSid": ACCOUNT_SID}
        if error_code:
            params["ErrorCode"] = error_code
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, params, HTTP_X_TWILIO_SIGNATURE=sign("http://testserver" + path, params))

    return post
