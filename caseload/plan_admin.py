"""The client's release plan page in the admin: printable for a pre-release meeting, sent by SMS,
and where a case manager adds a reminder (the person still confirms it by text)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse

from audit.services import audit_event_record
from caseload.errors import CaseloadError
from caseload.outreach import client_plan, client_plan_send_sms, client_reminder_add
from caseload.services import actor_of
from plans.dates import TZ
from plans.types import PlanError


def plan_view(model_admin: Any, request: HttpRequest, object_id: str) -> HttpResponse:
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    client = model_admin.get_object(request, object_id)
    if client is None:
        raise Http404("No such client in your caseload.")
    source = request.POST if request.method == "POST" else request.GET
    destination = (source.get("destination") or "").strip()[:80]
    language = "es" if source.get("language") == "es" else "en"
    if request.method == "POST":
        _post(request, client_id=client.pk, destination=destination, language=language)
        return HttpResponseRedirect(f"{request.path}?destination={destination}&language={language}")
    plan, error = None, None
    if destination:
        try:
            plan = client_plan(client_id=client.pk, user=request.user, destination=destination, language=language)
        except (PlanError, CaseloadError) as exc:
            error = exc.message(language) if isinstance(exc, PlanError) else str(exc)
    # The page names the client even without a plan: every read is recorded.
    audit_event_record(
        action="caseload.plan_viewed",
        actor=actor_of(request.user),
        object_type="client",
        object_id=client.pk,
        data={"plan": plan is not None},
    )
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Release plan: {client.name}",
        "client": client,
        "plan": plan,
        "error": error,
        "destination": destination,
        "language": language,
        "opts": model_admin.model._meta,
    }
    return TemplateResponse(request, "admin/caseload/client_plan.html", context)


def _post(request: HttpRequest, *, client_id: object, destination: str, language: str) -> None:
    try:
        if request.POST.get("action") == "send_sms":
            parts = client_plan_send_sms(
                client_id=client_id, user=request.user, destination=destination, language=language
            )
            messages.success(request, f"Plan queued by SMS in {parts} parts.")
        elif request.POST.get("action") == "add_reminder":
            day = dt.date.fromisoformat(request.POST.get("date", ""))
            clock = dt.time.fromisoformat(request.POST.get("time", ""))
            client_reminder_add(
                client_id=client_id,
                user=request.user,
                label=request.POST.get("label", ""),
                due_at=dt.datetime.combine(day, clock, tzinfo=TZ),
            )
            messages.success(request, "Reminder added. The person gets a text asking them to reply YES.")
    except ValueError:
        messages.error(request, "Give the reminder a date and a time.")
    except (PlanError, CaseloadError) as exc:
        messages.error(request, exc.message(language) if isinstance(exc, PlanError) else str(exc))
