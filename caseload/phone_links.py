"""Consented phone links: a number joins a caseload only when the person texts YES, and leaves on STOP SHARING.

"Link an SMS number" used to attach any number silently, and the scope rule then showed its whole
SMS history to the case manager; its error for a number of another client confirmed that the
person uses Pathways. Now the request becomes a `PhoneLinkRequest` and the person gets one SMS
("Reply YES to let your case manager at <org> see your messages"); only their YES creates the
`ClientContact` that the scope rule reads. The case manager always gets the same answer
(`NEUTRAL_ANSWER`), whatever the number's history; supervisors see the requests in admin.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Final

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from caseload import selectors
from caseload.errors import NotInCaseload, NotPermitted, ReplyNotPossible
from caseload.models import Client, ClientContact, PhoneLinkRequest
from conversations.models import Contact, Conversation, OutboundMessage
from vocab import fold

# A request the person has not answered in this time no longer counts: a YES weeks later is not for it.
LINK_WINDOW: Final = timedelta(days=7)
# A second request for the same number within this time sends no second text.
RESEND_AFTER: Final = timedelta(hours=24)
NEUTRAL_ANSWER: Final = (
    "If this number can receive texts, the person will get a text asking them to reply YES. "
    "Their messages appear here only after they do."
)

TEXTS: Final[dict[str, dict[str, str]]] = {
    "link_request": {
        "en": "Pathways: Reply YES to let your case manager at {org} see your messages. Ignore this text to say no.",
        "es": (
            "Pathways: Responda SI para que su administrador de casos en {org} pueda ver sus mensajes. "
            "Ignore este mensaje para decir que no."
        ),
    },
    "link_confirmed": {
        "en": "Pathways: your case manager at {org} can now see your messages. Reply STOP SHARING to undo.",
        "es": (
            "Pathways: su administrador de casos en {org} ya puede ver sus mensajes. "
            "Responda NO COMPARTIR para deshacerlo."
        ),
    },
    "link_revoked": {
        "en": "Pathways: no case manager can see your messages from now on. Reply HELP for help.",
        "es": "Pathways: desde ahora ningún administrador de casos puede ver sus mensajes. Responda AYUDA para ayuda.",
    },
}

_YES: Final = re.compile(r"^(?:YES|Y|SI|OK|OKAY)$")
_STOP_SHARING: Final = re.compile(r"^(?:STOP ?SHARING|NO ?COMPARTIR|DEJAR DE COMPARTIR)$")
_SPANISH: Final = {"SI", "NOCOMPARTIR", "NO COMPARTIR", "DEJAR DE COMPARTIR"}


def organization_name() -> str:
    """The name the person knows their case manager's organization by (setting ORGANIZATION_NAME)."""
    return str(getattr(settings, "ORGANIZATION_NAME", "") or "Pathways")


def keyword_fold(body: str) -> str:
    """Upper case, no accents, punctuation and extra spaces removed ("Sí." -> "SI")."""
    return " ".join(re.sub(r"[^A-Z ]+", " ", fold(body or "").upper()).split())


def is_yes(body: str) -> bool:
    return len(body) <= 20 and bool(_YES.match(keyword_fold(body)))


def text_for(key: str, language: str) -> str:
    table = TEXTS[key]
    return (table.get(language) or table["en"]).format(org=organization_name())


def _require_change(user: Any) -> None:
    if not (user and user.is_authenticated and user.is_active and user.has_perm("caseload.change_client")):
        raise NotPermitted("You do not have permission to do this.")


def _sms_conversation(contact: Contact) -> Conversation:
    conversation = contact.conversations.filter(channel="sms").order_by("-created_at").first()
    if conversation is None:
        from conversations.services import conversation_create

        conversation, _token = conversation_create(channel="sms", contact=contact, language=contact.language)
    return conversation


def _send(contact: Contact, *, purpose: str, key: str, language: str | None = None) -> OutboundMessage:
    """One fixed text through the outbox (sent after commit by the SMS sender)."""
    from conversations.sms.outbox import outbox_put

    conversation = _sms_conversation(contact)
    message = outbox_put(
        conversation=conversation,
        body=text_for(key, language or contact.language),
        kind=OutboundMessage.Kind.KEYWORD,
        status=OutboundMessage.Status.APPROVED,
        purpose=purpose,
    )
    return message


