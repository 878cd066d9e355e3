"""The case-manager admin: caseload, approval queue, transcripts with turn traces, dashboard.

Also registers the conversations models (Conversation, Turn, OutboundMessage) — read-only, scoped
per role through caseload.selectors (conversations itself must not import caseload). Every
decision a user can take here goes through caseload.services, which check permission and scope
again and write an AuditEvent; admin adds and changes are logged by AuditedModelAdmin.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from audit.admin_mixins import AuditedModelAdmin
from audit.services import audit_event_record
from caseload import charts, dashboard, phone_links_admin, plan_admin, roles, selectors, services  # noqa: F401
from caseload.erasure import client_erase
from caseload.errors import CaseloadError
from caseload.models import Client, ClientContact, Dashboard, Queue
from caseload.read_audit import ReadAuditedAdmin, list_record
from caseload.summary import client_summary
from conversations.hooks import redact
from conversations.models import Conversation, NodeRun, OutboundMessage, Turn
from resources.selectors import coverage as directory_coverage
from resources.taxonomy import CORE_NEEDS, COVERAGE_REGIONS


def _json(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True, default=str)


def _error(request: HttpRequest, exc: Exception) -> None:
    messages.error(request, getattr(exc, "message", None) or str(exc))


# --- clients -------------------------------------------------------------------------------


class ClientContactInline(admin.TabularInline):
    model = ClientContact
    extra = 0
    fields = ("contact", "linked_by", "created_at", "conversations")
    readonly_fields = fields
    verbose_name = "linked contact"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # numbers are linked through the "link an SMS number" field (checked by the service)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="conversations")
    def conversations(self, link: ClientContact) -> str:
        rows = link.contact.conversations.order_by("-updated_at")[:5]
        return (
            format_html_join(
                " ",
                '<a href="{}">{} ({})</a>',
                (
                    (
                        reverse("admin:conversations_conversation_change", args=[c.pk]),
                        str(c.pk)[:8],
                        c.get_mode_display(),
                    )
                    for c in rows
                ),
            )
            or "—"
        )


class ClientForm(forms.ModelForm):
    link_phone = forms.CharField(
        required=False,
        max_length=32,
        label="Link an SMS number",
        help_text="The client's mobile number. They get a text asking them to reply YES; their texts appear here only after.",
    )

    class Meta:
        model = Client
        fields = ("name", "case_manager", "status", "release_date", "supervision_type", "notes")

    def clean_notes(self) -> str:
        """Notes go through the same redaction as every typed text: context, not phone numbers or others' names."""
        notes = self.cleaned_data.get("notes") or ""
        return redact(notes).text if notes.strip() else notes


