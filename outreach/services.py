"""Writes of outreach: confirmed reminders, their sends, and release plans by SMS.

Everything leaves through conversations' SMS outbox (`conversations.sms.outbox`; its sender
re-checks opt-out right before each send). Reminder sends are idempotent in the database: a `ReminderSend` row is
claimed under its row lock and becomes exactly one outbox message. Audit events are content-free
(ids, slots, counts). Reminder texts and confirmations are kind `keyword`: the person asked for
them (or confirmed a case manager's) with an explicit command, so, like HELP or MORE answers, they
are not held back by human mode — a case manager's take-over must not make someone miss a PO visit.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass
from typing import Final

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from audit.services import audit_event_record
from conversations.hooks import redact
from conversations.models import Contact, Conversation, OutboundMessage
from conversations.sms import outbox
from outreach.models import PlanDelivery, Reminder, ReminderSend
from outreach.schedule import in_quiet_hours, send_times
from outreach.texts import day_text, text_for, when_text
from plans.dates import Ambiguous, When, parse_when
from plans.render import plan_sms_parts
from plans.selectors import plan_build, plan_request_make
from plans.types import PlanError, PlanRequest
from vocab import fold

logger = logging.getLogger(__name__)

Status = OutboundMessage.Status
CONFIRM_WINDOW: Final = dt.timedelta(hours=24)
MAX_ACTIVE: Final = 20
LABEL_CHARS: Final = 60


class ReminderRefused(ValueError):
    """A reminder that cannot be stored; `code` says why (opted_out, no_sms, past, too_soon, …)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class ReminderAsk:
    """The reminder request could not be stored yet: what to ask the person (nothing was stored)."""

    text_key: str
    values: dict[str, object]


def outbox_put(
    *,
    conversation: Conversation,
    purpose: str,
    body: str,
    kind: str = OutboundMessage.Kind.KEYWORD,
    needs_approval: bool = False,
    approved_by: str = "",
) -> OutboundMessage:
    """Queue one text for the person through conversations' SMS outbox (opted-out numbers get nothing).

    Outreach's texts default to kind `keyword` (asked for by the person's own command, see above).
    """
    return outbox.outbox_put(
        conversation=conversation,
        purpose=purpose,
        body=body,
        kind=kind,
        status=Status.PENDING_APPROVAL if needs_approval else Status.APPROVED,
        approved_by=approved_by,
    )


# --- reminders ---------------------------------------------------------------------------------
_REQUEST_RE: Final = re.compile(
    r"^\s*(?:please\s+|por\s+favor\s+)?(?:remind\s+me|set\s+a\s+reminder|recuerdame|recordarme|ponme\s+un\s+recordatorio|recordatorio\s+para)\b(?P<rest>.*)$",
    re.DOTALL,
)
_LABEL_LEAD: Final = re.compile(r"^\s*(?:about|of|for|to|that|de|sobre|que|para|del|la|el)\s+")
_DAY_WORDS: Final = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|lunes|martes|miercoles|jueves|viernes|sabado|domingo|"
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre"
)
# Where the "when" starts: "on tuesday", "el martes", "next friday", "at 9", "a las 9", "tomorrow", a weekday, a digit.
_LABEL_CUT: Final = re.compile(
    rf"\s(?:(?:on|this|next|el|este|esta|proximo|proxima)\s+(?:{_DAY_WORDS}|\d)|(?:at|a\s+las|a\s+la)\s+\d|"
    rf"tomorrow|today|tonight|manana|hoy|pasado|{_DAY_WORDS})\b|\s\d",
)


def is_reminder_request(body: str) -> bool:
    return bool(_REQUEST_RE.match(fold(body)))


def _label(body: str, language: str) -> str:
    """What the reminder is for, from the (redacted) message: 'my PO appointment'."""
    folded_rest = _REQUEST_RE.match(fold(body))
    rest = folded_rest.group("rest") if folded_rest else ""
    # Keep the person's own casing and accents: cut the original text at the same offsets.
    original = body[len(body) - len(rest) :] if rest else ""
    lead = _LABEL_LEAD.match(fold(original))
    if lead:
        original = original[lead.end() :]
    cut = _LABEL_CUT.search(fold(original))
    label = (original[: cut.start()] if cut else original).strip(" ,.:;-")
    label = redact(label).text[:LABEL_CHARS].strip()
    return label or ("cita" if language == "es" else "appointment")


