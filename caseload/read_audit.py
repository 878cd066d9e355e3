"""Every staff read of a client, transcript, turn trace or outbound body is an audit event.

Who (`user:<id>`), what (object type and id, or the ids listed) and when (the event's time); only
ids, never the content read. Supervisors read the events in admin (Audit events, filter by action
`caseload.*_viewed` / `caseload.*_listed`). The conversation transcript, summary and plan pages
record their own events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse

from audit.services import audit_event_record

# Ids recorded per list event: enough for an approval-queue page, well under the 4 KB event limit.
MAX_IDS = 80


def read_record(*, request: HttpRequest, action: str, object_type: str, object_id: object = "", **data: Any) -> None:
    """Append one read event for the request's user."""
    user = getattr(request, "user", None)
    actor = f"user:{user.pk}" if user is not None and user.pk is not None else "anonymous"
    audit_event_record(action=action, actor=actor, object_type=object_type, object_id=str(object_id), data=data)


def list_record(*, request: HttpRequest, action: str, object_type: str, ids: Iterable[object]) -> None:
    """A page that shows several objects' content: the ids shown (the first MAX_IDS) and how many."""
    shown = [str(one) for one in ids]
    read_record(request=request, action=action, object_type=object_type, ids=shown[:MAX_IDS], count=len(shown))


class ReadAuditedAdmin:
    """Mixin for a ModelAdmin: each change (detail) view a user could open records `<read_action>`;
    `list_read_action`, when set, records the ids a list page showed."""

    read_action = ""
    list_read_action = ""

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        response = super().change_view(request, object_id, form_url, extra_context)  # type: ignore[misc]
        if request.method == "GET" and response.status_code == 200 and self.read_action:
            obj = self.get_object(request, object_id)  # type: ignore[attr-defined]
            if obj is not None:
                read_record(
                    request=request,
                    action=self.read_action,
                    object_type=obj._meta.model_name,
                    object_id=obj.pk,
                )
        return response

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        response = super().changelist_view(request, extra_context)  # type: ignore[misc]
        changelist = getattr(response, "context_data", {}) or {}
        listed = changelist.get("cl")
        if self.list_read_action and listed is not None and getattr(response, "status_code", 0) == 200:
            list_record(
                request=request,
                action=self.list_read_action,
                object_type=self.model._meta.model_name,  # type: ignore[attr-defined]
                ids=(obj.pk for obj in listed.result_list),
            )
        return response