@admin.register(Client)
class ClientAdmin(ReadAuditedAdmin, AuditedModelAdmin):
    read_action, list_read_action = "caseload.client_viewed", "caseload.clients_listed"
    form = ClientForm
    list_display = (
        "name",
        "priority_score",
        "drivers",
        "case_manager",
        "status",
        "released",
        "supervision_type",
        "summary_link",
    )
    list_display_links = ("name",)
    list_filter = ("status", "supervision_type")
    search_fields = ("name",)
    inlines = (ClientContactInline,)
    readonly_fields = ("priority_panel",)
    actions = ("erase_people",)

    @admin.action(
        description="Erase selected people: client record, conversations, messages, numbers (cannot be undone)",
        permissions=["delete"],
    )
    def erase_people(self, request: HttpRequest, queryset: QuerySet[Client]) -> None:
        # Right to erasure: every row holding the person's content goes; audit keeps ids and counts only.
        actor = services.actor_of(request.user)
        for client in queryset:
            client_erase(client=client, actor=actor)
        messages.success(request, "Erased.")

    def delete_model(self, request: HttpRequest, obj: Client) -> None:
        client_erase(client=obj, actor=services.actor_of(request.user))  # deleting a client erases them

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Client]) -> None:
        for client in queryset:
            client_erase(client=client, actor=services.actor_of(request.user))

    def get_ordering(self, request: HttpRequest) -> tuple[str, ...]:
        # `priority` is an annotation (see caseload.priority), so it cannot be a static `ordering`.
        return ("-priority", "release_date", "name")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Client]:
        return selectors.client_queryset_with_priority(user=request.user).select_related("case_manager")

    def get_fieldsets(self, request: HttpRequest, obj: Client | None = None) -> Any:
        main = ["name", "status", "release_date", "supervision_type", "notes", "link_phone"]
        if selectors.sees_all(request.user):
            main.insert(1, "case_manager")
        sets: list[tuple[str | None, dict[str, Any]]] = [(None, {"fields": main})]
        if obj is not None:
            sets.insert(0, ("Who needs me now", {"fields": ("priority_panel",)}))
        return sets

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "case_manager":
            kwargs["queryset"] = (
                get_user_model().objects.filter(groups__name=roles.CASE_MANAGER, is_active=True).order_by("username")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request: HttpRequest, obj: Client, form: forms.ModelForm, change: bool) -> None:
        if not selectors.sees_all(request.user) and not change:
            obj.case_manager = request.user  # type: ignore[assignment]  # admin views have a logged-in user; a new client of a case manager is theirs
        super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: forms.ModelForm, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        phone = form.cleaned_data.get("link_phone")
        if phone:
            try:
                messages.info(request, services.client_phone_link(client=form.instance, phone=phone, user=request.user))
            except CaseloadError as exc:
                _error(request, exc)

    @admin.display(description="priority", ordering="priority")
    def priority_score(self, client: Client) -> int:
        return client.priority  # type: ignore[attr-defined]  # annotated by client_queryset_with_priority

    @admin.display(description="why")
    def drivers(self, client: Client) -> str:
        return selectors.client_priority(client).explain()

    @admin.display(description="released", ordering="release_date")
    def released(self, client: Client) -> str:
        if client.release_date is None:
            return "—"
        days = (timezone.localdate() - client.release_date).days
        return (
            f"{client.release_date:%Y-%m-%d} ({days} d)" if days >= 0 else f"{client.release_date:%Y-%m-%d} (upcoming)"
        )

    @admin.display(description="summary")
    def summary_link(self, client: Client) -> str:
        return format_html(
            '<a href="{}">summary</a> · <a href="{}">release plan</a>',
            reverse("admin:caseload_client_summary", args=[client.pk]),
            reverse("admin:caseload_client_plan", args=[client.pk]),
        )

    @admin.display(description="priority")
    def priority_panel(self, client: Client) -> str:
        priority = selectors.client_priority(client)
        rows = format_html_join("", "<li>{} <strong>+{}</strong></li>", ((d.label, d.points) for d in priority.drivers))
        return format_html(
            '<p>Score <strong>{}</strong> — <a href="{}">summary</a></p><ul>{}</ul>',
            priority.score,
            reverse("admin:caseload_client_summary", args=[client.pk]),
            rows or format_html("<li>nothing pending</li>"),
        )

    def get_urls(self) -> list[Any]:
        return [
            path(
                "<uuid:object_id>/summary/",
                self.admin_site.admin_view(self.summary_view),
                name="caseload_client_summary",
            ),
            path("<uuid:object_id>/plan/", self.admin_site.admin_view(self.plan_view), name="caseload_client_plan"),
            *super().get_urls(),
        ]

    def plan_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return plan_admin.plan_view(self, request, object_id)

    def summary_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        client = self.get_object(request, object_id)
        if client is None:
            raise Http404("No such client in your caseload.")
        summary = client_summary(client=client)
        audit_event_record(
            action="caseload.summary_viewed",
            actor=services.actor_of(request.user),
            object_type="client",
            object_id=client.pk,
            data={"source": summary.source},
        )
        context = {
            **self.admin_site.each_context(request),
            "title": f"Summary: {client.name}",
            "client": client,
            "summary": summary,
            "priority": selectors.client_priority(client),
            "opts": self.model._meta,
            "flagged": selectors.flagged_conversations(user=request.user).filter(contact__client_link__client=client),
        }
        return TemplateResponse(request, "admin/caseload/client_summary.html", context)


# --- conversations: transcript, take over, reply ---------------------------------------------


