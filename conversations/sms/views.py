"""Twilio webhooks: `POST /sms/twilio/inbound` and `POST /sms/twilio/status`.

Both verify X-Twilio-Signature against the public URL Twilio called before reading anything; a
missing or wrong signature is a 403 and a counted metric (see conversations.metrics), and nothing else is stored. The inbound
webhook records the message and answers empty TwiML at once: the turn runs elsewhere.
"""

from __future__ import annotations

import logging
import uuid

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from conversations import metrics
from conversations.crypto import InvalidPhoneNumber
from conversations.sms import gateway, outbox, services

logger = logging.getLogger(__name__)

EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>'
IDEMPOTENCY_HEADER = "I-Twilio-Idempotency-Token"


class InboundForm(BaseModel):
    # Twilio posts ~20 fields and adds new ones over time; the signature already proves the sender,
    # so unknown fields are ignored rather than forbidden. Only what we use is validated.
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    MessageSid: str = Field(min_length=2, max_length=64, pattern=r"^[A-Za-z0-9]+$")
    From: str = Field(min_length=3, max_length=40)
    Body: str = Field(default="", max_length=5000)


class StatusForm(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    MessageSid: str = Field(min_length=2, max_length=64, pattern=r"^[A-Za-z0-9]+$")
    MessageStatus: str = Field(min_length=1, max_length=30)
    ErrorCode: str = Field(default="", max_length=20)


def public_url(request: HttpRequest) -> str:
    """The URL Twilio signed: PUBLIC_BASE_URL + path when configured, else the proxy-aware absolute URI."""
    base = settings.PUBLIC_BASE_URL
    if base:
        return base.rstrip("/") + request.get_full_path()
    # build_absolute_uri() takes the scheme from SECURE_PROXY_SSL_HEADER (X-Forwarded-Proto) when set.
    return request.build_absolute_uri()


def _signed(request: HttpRequest, endpoint: str) -> bool:
    signature = request.headers.get(gateway.SIGNATURE_HEADER)
    if signature and gateway.signature_valid(
        url=public_url(request),
        params=request.POST,
        signature=signature,
        settings_header=request.headers.get(gateway.SIGNATURE_SETTINGS_HEADER),
    ):
        return True
    reason = "missing" if not signature else ("not_configured" if not settings.TWILIO_AUTH_TOKEN else "invalid")
    # Counted, not audited: anyone can post here without a login, and an audit row each would let a
    # flood of forgeries queue every real audit write behind the one chain lock.
    metrics.metric_count(name=f"{metrics.SMS_SIGNATURE_REJECTED}.{endpoint}.{reason}")
    logger.warning("rejected %s webhook: %s signature", endpoint, reason)
    return False


def _twiml(status: int = 200) -> HttpResponse:
    return HttpResponse(EMPTY_TWIML, content_type="text/xml", status=status)


@csrf_exempt
@require_POST
def inbound(request: HttpRequest) -> HttpResponse:
    """Record a signed inbound SMS once, queue its turn, answer empty TwiML."""
    if not _signed(request, "inbound"):
        return HttpResponse("Forbidden", status=403, content_type="text/plain")
    try:
        form = InboundForm.model_validate(request.POST.dict())
    except ValidationError:
        logger.warning("signed inbound webhook with malformed fields")
        return HttpResponse("Bad request", status=400, content_type="text/plain")
    try:
        services.inbound_receive(
            message_sid=form.MessageSid,
            from_number=form.From,
            body=form.Body,
            idempotency_token=request.headers.get(IDEMPOTENCY_HEADER, ""),
        )
    except InvalidPhoneNumber:
        # A short code or alphanumeric sender: nothing to answer; 200 so Twilio does not retry.
        logger.warning("inbound SMS from a number that is not E.164-normalizable; ignored")
    return _twiml()


@csrf_exempt
@require_POST
def status(request: HttpRequest) -> HttpResponse:
    """Apply a signed delivery-status callback (queued/sent/delivered/undelivered/failed + ErrorCode)."""
    if not _signed(request, "status"):
        return HttpResponse("Forbidden", status=403, content_type="text/plain")
    try:
        form = StatusForm.model_validate(request.POST.dict())
    except ValidationError:
        return HttpResponse("Bad request", status=400, content_type="text/plain")
    outbox.outbound_status_record(
        message_sid=form.MessageSid,
        status=form.MessageStatus.lower(),
        error_code=form.ErrorCode,
        message_id=_uuid_or_none(request.GET.get("m")),
    )
    return HttpResponse(status=204)


def _uuid_or_none(value: str | None) -> str | None:
    try:
        return str(uuid.UUID(value)) if value else None
    except ValueError:
        return None
