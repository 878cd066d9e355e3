"""A ModelAdmin base that writes an audit event for every admin add, change and delete.

Other apps' admins (corpus, resources, caseload) subclass `AuditedModelAdmin`. Events name the
changed fields, never their values: the log must stay free of content and personal data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db import models
from django.forms import ModelForm
from django.http import HttpRequest

from audit.services import audit_event_record


def _actor(request: HttpRequest) -> str:
    user = getattr(request, "user", None)
    return f"user:{user.pk}" if user is not None and user.pk is not None else "anonymous"


if TYPE_CHECKING:  # ModelAdmin is generic only in django-stubs, not at run time
    _ModelAdmin = admin.ModelAdmin[Any]
else:
    _ModelAdmin = admin.ModelAdmin


class AuditedModelAdmin(_ModelAdmin):
    """ModelAdmin whose saves and deletes append `admin.add` / `admin.change` / `admin.delete` events."""

    def save_model(self, request: HttpRequest, obj: Any, form: ModelForm[Any], change: bool) -> None:  # any model
        super().save_model(request, obj, form, change)
        # The admin view wraps this in a transaction, so the event commits or rolls back with the change.
        audit_event_record(
            action="admin.change" if change else "admin.add",
            actor=_actor(request),
            object_type=obj._meta.label_lower,
            object_id=obj.pk,
            data={"fields": sorted(form.changed_data)},
        )

    # obj is Any as in ModelAdmin[Any], so a subclass may name its own model (ClientAdmin: Client).
    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        object_id, object_type = obj.pk, obj._meta.label_lower
        super().delete_model(request, obj)
        audit_event_record(action="admin.delete", actor=_actor(request), object_type=object_type, object_id=object_id)

    def delete_queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> None:
        object_type = queryset.model._meta.label_lower
        ids = list(queryset.values_list("pk", flat=True))
        super().delete_queryset(request, queryset)
        for object_id in ids:
            audit_event_record(
                action="admin.delete", actor=_actor(request), object_type=object_type, object_id=object_id
            )
