"""Urgent alerts and temporary closures: a partner's notice is live at once and reviewed afterwards.

"Closed today — water leak" cannot wait in the review queue with a typo fix: people would be sent
to a closed door. So a partner (or staff) sets a notice that cards show and matching honours
immediately; a supervisor then confirms it or undoes it. Every step is an audit event.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Protocol, cast

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from resources.errors import NotPermitted
from resources.hours import TEXAS_TZ, local_now
from resources.models import Service, ServiceNotice
from resources.services import actor_label, is_reviewer, owned_instance, partner_organization

# A notice is for something temporary; a longer change goes through ordinary review.
MAX_NOTICE_DAYS = 90


class ShownNotice(Protocol):
    """What a card reads of a notice: a ServiceNotice, or its fields as the ranking statement returns them."""

    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def text_es(self) -> str: ...
    @property
    def ends_at(self) -> dt.datetime: ...


def _end_of_day(day: dt.date) -> dt.datetime:
    """The first moment after `day` in Texas: a closure "until Friday" covers all of Friday."""
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(0, 0), tzinfo=TEXAS_TZ)


def notice_set(
    *, user: Any, service_id: Any, kind: str, text: str, ends_on: dt.date | None, text_es: str = ""
) -> ServiceNotice:
    """Put an alert or a closure on a service now, until the end of `ends_on` (Texas time)."""
    if is_reviewer(user):
        service = Service.objects.filter(pk=service_id).first()
        if service is None:
            raise NotPermitted("No such service.")
    else:
        organization = partner_organization(user)
        if organization is None:
            raise NotPermitted("Only partner editors linked to an organization can set notices.")
        # owned_instance is typed for any TARGETS model; target_type "service" gives a Service.
        service = cast(Service, owned_instance(target_type="service", target_id=service_id, organization=organization))
    errors: dict[str, str] = {}
    if kind not in dict(ServiceNotice.KINDS):
        errors["kind"] = "Choose an alert or a temporary closure."
    text, text_es = (text or "").strip(), (text_es or "").strip()
    if not text:
        errors["text"] = "Say what people need to know."
    elif len(text) > 300 or len(text_es) > 300:
        errors["text"] = "Keep the notice under 300 characters."
    today = local_now().date()
    if ends_on is None:
        errors["ends_on"] = "Give the last day the notice applies."
    elif ends_on < today:
        errors["ends_on"] = "The end date is in the past."
    elif ends_on > today + dt.timedelta(days=MAX_NOTICE_DAYS):
        errors["ends_on"] = f"A notice lasts at most {MAX_NOTICE_DAYS} days; longer changes go through review."
    if errors:
        raise ValidationError(errors)
    assert ends_on is not None  # noqa: S101 — checked above
    with transaction.atomic():
        notice = ServiceNotice.objects.create(
            service=service,
            kind=kind,
            text=text,
            text_es=text_es,
            starts_at=timezone.now(),
            ends_at=_end_of_day(ends_on),
            created_by=user,
        )
        audit_event_record(
            action="resources.notice.set",
            actor=actor_label(user),
            object_type="service_notice",
            object_id=notice.pk,
            data={"service_id": str(service.pk), "kind": kind, "ends_on": ends_on.isoformat()},
        )
    return notice


def _review(*, notice_id: int, reviewer: Any, status: str, note: str) -> ServiceNotice:
    if not is_reviewer(reviewer):
        raise NotPermitted("Only supervisors and admins can review notices.")
    with transaction.atomic():
        notice = ServiceNotice.objects.select_for_update().get(pk=notice_id)
        if notice.review_status == "undone":
            raise ValidationError("This notice was already undone.")
        notice.review_status = status
        notice.reviewed_by = reviewer
        notice.reviewed_at = timezone.now()
        notice.review_note = note[:300]
        notice.save(update_fields=["review_status", "reviewed_by", "reviewed_at", "review_note"])
        audit_event_record(
            action=f"resources.notice.{status}",
            actor=actor_label(reviewer),
            object_type="service_notice",
            object_id=notice.pk,
            data={"service_id": str(notice.service_id), "kind": notice.kind},
        )
    return notice


def notice_undo(*, notice_id: int, reviewer: Any, note: str = "") -> ServiceNotice:
    """Take a notice down at once (the service is offered again)."""
    return _review(notice_id=notice_id, reviewer=reviewer, status="undone", note=note)


def notice_confirm(*, notice_id: int, reviewer: Any, note: str = "") -> ServiceNotice:
    """Record that staff checked the notice and it stands."""
    return _review(notice_id=notice_id, reviewer=reviewer, status="confirmed", note=note)


def live_notices(service_ids: list[Any], *, now: dt.datetime | None = None) -> dict[str, list[ServiceNotice]]:
    """The notices showing now, by service id (closures first, then the newest)."""
    moment = now or timezone.now()
    out: dict[str, list[ServiceNotice]] = {}
    rows = (
        ServiceNotice.objects.filter(service_id__in=service_ids, starts_at__lte=moment, ends_at__gt=moment)
        .exclude(review_status="undone")
        .order_by("-kind", "-created_at")  # "closure" sorts after "alert": descending puts it first
    )
    for notice in rows:
        out.setdefault(str(notice.service_id), []).append(notice)
    return out


def notice_line(notice: ShownNotice, *, language: str | None) -> str:
    """What a card says: the notice text (Spanish when there is one), a closure with its last day."""
    spanish = language == "es"
    text = (notice.text_es or notice.text) if spanish else notice.text
    if notice.kind != "closure":
        return text
    last_day = (notice.ends_at.astimezone(TEXAS_TZ) - dt.timedelta(minutes=1)).date()
    if spanish:
        return f"Cerrado hasta el {last_day.day}/{last_day.month}: {text}"
    return f"Closed through {last_day:%b} {last_day.day}: {text}"
