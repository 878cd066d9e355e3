"""The one wrapper of the twilio SDK: webhook signature checks and sending a message.

Everything else talks to Twilio through `signature_valid` and `send_sms`, and sees one error type,
`SmsError`, that says whether a retry can help. Tests point the real REST client at a fake HTTP
server with TWILIO_API_BASE_URL (the client's `api.base_url`), so the SDK's own request building,
auth and error parsing are exercised.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import requests
from django.conf import settings
from twilio.base.exceptions import TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.request_validator import RequestValidator, get_signature_algorithm
from twilio.rest import Client
from urllib3.exceptions import NameResolutionError, NewConnectionError

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Twilio-Signature"
SIGNATURE_SETTINGS_HEADER = "X-Twilio-Webhooks-Signature-Settings"
SEND_TIMEOUT_SECONDS = 10.0

# Twilio error codes where the same request can never succeed (docs: twilio.com/docs/api/errors).
# 21211 invalid 'To' number, 21614 'To' is not a mobile number, 21610 the recipient replied STOP.
# Codes are kept as the strings SmsError.code and the status callback's ErrorCode carry.
PERMANENT_CODES = frozenset({"21211", "21614", "21610", "21408", "21612", "21606"})
OPTED_OUT_CODE = "21610"


class SmsError(Exception):
    """A failed send; `permanent` says a retry cannot help (bad number, opted out, or an ambiguous send)."""

    def __init__(self, message: str, *, permanent: bool, code: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.permanent = permanent
        self.code = code


@dataclass(frozen=True)
class SentSms:
    sid: str
    status: str


def configured() -> bool:
    """True when the account, token and sender number are all set."""
    return bool(settings.TWILIO_ACCOUNT_SID and settings.TWILIO_AUTH_TOKEN and settings.TWILIO_FROM_NUMBER)


def signature_valid(
    *, url: str, params: Mapping[str, object], signature: str | None, settings_header: str | None = None
) -> bool:
    """Check X-Twilio-Signature for a form POST to `url` (the public URL Twilio called)."""
    token = settings.TWILIO_AUTH_TOKEN
    if not token or not signature:
        return False
    algorithm = get_signature_algorithm(settings_header)
    return bool(RequestValidator(token).validate(url, params, signature, algorithm=algorithm))


def signature_compute(*, url: str, params: Mapping[str, object], token: str | None = None) -> str:
    """The signature Twilio would send (used by tests and the benchmark to sign requests)."""
    return RequestValidator(token or settings.TWILIO_AUTH_TOKEN or "").compute_signature(url, params)


class _QuietHttpClient(TwilioHttpClient):
    """The SDK's HTTP client with a timeout and without its INFO request logging."""

    def __init__(self) -> None:
        quiet = logging.getLogger("pathways.twilio_http")
        quiet.setLevel(logging.WARNING)
        super().__init__(timeout=SEND_TIMEOUT_SECONDS, logger=quiet)
        # Plain-http fake servers in tests use the session too: no retries below ours.
        if self.session is not None:
            self.session.mount("http://", requests.adapters.HTTPAdapter(max_retries=0))


def _never_connected(exc: requests.ConnectionError) -> bool:
    """True when the TCP connection was never made (refused, DNS, connect timeout)."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, NewConnectionError | NameResolutionError)


@lru_cache(maxsize=4)
def _client(account_sid: str, auth_token: str, base_url: str | None) -> Client:
    client = Client(account_sid, auth_token, http_client=_QuietHttpClient())
    if base_url:
        # Domain.absolute_url joins base_url and the version path: the supported override point.
        client.api.base_url = base_url.rstrip("/")
    return client


def client_reset() -> None:
    """Forget cached clients (settings changed, e.g. in tests)."""
    _client.cache_clear()


def send_sms(*, to: str, body: str, status_callback: str | None = None) -> SentSms:
    """Create one message through the REST API; raises SmsError.

    A timeout after the request left is ambiguous (Twilio may have accepted it), so it is reported as
    permanent: the caller must not resend automatically, or the person could get the text twice.
    """
    sender = settings.TWILIO_FROM_NUMBER
    if not configured() or not sender:  # configured() requires the sender too; the second test narrows its type
        raise SmsError("Twilio is not configured", permanent=True, code="not_configured")
    client = _client(settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN, settings.TWILIO_API_BASE_URL)
    kwargs: dict[str, str] = {"to": to, "from_": sender, "body": body}
    if status_callback:
        kwargs["status_callback"] = status_callback
    try:
        message = client.api.v2010.accounts(settings.TWILIO_ACCOUNT_SID).messages.create(**kwargs)
    except TwilioRestException as exc:
        code = str(int(exc.code)) if exc.code is not None else ""
        permanent = code in PERMANENT_CODES or (400 <= exc.status < 500 and exc.status != 429)
        raise SmsError(
            f"Twilio refused the message (HTTP {exc.status})", permanent=permanent, code=code or str(exc.status)
        ) from None
    except requests.ConnectionError as exc:
        if _never_connected(exc):
            # Nothing reached Twilio: safe to retry with backoff.
            raise SmsError("cannot reach Twilio", permanent=False, code="connection") from None
        # The connection broke after the request may have left: ambiguous, like a read timeout.
        raise SmsError(
            "connection to Twilio broke mid-request; not resent automatically",
            permanent=True,
            code="connection_ambiguous",
        ) from None
    except requests.Timeout:
        raise SmsError(
            "Twilio did not answer in time; not resent automatically", permanent=True, code="timeout_ambiguous"
        ) from None
    except requests.RequestException:
        raise SmsError("HTTP error talking to Twilio", permanent=False, code="http") from None
    return SentSms(sid=str(message.sid or ""), status=str(message.status or ""))