class ScopedReadOnlyAdmin(admin.ModelAdmin):
    """Read-only admin of a conversations model, scoped by a caseload selector."""

    selector: Any = None

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return type(self).selector(user=request.user)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Conversation)
class ConversationAdmin(ReadAuditedAdmin, ScopedReadOnlyAdmin):
    list_read_action = "caseload.conversations_listed"  # the list names clients; the detail view audits itself
    selector = staticmethod(selectors.conversation_queryset)
    change_form_template = "admin/caseload/conversation_change_form.html"
    list_display = ("short_id", "client", "channel", "mode", "flag", "turn_count", "updated_at")
    list_filter = ("mode", "needs_human", "channel")
    ordering = ("-needs_human", "-updated_at")
    fields = (
        "client",
        "channel",
        "language",
        "mode",
        "mode_changed_by",
        "mode_changed_at",
        "needs_human",
        "needs_human_reason",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Conversation]:
        return (
            super()
            .get_queryset(request)
            .select_related("contact__client_link__client")
            .annotate(n_turns=Count("turns"))
        )

    @admin.display(description="conversation")
    def short_id(self, conversation: Conversation) -> str:
        # Named by client, else "SMS …1234" / "Web chat, 3 Dec" (issue 18), linking to the inbox thread.
        from caseload.inbox.selectors import conversation_label

        link = getattr(conversation.contact, "client_link", None)
        label = conversation_label(
            channel=conversation.channel,
            client_name=link.client.name if link else None,
            last4=conversation.contact.phone_last4,
            created_at=conversation.created_at,
        )
        return format_html(
            '{} · <a href="{}">thread</a>', label, reverse("admin:caseload_inbox_thread", args=[conversation.pk])
        )

    @admin.display(description="client")
    def client(self, conversation: Conversation) -> str:
        link = getattr(conversation.contact, "client_link", None)
        return link.client.name if link else "— (unlinked)"

    @admin.display(description="flag", ordering="needs_human")
    def flag(self, conversation: Conversation) -> str:
        return conversation.needs_human_reason.replace("_", " ") if conversation.needs_human else ""

    @admin.display(description="turns")
    def turn_count(self, conversation: Conversation) -> int:
        return conversation.n_turns  # type: ignore[attr-defined]  # annotated by get_queryset

    def get_urls(self) -> list[Any]:
        wrap = self.admin_site.admin_view
        return [
            path(
                "<uuid:object_id>/take-over/",
                wrap(require_POST(self.take_over_view)),
                name="caseload_conversation_take_over",
            ),
            path(
                "<uuid:object_id>/hand-back/",
                wrap(require_POST(self.hand_back_view)),
                name="caseload_conversation_hand_back",
            ),
            path(
                "<uuid:object_id>/clear-flag/",
                wrap(require_POST(self.clear_flag_view)),
                name="caseload_conversation_clear_flag",
            ),
            path("<uuid:object_id>/reply/", wrap(require_POST(self.reply_view)), name="caseload_conversation_reply"),
            *super().get_urls(),
        ]

    def _act(self, request: HttpRequest, object_id: str, action: Any, done: str, **kwargs: Any) -> HttpResponse:
        try:
            action(conversation_id=object_id, user=request.user, **kwargs)
            messages.success(request, done)
        except CaseloadError as exc:
            if exc.http_status == 404:
                raise Http404(exc.message) from None
            if exc.http_status == 403:
                raise PermissionDenied(exc.message) from None
            _error(request, exc)
        return redirect("admin:conversations_conversation_change", object_id)

    def take_over_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self._act(
            request,
            object_id,
            services.conversation_take_over,
            "You have this conversation: the navigator will only suggest replies.",
        )

    def hand_back_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self._act(request, object_id, services.conversation_hand_back, "Handed back to the navigator.")

    def clear_flag_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self._act(request, object_id, services.conversation_flag_clear, "Flag cleared.")

    def reply_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self._act(
            request,
            object_id,
            services.conversation_reply_sms,
            "Your message is on its way.",
            body=request.POST.get("body", ""),
        )

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        conversation = self.get_object(request, object_id)
        extra = dict(extra_context or {})
        if conversation is not None:
            turns = list(conversation.turns.order_by("seq"))
            outbox = list(conversation.outbound_messages.order_by("created_at"))
            by_turn: dict[Any, list[OutboundMessage]] = {}
            loose: list[OutboundMessage] = []
            for message in outbox:
                (by_turn.setdefault(message.turn_id, []) if message.turn_id else loose).append(message)
            extra.update(
                transcript=[(turn, by_turn.get(turn.pk, [])) for turn in turns],
                loose_messages=loose,
                can_take_over=request.user.has_perm(selectors.PERM_TAKE_OVER),
                can_sms=conversation.channel == "sms"
                and bool(conversation.contact.phone_hash)
                and not conversation.contact.opted_out,
                is_human=conversation.mode == Conversation.Mode.HUMAN,
            )
            audit_event_record(
                action="caseload.transcript_viewed",
                actor=services.actor_of(request.user),
                object_type="conversation",
                object_id=conversation.pk,
            )
        return super().change_view(request, object_id, form_url, extra_context=extra)


