"""Read-only admin for the audit log: nobody, not even a superuser, may add, change or delete an event."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest

from audit.log import AuditEvent

if TYPE_CHECKING:  # ModelAdmin is generic only in django-stubs, not at run time
    _ModelAdmin = admin.ModelAdmin[AuditEvent]
else:
    _ModelAdmin = admin.ModelAdmin


@admin.register(AuditEvent)
class AuditEventAdmin(_ModelAdmin):
    list_display = ("id", "created_at", "actor", "action", "object_type", "object_id")
    list_filter = ("action", "object_type", "actor")
    date_hierarchy = "created_at"
    search_fields = ("=object_id",)  # exact match: ids, not free text, and it uses the index
    readonly_fields = ("created_at", "actor", "action", "object_type", "object_id", "data", "prev_hash", "hash")
    fields = readonly_fields
    actions = None
    show_full_result_count = False  # the log grows without bound; skip the second COUNT(*)
    list_per_page = 100

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
