"""X-Twilio-Signature: only correctly signed webhooks are read; everything else is a 403 and a counted metric."""

from __future__ import annotations

import pytest
from django.db.models import Sum

from audit.log import AuditEvent
from conversations.models import Contact, InboundSms, MetricCounter, Turn
from tests.conversations.sms.conftest import ACCOUNT_SID, FROM_NUMBER, PERSON, new_sid, sign

pytestmark = pytest.mark.django_db

PATH = "/sms/twilio/inbound"


def params(body: str = "need a job in dallas") -> dict[str, str]:
    return {"MessageSid": new_sid(), "AccountSid": ACCOUNT_SID, "From": PERSON, "To": FROM_NUMBER, "Body": body}


def rejected(reason: str, endpoint: str = "inbound") -> int:
    return (
        MetricCounter.objects.filter(name=f"sms.signature_rejected.{endpoint}.{reason}").aggregate(n=Sum("count"))["n"]
        or 0
    )


def nothing_stored() -> bool:
    return not InboundSms.objects.exists() and not Contact.objects.exists() and not Turn.objects.exists()


def test_it_accepts_a_valid_signature_and_answers_empty_twiml(client, dispatched) -> None:
    form = params()
    response = client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=sign("http://testserver" + PATH, form))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/xml")
    assert response.content.decode().endswith("<Response/>")
    assert InboundSms.objects.filter(message_sid=form["MessageSid"]).count() == 1


def test_it_rejects_an_invalid_signature_and_stores_nothing(client) -> None:
    form = params()
    response = client.post(
        PATH, form, HTTP_X_TWILIO_SIGNATURE=sign("http://testserver" + PATH, form, token="not-the-token")
    )
    assert response.status_code == 403
    assert nothing_stored()
    assert rejected("invalid") == 1


def test_it_rejects_a_tampered_body(client) -> None:
    form = params("hello")
    signature = sign("http://testserver" + PATH, form)
    form["Body"] = "STOP"
    assert client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=signature).status_code == 403
    assert nothing_stored()


def test_it_rejects_a_missing_signature(client) -> None:
    response = client.post(PATH, params())
    assert response.status_code == 403
    assert nothing_stored()
    assert rejected("missing") == 1


def test_it_rejects_a_signature_for_another_url(client) -> None:
    form = params()
    response = client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=sign("http://testserver/sms/twilio/status", form))
    assert response.status_code == 403
    assert nothing_stored()


def test_it_rejects_everything_when_no_auth_token_is_configured(client, settings) -> None:
    form = params()
    signature = sign("http://testserver" + PATH, form)
    settings.TWILIO_AUTH_TOKEN = None
    assert client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=signature).status_code == 403
    assert rejected("not_configured") == 1


def test_it_validates_the_https_url_behind_a_tls_proxy(client, settings, dispatched) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    form = params()
    signature = sign("https://testserver" + PATH, form)  # what Twilio signed: the public https URL
    assert client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=signature).status_code == 403  # proxy header missing
    response = client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=signature, HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 200
    assert InboundSms.objects.count() == 1


def test_it_ignores_x_forwarded_proto_when_no_proxy_is_configured(client, dispatched) -> None:
    form = params()
    signature = sign("https://testserver" + PATH, form)
    # Without SECURE_PROXY_SSL_HEADER a client-supplied header must not change the URL we check.
    assert client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=signature, HTTP_X_FORWARDED_PROTO="https").status_code == 403


def test_it_validates_against_the_configured_public_base_url(client, settings, dispatched) -> None:
    settings.PUBLIC_BASE_URL = "https://pathways.example.org/"
    form = params()
    assert client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=sign("http://testserver" + PATH, form)).status_code == 403
    response = client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=sign("https://pathways.example.org" + PATH, form))
    assert response.status_code == 200


def test_it_accepts_the_public_url_with_its_default_port(client, settings, dispatched) -> None:
    settings.PUBLIC_BASE_URL = "https://pathways.example.org"
    form = params()
    response = client.post(PATH, form, HTTP_X_TWILIO_SIGNATURE=sign("https://pathways.example.org:443" + PATH, form))
    assert response.status_code == 200


def test_the_status_callback_needs_a_signature_too(client) -> None:
    form = {"MessageSid": "SM" + "a" * 32, "MessageStatus": "delivered"}
    assert client.post("/sms/twilio/status", form).status_code == 403
    assert (
        client.post(
            "/sms/twilio/status", form, HTTP_X_TWILIO_SIGNATURE=sign("http://testserver/sms/twilio/inbound", form)
        ).status_code
        == 403
    )
    assert rejected("missing", "status") + rejected("invalid", "status") == 2


def test_a_flood_of_forged_webhooks_is_one_counter_row_not_an_audit_row_each(client, admin_client) -> None:
    audit_rows = AuditEvent.objects.count()
    for _ in range(25):
        assert client.post(PATH, params()).status_code == 403
    assert AuditEvent.objects.count() == audit_rows  # the audit chain lock is never taken for a forgery
    assert MetricCounter.objects.count() == 1 and rejected("missing") == 25
    assert nothing_stored()
    from caseload.dashboard import dashboard_metrics

    assert dashboard_metrics(days=1).webhook_rejections == 25


def test_it_only_accepts_post(client) -> None:
    assert client.get(PATH).status_code == 405