class NodeRunInline(admin.TabularInline):
    model = NodeRun
    extra = 0
    can_delete = False
    fields = (
        "anchor",
        "node",
        "outcome",
        "transition",
        "ms",
        "llm_model",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cost_usd",
        "saw",
        "decided",
    )
    readonly_fields = fields
    ordering = ("step",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="step")
    def anchor(self, run: NodeRun) -> str:
        return format_html('<a id="step-{}" href="#step-{}">#{}</a>', run.step, run.step, run.step)

    @admin.display(description="projection seen")
    def saw(self, run: NodeRun) -> str:
        return format_html(
            "<details><summary>{} keys</summary><pre>{}</pre></details>",
            len(run.projection or {}),
            _json(run.projection),
        )

    @admin.display(description="output")
    def decided(self, run: NodeRun) -> str:
        return format_html("<details><summary>output</summary><pre>{}</pre></details>", _json(run.output))


@admin.register(Turn)
class TurnAdmin(ReadAuditedAdmin, ScopedReadOnlyAdmin):
    read_action = "caseload.trace_viewed"
    selector = staticmethod(selectors.turn_queryset)
    list_display = ("__str__", "channel", "status", "crisis", "top_need", "region", "audit_verdict", "created_at")
    list_filter = ("status", "channel", "audit_verdict", "crisis")
    ordering = ("-created_at",)
    inlines = (NodeRunInline,)
    fields = (
        "conversation_link",
        "seq",
        "channel",
        "status",
        "language",
        "crisis",
        "top_need",
        "region",
        "redacted_text",
        "standalone_text",
        "reply",
        "suggestion",
        "audit_verdict",
        "findings",
        "retrieval",
        "escalation_reason",
        "steps",
        "llm_calls",
        "revisions",
        "total_ms",
        "cost_usd",
        "workflow_version",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields

    @admin.display(description="conversation")
    def conversation_link(self, turn: Turn) -> str:
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:conversations_conversation_change", args=[turn.conversation_id]),
            str(turn.conversation_id)[:8],
        )

    @admin.display(description="navigator suggestion (human mode)")
    def suggestion(self, turn: Turn) -> str:
        return (turn.state or {}).get("suggestion", "") or "—"

    @admin.display(description="audit findings")
    def findings(self, turn: Turn) -> str:
        items = ((turn.state or {}).get("audit") or {}).get("findings") or []
        return (
            format_html_join(
                "",
                "<div><code>{}</code> {}: {}</div>",
                ((f.get("verdict", ""), f.get("rule", ""), f.get("message", "")) for f in items),
            )
            or "none"
        )

    @admin.display(description="retrieval")
    def retrieval(self, turn: Turn) -> str:
        return _json((turn.state or {}).get("retrieval") or {})


@admin.register(OutboundMessage)
class OutboundMessageAdmin(ReadAuditedAdmin, ScopedReadOnlyAdmin):
    read_action = "caseload.outbound_viewed"
    selector = staticmethod(selectors.outbound_queryset)
    list_display = ("short_id", "kind", "status", "crisis", "created_at", "approved_by", "approved_at", "sent_at")
    list_filter = ("status", "kind", "crisis")
    ordering = ("-created_at",)
    fields = (
        "conversation",
        "turn",
        "kind",
        "status",
        "crisis",
        "body",
        "draft_body",
        "segments",
        "encoding",
        "approved_by",
        "approved_at",
        "rejection_reason",
        "attempts",
        "provider_sid",
        "error_code",
        "sent_at",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="message")
    def short_id(self, message: OutboundMessage) -> str:
        return str(message.pk)[:8]


# --- approval queue ------------------------------------------------------------------------


class _PageAdmin(admin.ModelAdmin):
    """A proxy-backed admin page: no add/change/delete, one permission decides who sees it.

    Subclasses define `page_view(request)`, which `get_urls` mounts as the page.
    """

    page_view: Callable[[HttpRequest], HttpResponse]

    permission = ""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff and request.user.has_perm(self.permission)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[Any]:
        info = (self.model._meta.app_label, self.model._meta.model_name)
        return [path("", self.admin_site.admin_view(self.page_view), name="{}_{}_changelist".format(*info))]

    def _guard(self, request: HttpRequest) -> None:
        if not self.has_view_permission(request):
            raise PermissionDenied