def _next_number(contact: Contact) -> int:
    return (Reminder.objects.filter(contact=contact).aggregate(top=Max("number"))["top"] or 0) + 1


def reminder_request(
    *,
    contact: Contact,
    conversation: Conversation,
    text: str,
    now: dt.datetime,
    language: str,
    created_by: str = "person",
    due_at: dt.datetime | None = None,
    label: str | None = None,
) -> Reminder | ReminderAsk:
    """Store a reminder waiting for the person's YES and ask for it; or say what to ask (nothing stored).

    Raises ReminderRefused for an opted-out contact, a contact with no SMS number, too many active
    reminders, a time in the past or one too soon to remind. Call inside a transaction with the
    contact's row locked (the inbound SMS decision holds it) so numbers are allocated one at a time.
    """
    if contact.opted_out:
        raise ReminderRefused("opted_out")
    if contact.channel != "sms" or conversation.channel != "sms":
        raise ReminderRefused("no_sms")
    if due_at is None:
        when = parse_when(text, now=now)
        if when is None:
            return ReminderAsk("need_when", {})
        if isinstance(when, Ambiguous):
            if when.reason == "which_week":
                first, second = when.options
                return ReminderAsk(
                    "which_week",
                    {
                        "weekday": _weekday_name(first, language),
                        "first": day_text(first, language),
                        "second": day_text(second, language),
                        "example": f"{second.month}/{second.day}",
                    },
                )
            return ReminderAsk("am_pm", {})
        due_at = _at(when)
        if due_at is None:
            return ReminderAsk("need_when", {})
    if due_at <= now:
        raise ReminderRefused("past")
    if not send_times(due_at, now=now):
        raise ReminderRefused("too_soon")
    if (
        Reminder.objects.filter(
            contact=contact, status__in=[Reminder.Status.AWAITING, Reminder.Status.CONFIRMED]
        ).count()
        >= MAX_ACTIVE
    ):
        raise ReminderRefused("too_many")
    reminder = Reminder.objects.create(
        contact=contact,
        conversation=conversation,
        number=_next_number(contact),
        label=label or _label(text, language),
        due_at=due_at,
        language=language,
        created_by=created_by,
        created_at=now,
    )
    audit_event_record(
        action="reminder.created",
        actor=created_by if created_by.startswith("user:") else "system",
        object_type="reminder",
        object_id=reminder.pk,
        data={"by": "staff" if created_by != "person" else "person"},
    )
    key = "ask_confirm" if created_by == "person" else "ask_confirm_staff"
    outbox_put(
        conversation=conversation,
        purpose="reminder_ask",
        body=text_for(
            key,
            language,
            number=reminder.number,
            label=reminder.label,
            when=when_text(due_at, language),
        ),
    )
    return reminder


def _at(when: When) -> dt.datetime | None:
    return when.at()


def _weekday_name(day: dt.date, language: str) -> str:
    if language == "es":
        return ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")[day.weekday()]
    return day.strftime("%A")


def reminder_confirm(*, contact: Contact, now: dt.datetime) -> Reminder | None:
    """Confirm the person's latest reminder still waiting for YES (within a day); None when there is none."""
    reminder = (
        Reminder.objects.select_for_update()
        .filter(contact=contact, status=Reminder.Status.AWAITING, created_at__gte=now - CONFIRM_WINDOW, due_at__gt=now)
        .order_by("-created_at")
        .first()
    )
    if reminder is None:
        return None
    times = send_times(reminder.due_at, now=now)
    reminder.status, reminder.confirmed_at = Reminder.Status.CONFIRMED, now
    reminder.save(update_fields=["status", "confirmed_at"])
    for slot, moment in times.items():
        ReminderSend.objects.get_or_create(reminder=reminder, slot=slot, defaults={"send_at": moment})
    audit_event_record(
        action="reminder.confirmed", object_type="reminder", object_id=reminder.pk, data={"sends": len(times)}
    )
    outbox_put(
        conversation=reminder.conversation,
        purpose="reminder_confirmed",
        body=text_for("confirmed", reminder.language, number=reminder.number),
    )
    return reminder


