"""Redis down: web turns still complete, SMS webhooks still answer 200 and nothing is lost, approved sends go once.

The broker, the result backend, the cache and the channel layer all point at a port where nothing
listens. Before the fix `task_dispatch` blocked ~20 s on the result backend and then raised out of
the webhook's on-commit hook (500; the turn stayed unstarted), and the chat's rate limit raised
on the dead cache (500 on every web turn).
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client as HttpClient
from django.test import override_settings

from conversations import background, services
from conversations.models import InboundSms, OutboundMessage, Turn
from conversations.sms import gateway
from conversations.sms.outbox import outbound_approve
from conversations.web.services import NOTICE_VERSION
from pathways_site.celery import app as celery_app
from tests.conversations.sms.conftest import ACCOUNT_SID, FROM_NUMBER, new_sid, sign

pytestmark = pytest.mark.django_db(transaction=True)


def _dead_url() -> str:
    with socket.socket() as probe:  # a port that was free a moment ago: connections are refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


@pytest.fixture
def redis_down(settings: Any) -> Iterator[str]:
    url = _dead_url()
    saved = (celery_app.conf.broker_url, celery_app.conf.result_backend)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    celery_app.conf.broker_url = url
    celery_app.conf.result_backend = url
    celery_app._pool = None
    celery_app.__dict__.pop("backend", None)
    celery_app.amqp._producer_pool = None
    caches = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}
    layers = {"default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer", "CONFIG": {"hosts": [url]}}}
    with override_settings(CACHES=caches, CHANNEL_LAYERS=layers):
        yield url
    celery_app.conf.broker_url, celery_app.conf.result_backend = saved
    celery_app._pool = None
    celery_app.__dict__.pop("backend", None)
    celery_app.amqp._producer_pool = None


def _post_sms(body: str, sid: str | None = None, sender: str = "+15125550177") -> Any:
    url = "http://testserver/sms/twilio/inbound"
    params = {
        "MessageSid": sid or new_sid(),
        "AccountSid": ACCOUNT_SID,
        "From": sender,
        "To": FROM_NUMBER,
        "Body": body,
        "NumMedia": "0",
    }
    started = time.monotonic()
    response = HttpClient().post("/sms/twilio/inbound", params, HTTP_X_TWILIO_SIGNATURE=sign(url, params))
    response.elapsed = time.monotonic() - started
    response.sid = params["MessageSid"]
    return response


def test_an_sms_webhook_answers_200_at_once_and_its_turn_still_runs(redis_down: str) -> None:
    response = _post_sms("I need food in Austin")
    assert response.status_code == 200 and b"<Response" in response.content
    assert response.elapsed < 5.0
    assert background.background_join(timeout=60)
    inbound = InboundSms.objects.get(message_sid=response.sid)
    turn = Turn.objects.get(pk=inbound.turn_id)
    assert turn.is_finished
    assert turn.outbound_messages.count() == 1


def test_a_twilio_retry_while_redis_is_down_is_still_one_row_and_one_turn(redis_down: str) -> None:
    first = _post_sms("need a job in Dallas")
    again = _post_sms("need a job in Dallas", sid=first.sid)
    assert first.status_code == again.status_code == 200
    assert background.background_join(timeout=60)
    assert InboundSms.objects.filter(message_sid=first.sid).count() == 1
    assert Turn.objects.count() == 1 and Turn.objects.get().is_finished


def test_a_web_turn_completes_with_the_cache_and_broker_down(redis_down: str) -> None:
    http = HttpClient()
    created = http.post("/api/v1/conversations/", {"language": "en"}, content_type="application/json").json()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {created['token']}"}
    http.post(
        f"/api/v1/conversations/{created['conversation_id']}/consent",
        {"version": NOTICE_VERSION},
        content_type="application/json",
        **auth,
    )
    url = f"/api/v1/conversations/{created['conversation_id']}/turns/"
    waited = http.post(url, {"text": "where can I get an ID in Houston"}, content_type="application/json", **auth)
    assert waited.status_code == 201, waited.content[:500]
    assert waited.json()["status"] in ("completed", "escalated") and waited.json()["reply"]
    queued = http.post(url, {"text": "and food in Houston?", "wait": False}, content_type="application/json", **auth)
    assert queued.status_code == 202, queued.content[:500]
    assert background.background_join(timeout=60)
    assert Turn.objects.get(pk=queued.json()["turn_id"]).is_finished


def test_an_approved_sms_is_sent_once_while_the_broker_is_down(redis_down: str, fake_twilio: Any) -> None:
    contact, _ = services.contact_for_phone(phone="+15125550177")
    conversation, _ = services.conversation_create(channel="sms", contact=contact)
    message = OutboundMessage.objects.create(
        conversation=conversation, kind="reply", body="Call 2-1-1.", draft_body="Call 2-1-1.", status="pending_approval"
    )
    fake_twilio.fail_next(503)  # and Twilio has a bad moment too: retried, still sent once
    outbound_approve(message_id=message.pk, actor="cm")
    assert background.background_join(timeout=60)
    message.refresh_from_db()
    assert message.status == "sent"
    assert len(fake_twilio.sent) == 1
    gateway.client_reset()


def test_dispatch_falls_back_in_process_quickly_when_the_broker_refuses(redis_down: str) -> None:
    from pathways_site.celery import ping

    started = time.monotonic()
    background.task_dispatch(ping.name, uuid.uuid4().hex)
    assert time.monotonic() - started < 5.0
    assert background.background_join(timeout=10)