def phone_link_request(*, client: Client, phone: str, user: Any) -> str:
    """Ask the person behind `phone` to let `client`'s case manager see their messages; returns the
    answer to show, the same whatever the number's history (so it reveals nothing)."""
    from conversations.services import contact_for_phone

    _require_change(user)
    if not selectors.client_queryset(user=user).filter(pk=client.pk).exists():
        raise NotInCaseload("This client is not in your caseload.")
    try:
        contact, _ = contact_for_phone(phone=phone)
    except ValueError as exc:
        raise ReplyNotPossible(f"That phone number is not valid: {exc}") from None
    with transaction.atomic():
        contact = Contact.objects.select_for_update().get(pk=contact.pk)
        existing = ClientContact.objects.filter(contact=contact).first()
        status = _request_status(contact=contact, existing=existing, client=client, user=user)
        if status == PhoneLinkRequest.Status.PENDING:
            # A new question replaces an older one: the person's YES answers the text they just got.
            PhoneLinkRequest.objects.filter(contact=contact, status=PhoneLinkRequest.Status.PENDING).update(
                status=PhoneLinkRequest.Status.SUPERSEDED, decided_at=timezone.now()
            )
        if status is not None:
            request = PhoneLinkRequest.objects.create(
                client=client, contact=contact, requested_by=user.get_username(), status=status
            )
            if status == PhoneLinkRequest.Status.PENDING:
                _send(contact, purpose="link_request", key="link_request")
            audit_event_record(
                action="caseload.phone_link_requested",
                actor=f"user:{user.pk}",
                object_type="client",
                object_id=client.pk,
                data={"request": str(request.pk), "status": status},
            )
    return NEUTRAL_ANSWER


def _request_status(*, contact: Contact, existing: ClientContact | None, client: Client, user: Any) -> str | None:
    """What the request becomes; None when there is nothing to ask (already this client's number)."""
    if existing is not None and existing.client_id == client.pk:
        return None
    if existing is not None and not selectors.sees_all(user):
        # Moving a number between caseloads would hand one person's messages to another case manager.
        return PhoneLinkRequest.Status.HELD
    open_request = (
        PhoneLinkRequest.objects.filter(
            contact=contact, status=PhoneLinkRequest.Status.PENDING, created_at__gte=timezone.now() - RESEND_AFTER
        )
        .values_list("client_id", flat=True)
        .first()
    )
    if open_request == client.pk:
        return None  # asked already today: one text, not one per click
    if open_request is not None and not selectors.sees_all(user):
        return PhoneLinkRequest.Status.HELD  # another client's question is open: the person's YES stays theirs
    if contact.opted_out:
        return PhoneLinkRequest.Status.NOT_SENT
    return PhoneLinkRequest.Status.PENDING


def pending_request(*, contact: Contact, now: datetime) -> PhoneLinkRequest | None:
    """The contact's open link request (the newest, within LINK_WINDOW), locked."""
    return (
        PhoneLinkRequest.objects.select_for_update()
        .filter(contact=contact, status=PhoneLinkRequest.Status.PENDING, created_at__gte=now - LINK_WINDOW)
        .order_by("-created_at")
        .first()
    )


def phone_link_confirm(*, request: PhoneLinkRequest, language: str, now: datetime) -> ClientContact:
    """The person said YES: the number becomes the client's (moved from another client if a supervisor asked)."""
    link, _ = ClientContact.objects.update_or_create(
        contact_id=request.contact_id, defaults={"client_id": request.client_id, "linked_by": request.requested_by}
    )
    PhoneLinkRequest.objects.filter(pk=request.pk).update(status=PhoneLinkRequest.Status.CONFIRMED, decided_at=now)
    audit_event_record(
        action="caseload.phone_link_confirmed",
        actor=f"contact:{request.contact_id}",
        object_type="client",
        object_id=request.client_id,
        data={"request": str(request.pk)},
    )
    _send(request.contact, purpose="link_confirmed", key="link_confirmed", language=language)
    return link


def phone_link_revoke(*, contact: Contact, language: str, now: datetime) -> int:
    """STOP SHARING: no case manager sees this number's messages any more; returns links removed."""
    removed, _ = ClientContact.objects.filter(contact=contact).delete()
    PhoneLinkRequest.objects.filter(contact=contact, status=PhoneLinkRequest.Status.PENDING).update(
        status=PhoneLinkRequest.Status.EXPIRED, decided_at=now
    )
    audit_event_record(
        action="caseload.phone_link_revoked",
        actor=f"contact:{contact.pk}",
        object_type="contact",
        object_id=contact.pk,
        data={"links_removed": removed},
    )
    # The same answer whether a link existed: the person learns what is true now, nothing more.
    _send(contact, purpose="link_revoked", key="link_revoked", language=language)
    return removed


def stop_sharing_command(*, contact: Contact, conversation: Conversation, body: str, now: datetime) -> str | None:
    """The SMS command STOP SHARING / NO COMPARTIR (registered in caseload.apps)."""
    folded = keyword_fold(body)
    if len(body) > 30 or not _STOP_SHARING.match(folded):
        return None
    language = "es" if folded in _SPANISH else (conversation.language or contact.language)
    phone_link_revoke(contact=contact, language=language, now=now)
    return "STOP_SHARING"


def answer_language(body: str, contact: Contact, conversation: Conversation) -> str:
    return "es" if keyword_fold(body) in _SPANISH else (conversation.language or contact.language or "en")