def reminder_cancel(*, contact: Contact, number: int, now: dt.datetime) -> Reminder | None:
    """Cancel reminder `number` of this contact and its pending sends; None when it has no such active reminder."""
    reminder = (
        Reminder.objects.select_for_update()
        .filter(contact=contact, number=number, status__in=[Reminder.Status.AWAITING, Reminder.Status.CONFIRMED])
        .first()
    )
    if reminder is None:
        return None
    reminder.status, reminder.cancelled_at = Reminder.Status.CANCELLED, now
    reminder.save(update_fields=["status", "cancelled_at"])
    cancelled = ReminderSend.objects.filter(reminder=reminder, status=ReminderSend.Status.PENDING).update(
        status=ReminderSend.Status.CANCELLED, decided_at=now
    )
    audit_event_record(
        action="reminder.cancelled", object_type="reminder", object_id=reminder.pk, data={"sends_cancelled": cancelled}
    )
    outbox_put(
        conversation=reminder.conversation,
        purpose="reminder_cancelled",
        body=text_for("cancelled", reminder.language, number=number),
    )
    return reminder


def reminders_list_text(*, contact: Contact, now: dt.datetime, language: str) -> str:
    active = Reminder.objects.filter(
        contact=contact,
        status__in=[Reminder.Status.AWAITING, Reminder.Status.CONFIRMED],
        due_at__gt=now,
    ).order_by("due_at")
    lines = [
        f"{reminder.number}) {reminder.label} - {when_text(reminder.due_at, language)}"
        + (
            ""
            if reminder.status == Reminder.Status.CONFIRMED
            else (" (responda SI)" if language == "es" else " (reply YES)")
        )
        for reminder in active
    ]
    if not lines:
        return text_for("none", language)
    return "\n".join([text_for("list_head", language), *lines])


def reminders_dispatch_due(*, now: dt.datetime | None = None, batch: int = 200) -> int:
    """Turn due reminder sends into outbox messages, each exactly once; returns how many were queued.

    Safe to run from several workers and again after a crash: each row is claimed under its lock
    (SKIP LOCKED) and only a `pending` row becomes a message, in the same transaction that marks it sent.
    During quiet hours nothing is sent (rows stay pending for the morning); a send whose appointment
    has passed is skipped; an opted-out contact's send is suppressed.
    """
    now = now or timezone.now()
    if in_quiet_hours(now):
        return 0
    ids = list(
        ReminderSend.objects.filter(
            status=ReminderSend.Status.PENDING, send_at__lte=now, reminder__status=Reminder.Status.CONFIRMED
        )
        .order_by("send_at")
        .values_list("pk", flat=True)[:batch]
    )
    queued = 0
    for send_id in ids:
        try:
            queued += _dispatch_one(send_id=send_id, now=now)
        except Exception:
            logger.exception("reminder send %s could not be decided; it stays pending", send_id)
    return queued