@admin.register(Queue)
class QueueAdmin(_PageAdmin):
    permission = selectors.PERM_APPROVE

    def page_view(self, request: HttpRequest) -> HttpResponse:
        self._guard(request)
        if request.method == "POST":
            return self._decide(request)
        items = [
            (message, selectors.message_context(message))
            for message in selectors.approval_queue(user=request.user)[:100]
        ]
        list_record(
            request=request, action="caseload.queue_viewed", object_type="outbound", ids=(m.pk for m, _ in items)
        )
        context = {
            **self.admin_site.each_context(request),
            "title": "Approval queue",
            "items": items,
            "opts": self.model._meta,
            "flagged": selectors.flagged_conversations(user=request.user)[:20],
            "oncall": selectors.oncall_queue(user=request.user)[:20],
        }
        return TemplateResponse(request, "admin/caseload/queue.html", context)

    def _decide(self, request: HttpRequest) -> HttpResponse:
        action = request.POST.get("action", "")
        target = reverse("admin:caseload_queue_changelist")
        try:
            if action == "approve":
                message = services.queue_approve(
                    message_id=request.POST.get("message_id"), user=request.user, body=request.POST.get("body")
                )
                messages.success(request, f"Approved {str(message.pk)[:8]}: it will be sent now.")
            elif action == "reject":
                message = services.queue_reject(
                    message_id=request.POST.get("message_id"), user=request.user, reason=request.POST.get("reason", "")
                )
                messages.info(request, f"Rejected {str(message.pk)[:8]}.")
            elif action == "bulk_approve":
                result = services.queue_approve_bulk(message_ids=request.POST.getlist("selected"), user=request.user)
                if result.approved:
                    messages.success(request, f"Approved {len(result.approved)} message(s).")
                for message_id, reason in result.failed:
                    messages.error(request, f"{message_id[:8]}: {reason}")
                if not result.approved and not result.failed:
                    messages.warning(request, "Select at least one message.")
            else:
                messages.error(request, "Unknown action.")
        except CaseloadError as exc:
            if exc.http_status == 404:
                raise Http404(exc.message) from None
            _error(request, exc)
        except Exception as exc:
            if not hasattr(exc, "http_status"):
                raise
            _error(request, exc)
        return HttpResponseRedirect(target)


# --- dashboard -----------------------------------------------------------------------------


def _coverage_context() -> dict[str, Any]:
    """The directory's coverage matrix as table rows for the dashboard (counts only, no people)."""
    report = directory_coverage()
    cells = {(cell.region, cell.need): cell for cell in report.cells}
    rows = [(region, [cells[(region, need)] for need in CORE_NEEDS]) for region in COVERAGE_REGIONS]
    return {
        "coverage": report,
        "coverage_needs": CORE_NEEDS,
        "coverage_rows": rows,
        "coverage_filled": sum(1 for cell in report.cells if cell.filled),
    }


@admin.register(Dashboard)
class DashboardAdmin(_PageAdmin):
    permission = selectors.PERM_DASHBOARD

    def get_urls(self) -> list[Any]:
        return [
            path("eval/", self.admin_site.admin_view(self.eval_view), name="caseload_dashboard_eval"),
            *super().get_urls(),
        ]

    def page_view(self, request: HttpRequest) -> HttpResponse:
        self._guard(request)
        try:
            days = max(1, min(365, int(request.GET.get("days", dashboard.DEFAULT_DAYS))))
        except ValueError:
            days = dashboard.DEFAULT_DAYS
        metrics = dashboard.dashboard_metrics(days=days)
        context = {
            **self.admin_site.each_context(request),
            "title": "Dashboard",
            "opts": self.model._meta,
            "m": metrics,
            "days": days,
            "turns_chart": charts.column_chart(
                [(f"{d:%b %d}", n) for d, n in metrics.turns_per_day], title="Turns per day"
            ),
            "crisis_chart": charts.column_chart(
                [(f"{d:%b %d}", n) for d, n in metrics.crisis_per_day],
                title="Crisis escalations per day",
                color=charts.ALT_COLOR,
            ),
            "verdict_chart": charts.bar_chart(
                [(v, share) for v, _, share in metrics.verdicts], title="Audit verdict rates", unit="%"
            ),
            "pins_chart": charts.bar_chart(list(metrics.map_pins_by_region), title="Map pins shown, by region"),
            "eval_report": dashboard.eval_report_path() is not None,
            **_coverage_context(),
        }
        return TemplateResponse(request, "admin/caseload/dashboard.html", context)

    def eval_view(self, request: HttpRequest) -> HttpResponseBase:
        self._guard(request)
        report = dashboard.eval_report_path()
        if report is None:
            raise Http404("No evaluation report yet (run the evaluation harness).")
        response = FileResponse(report.open("rb"), content_type="text/html; charset=utf-8")
        # Shown as a document only: no scripts, forms or same-origin access from the report.
        response["Content-Security-Policy"] = "sandbox"
        return response


from caseload.inbox import admin as _inbox_admin  # noqa: E402, F401 - registers the inbox page and the site titles
