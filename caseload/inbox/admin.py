"""The inbox in the admin (/admin/caseload/inbox/), the branded site titles, and the live alert badge endpoint.

Server-rendered Django templates; `static/caseload/inbox.js` swaps in fresh fragments when the
WebSocket says something changed (or every few seconds when it cannot connect). No SPA.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from caseload import selectors, services
from caseload.admin import _PageAdmin
from caseload.errors import CaseloadError
from caseload.inbox import selectors as inbox_selectors
from caseload.inbox import services as inbox_services
from caseload.models import Inbox

admin.site.site_header = gettext_lazy("Pathways")
admin.site.site_title = gettext_lazy("Pathways")
admin.site.index_title = gettext_lazy("Your work today")

ACTIONS = ("approve", "reject", "take_over", "hand_back", "reply", "crisis_handled")


@admin.register(Inbox)
class InboxAdmin(_PageAdmin):
    permission = "conversations.view_conversation"

    def get_urls(self) -> list[Any]:
        wrap = self.admin_site.admin_view
        return [
            path("", wrap(self.page_view), name="caseload_inbox_changelist"),
            path("badge/", wrap(self.badge_view), name="caseload_inbox_badge"),
            path("<uuid:conversation_id>/", wrap(self.thread_view), name="caseload_inbox_thread"),
            path("<uuid:conversation_id>/act/", wrap(require_POST(self.act_view)), name="caseload_inbox_act"),
        ]

    def page_view(self, request: HttpRequest) -> HttpResponse:
        self._guard(request)
        rows = inbox_selectors.inbox_rows(user=request.user)
        # The whole list is ordered (tiers need every row), then one page of it is rendered.
        size = inbox_selectors.PAGE_SIZE
        pages = max(1, -(-len(rows) // size))
        try:
            page = min(max(int(request.GET.get("page", "1")), 1), pages)
        except ValueError:
            page = 1
        context = {
            **self.admin_site.each_context(request),
            "title": _("Inbox"),
            "rows": rows[(page - 1) * size : page * size],
            "total": len(rows),
            "page": page,
            "pages": pages,
            "first_index": (page - 1) * size + 1,
            "last_index": min(page * size, len(rows)),
            "opts": self.model._meta,
        }
        template = "admin/caseload/inbox/_list.html" if request.GET.get("partial") else "admin/caseload/inbox/list.html"
        return TemplateResponse(request, template, context)

    def badge_view(self, request: HttpRequest) -> JsonResponse:
        self._guard(request)
        return JsonResponse({"alerts": inbox_selectors.open_alerts(user=request.user).count()})

    def thread_view(self, request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
        self._guard(request)
        found = inbox_selectors.thread(user=request.user, conversation_id=conversation_id)
        if found is None:
            raise Http404("This conversation is not in your caseload.")
        user = request.user
        context = {
            **self.admin_site.each_context(request),
            "title": found.label,
            "thread": found,
            "opts": self.model._meta,
            "reply_key": uuid.uuid4().hex,
            "may_approve": user.has_perm(selectors.PERM_APPROVE),
            "may_take_over": user.has_perm(selectors.PERM_TAKE_OVER),
            "reply_limit": 1600 if found.conversation.channel == "sms" else 2000,
        }
        template = (
            "admin/caseload/inbox/_thread.html" if request.GET.get("partial") else "admin/caseload/inbox/thread.html"
        )
        return TemplateResponse(request, template, context)

    def act_view(self, request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
        self._guard(request)
        if inbox_selectors.thread(user=request.user, conversation_id=conversation_id) is None:
            raise Http404("This conversation is not in your caseload.")
        action = request.POST.get("action", "")
        target = reverse("admin:caseload_inbox_thread", args=[conversation_id])
        try:
            self._act(request, conversation_id, action)
        except CaseloadError as exc:
            messages.error(request, exc.message)
        except Exception as exc:
            message = getattr(exc, "message", None)
            if not message:
                raise
            messages.error(request, message)
        if request.headers.get("X-Requested-With") == "fetch":
            return HttpResponse(status=204)
        return HttpResponseRedirect(target)

    def _act(self, request: HttpRequest, conversation_id: uuid.UUID, action: str) -> None:
        user, post = request.user, request.POST
        if action not in ACTIONS:
            raise CaseloadError(_("Unknown action."))
        if action in ("approve", "reject"):
            message_id = post.get("message_id", "")
            if (
                not selectors.outbound_queryset(user=user)
                .filter(pk=message_id, conversation_id=conversation_id)
                .exists()
            ):
                raise Http404("This message is not in this conversation.")
            if action == "approve":
                services.queue_approve(message_id=message_id, user=user, body=post.get("body"), via="inbox")
                messages.success(request, _("Approved: the reply is being sent."))
            else:
                services.queue_reject(message_id=message_id, user=user, reason=post.get("reason", ""))
                messages.success(request, _("Rejected: nothing was sent."))
        elif action == "take_over":
            services.conversation_take_over(conversation_id=conversation_id, user=user)
            messages.success(
                request, _("You have this conversation: no automated reply goes out until you hand it back.")
            )
        elif action == "hand_back":
            services.conversation_hand_back(conversation_id=conversation_id, user=user)
            messages.success(request, _("Handed back to the navigator."))
        elif action == "crisis_handled":
            inbox_services.crisis_mark_handled(conversation_id=conversation_id, user=user)
            messages.success(request, _("Crisis marked handled."))
        else:
            inbox_services.conversation_reply(
                conversation_id=conversation_id,
                user=user,
                body=post.get("body"),
                idempotency_key=post.get("reply_key", ""),
            )
            messages.success(request, _("Reply sent."))
        from conversations.staff import inbox_notify_on_commit

        if action in ("approve", "reject", "take_over", "hand_back"):
            # These services commit on their own; the notification is sent right away (nothing is pending).
            inbox_notify_on_commit(conversation_id, action)