def _dispatch_one(*, send_id: int, now: dt.datetime) -> int:
    with transaction.atomic(durable=True):
        send = (
            ReminderSend.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("reminder", "reminder__contact", "reminder__conversation")
            .filter(pk=send_id, status=ReminderSend.Status.PENDING)
            .first()
        )
        if send is None:
            return 0  # another worker has it, or it was decided already
        reminder = send.reminder
        if reminder.status != Reminder.Status.CONFIRMED:
            send.status = ReminderSend.Status.CANCELLED
        elif reminder.contact.opted_out:
            send.status = ReminderSend.Status.SUPPRESSED
        elif reminder.due_at <= now:
            send.status = ReminderSend.Status.SKIPPED
        else:
            body = text_for(
                "send",
                reminder.language,
                label=reminder.label,
                when=when_text(reminder.due_at, reminder.language),
                number=reminder.number,
            )
            send.outbound = outbox_put(conversation=reminder.conversation, purpose=f"reminder_{send.slot}", body=body)
            send.status = ReminderSend.Status.SENT
        send.decided_at = now
        send.save(update_fields=["status", "outbound", "decided_at"])
        audit_event_record(
            action="reminder.send_decided",
            object_type="reminder",
            object_id=reminder.pk,
            data={"slot": send.slot, "status": send.status},
        )
        if (
            not ReminderSend.objects.filter(reminder=reminder, status=ReminderSend.Status.PENDING).exists()
            and reminder.status == Reminder.Status.CONFIRMED
        ):
            Reminder.objects.filter(pk=reminder.pk).update(status=Reminder.Status.DONE)
        return 1 if send.status == ReminderSend.Status.SENT else 0


def reminders_expire(*, now: dt.datetime | None = None) -> int:
    """Reminders never confirmed within a day expire (no text is ever sent for them)."""
    now = now or timezone.now()
    return Reminder.objects.filter(status=Reminder.Status.AWAITING, created_at__lt=now - CONFIRM_WINDOW).update(
        status=Reminder.Status.EXPIRED
    )


# --- release plans by SMS ------------------------------------------------------------------------
def _plan_parts_put(*, conversation: Conversation, request: PlanRequest, created_by: str) -> list[str]:
    """A plan is a substantive reply: the person's own request waits for approval like any reply
    (SMS_REQUIRE_APPROVAL); a case manager's send is their own approved message."""
    parts = plan_sms_parts(plan_build(request=request), max_chars=settings.SMS_MAX_CHARS)
    staff = created_by != "person"
    for part in parts:
        outbox_put(
            conversation=conversation,
            purpose="plan",
            body=part,
            kind=OutboundMessage.Kind.HUMAN if staff else OutboundMessage.Kind.REPLY,
            needs_approval=not staff and bool(settings.SMS_REQUIRE_APPROVAL),
            approved_by=created_by if staff else "",
        )
    return parts


def plan_send_sms(
    *, conversation: Conversation, request: PlanRequest, now: dt.datetime, created_by: str = "person"
) -> int:
    """Send a plan in numbered parts and remember its inputs (PLAN resends it); returns the parts queued."""
    PlanDelivery.objects.create(
        contact_id=conversation.contact_id,
        release_date=request.release_date,
        destination=request.place_name or request.region,
        supervision=request.supervision,
        needs=list(request.needs),
        language=request.language,
        created_by=created_by,
        created_at=now,
    )
    parts = _plan_parts_put(conversation=conversation, request=request, created_by=created_by)
    audit_event_record(
        action="plan.sent",
        object_type="conversation",
        object_id=conversation.pk,
        data={"parts": len(parts), "by": "staff" if created_by != "person" else "person"},
    )
    return len(parts)


def plan_resend(*, conversation: Conversation, now: dt.datetime, language: str) -> int:
    """PLAN: rebuild the last plan sent to this person (fresh places) and send it again."""
    last = PlanDelivery.objects.filter(contact_id=conversation.contact_id).order_by("-created_at", "-pk").first()
    if last is None:
        outbox_put(conversation=conversation, purpose="plan_none", body=text_for("plan_none", language))
        return 0
    try:
        # A plan asked for before release stays valid after it: rebuild from its own release day.
        request = plan_request_make(
            release_date=last.release_date,
            destination=last.destination,
            supervision=last.supervision,
            needs=tuple(last.needs),
            language=last.language,
            today=min(last.release_date, now.date()),
        )
    except PlanError:
        outbox_put(conversation=conversation, purpose="plan_none", body=text_for("plan_none", language))
        return 0
    parts = _plan_parts_put(conversation=conversation, request=request, created_by="person")
    audit_event_record(
        action="plan.resent", object_type="conversation", object_id=conversation.pk, data={"parts": len(parts)}
    )
    return len(parts)
