"""Supervisors' view of phone link requests (pending, held, confirmed): read-only, in admin.

Case managers never see this page: whether a request is pending, held (the number belongs to another
client) or not sent (opted out) is exactly what must not reach them.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from caseload import selectors
from caseload.models import PhoneLinkRequest


@admin.register(PhoneLinkRequest)
class PhoneLinkRequestAdmin(admin.ModelAdmin):
    list_display = ("created_at", "client", "contact", "status", "requested_by", "decided_at")
    list_filter = ("status",)
    ordering = ("-created_at",)
    fields = list_display
    readonly_fields = list_display
    list_select_related = ("client", "contact")

    def get_queryset(self, request: HttpRequest) -> QuerySet[PhoneLinkRequest]:
        if not selectors.sees_all(request.user):
            return PhoneLinkRequest.objects.none()
        return super().get_queryset(request)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return selectors.sees_all(request.user) and super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return selectors.sees_all(request.user) and super().has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
