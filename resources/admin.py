"""Django admin for the directory: staff edit live entries; partner editors propose changes.

A partner editor (group "partner editor" + a PartnerMembership) sees only their organization's
objects; any other id gives 404, never a redirect that would confirm it exists. Their saves become
ChangeRequests; supervisors/admins approve or reject them here (admin actions).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import ValidationError
from django.db import models
from django.forms import ModelForm
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from audit.services import audit_event_record
from resources.errors import ResourceError
from resources.models import (
    ChangeRequest,
    EntryVersion,
    FeedRefresh,
    Location,
    Organization,
    PartnerMembership,
    Phone,
    RequiredDocument,
    Schedule,
    Service,
    ServiceAtLocation,
    ServiceNotice,
    field_payload,
)
from resources.notices import notice_confirm, notice_undo
from resources.services import (
    TARGETS,
    actor_label,
    change_request_approve,
    change_request_readable,
    change_request_reject,
    change_request_submit,
    entry_save,
    is_reviewer,
    partner_organization,
)


def _partner_org(request: HttpRequest) -> Organization | None:
    if not hasattr(request, "_pathways_partner_org"):
        request._pathways_partner_org = None if is_reviewer(request.user) else partner_organization(request.user)  # type: ignore[attr-defined]
    return request._pathways_partner_org  # type: ignore[attr-defined]


def _staff(request: HttpRequest) -> bool:
    if not hasattr(request, "_pathways_staff"):
        request._pathways_staff = is_reviewer(request.user)  # type: ignore[attr-defined]
    return request._pathways_staff  # type: ignore[attr-defined]


class DirectoryAdmin(admin.ModelAdmin):
    """Shared scoping and write rules for the live directory models."""

    target_type: str = ""
    org_lookup: str = "organization_id"

    # --- who may do what (by role, not by Django model permissions) ---
    def has_module_permission(self, request: HttpRequest) -> bool:
        return _staff(request) or _partner_org(request) is not None

    def _owns(self, request: HttpRequest, obj: models.Model | None) -> bool:
        org = _partner_org(request)
        if org is None:
            return False
        return obj is None or self.get_queryset(request).filter(pk=obj.pk).exists()

    def has_view_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return _staff(request) or self._owns(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return _staff(request) or (bool(self.target_type) and self._owns(request, obj))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _staff(request)

    def has_delete_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return _staff(request)

    def get_queryset(self, request: HttpRequest) -> models.QuerySet:
        queryset = super().get_queryset(request)
        if _staff(request):
            return queryset
        org = _partner_org(request)
        if org is None:
            return queryset.none()
        return queryset.filter(**{self.org_lookup: org.pk})

    # --- what a partner sees in the form ---
    def get_fields(self, request: HttpRequest, obj: models.Model | None = None) -> Any:
        if not _staff(request) and self.target_type:
            return list(TARGETS[self.target_type][1])
        return super().get_fields(request, obj)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        org = _partner_org(request)
        if org is not None and not _staff(request):
            if db_field.name in {"service", "location"}:
                kwargs["queryset"] = db_field.related_model.objects.filter(organization_id=org.pk)
            elif db_field.name == "organization":
                kwargs["queryset"] = Organization.objects.filter(pk=org.pk)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    # --- URL guessing: an object outside the queryset does not exist for this user ---
    def _require_visible(self, request: HttpRequest, object_id: str) -> None:
        try:
            visible = self.get_queryset(request).filter(pk=object_id).exists()
        except (ValidationError, ValueError):
            visible = False
        if not visible:
            raise Http404("No such entry.")

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        self._require_visible(request, object_id)
        return super().change_view(request, object_id, form_url, extra_context)

    def history_view(self, request: HttpRequest, object_id: str, extra_context: Any = None) -> HttpResponse:
        self._require_visible(request, object_id)
        return super().history_view(request, object_id, extra_context)

    def delete_view(self, request: HttpRequest, object_id: str, extra_context: Any = None) -> HttpResponse:
        self._require_visible(request, object_id)
        return super().delete_view(request, object_id, extra_context)

    # --- writes ---
    def save_model(self, request: HttpRequest, obj: models.Model, form: ModelForm, change: bool) -> None:
        if _staff(request):
            entry_save(
                instance=obj,
                actor=request.user,
                reason="staff_edit" if change else "staff_add",
                changed_fields=list(form.changed_data),
            )
            return
        # A partner's save changes nothing live: it becomes a ChangeRequest for staff review.
        names = tuple(name for name in form.changed_data if name in TARGETS[self.target_type][1])
        if not names:
            messages.info(request, "Nothing changed.")
            return
        try:
            request_obj = change_request_submit(
                user=request.user, target_type=self.target_type, target_id=obj.pk, changes=field_payload(obj, names)
            )
        except (ValidationError, ResourceError) as exc:
            text = exc.message if isinstance(exc, ResourceError) else "; ".join(exc.messages)
            messages.error(request, f"Not sent for review: {text}")
            return
        messages.info(
            request,
            f"Sent for review as change request #{request_obj.pk}; the live entry is unchanged until staff approve it.",
        )

    def log_change(self, request: HttpRequest, obj: models.Model, message: Any) -> Any:
        if not _staff(request):
            return None  # nothing was changed; the ChangeRequest and its audit event record the proposal
        return super().log_change(request, obj, message)

    def delete_model(self, request: HttpRequest, obj: models.Model) -> None:
        audit_event_record(
            action="resources.entry.deleted",
            actor=actor_label(request.user),
            object_type=self.target_type or obj._meta.model_name or "",
            object_id=str(obj.pk),
        )
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: models.QuerySet) -> None:
        for obj in queryset:
            self.delete_model(request, obj)


@admin.register(Organization)
class OrganizationAdmin(DirectoryAdmin):
    target_type = "organization"
    org_lookup = "pk"
    list_display = ("name", "slug", "url", "feed_url")
    search_fields = ("name", "slug")


@admin.register(Service)
class ServiceAdmin(DirectoryAdmin):
    target_type = "service"
    list_display = (
        "name",
        "organization",
        "status",
        "is_statewide",
        "is_crisis_line",
        "last_verified_at",
        "spanish_missing",
    )

    @admin.display(description="Spanish missing")
    def spanish_missing(self, obj: Service) -> str:
        """The fields a Spanish speaker reads in English (the card falls back to English for these)."""
        missing = [
            label
            for label, english, spanish in (
                ("description", obj.description, obj.description_es),
                ("eligibility", obj.eligibility, obj.eligibility_es),
                ("alert", obj.alert, obj.alert_es),
            )
            if english and not spanish
        ]
        return ", ".join(missing) or "—"

    list_filter = ("status", "is_statewide", "is_crisis_line", "source_verified")
    search_fields = ("name", "slug", "organization__name")


@admin.register(Location)
class LocationAdmin(DirectoryAdmin):
    target_type = "location"
    list_display = ("__str__", "organization", "city", "region", "geo_precision")
    list_filter = ("region", "geo_precision")
    search_fields = ("name", "address_1", "city", "organization__name")


@admin.register(Phone)
class PhoneAdmin(DirectoryAdmin):
    target_type = "phone"
    list_display = ("number", "type", "service", "organization", "description")
    search_fields = ("number", "service__name", "organization__name")


@admin.register(Schedule)
class ScheduleAdmin(DirectoryAdmin):
    target_type = "schedule"
    org_lookup = "service__organization_id"
    list_display = ("__str__", "service", "byday", "opens_at", "closes_at")
    search_fields = ("service__name",)


@admin.register(ServiceAtLocation)
class ServiceAtLocationAdmin(DirectoryAdmin):
    org_lookup = "service__organization_id"
    list_display = ("service", "location")


@admin.register(RequiredDocument)
class RequiredDocumentAdmin(DirectoryAdmin):
    org_lookup = "service__organization_id"
    list_display = ("document", "service")


@admin.register(PartnerMembership)
class PartnerMembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "organization", "created_at")

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _staff(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _staff(request)

    has_change_permission = has_view_permission
    has_delete_permission = has_view_permission

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _staff(request)


class _StaffReadOnly(admin.ModelAdmin):
    def has_module_permission(self, request: HttpRequest) -> bool:
        return _staff(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _staff(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(FeedRefresh)
class FeedRefreshAdmin(_StaffReadOnly):
    list_display = ("organization", "started_at", "status", "error_code", "change_requests_created", "bytes_read")
    list_filter = ("status", "error_code")


@admin.register(EntryVersion)
class EntryVersionAdmin(_StaffReadOnly):
    list_display = ("entity_type", "entity_id", "reason", "actor", "created_at")
    list_filter = ("entity_type", "reason")
    search_fields = ("entity_id",)


class ReviewActionForm(ActionForm):
    """The action bar with a note: the requester is emailed the outcome with this note."""

    note = forms.CharField(
        required=False, max_length=300, label="Note to the requester", widget=forms.TextInput(attrs={"size": 50})
    )


@admin.register(ServiceNotice)
class ServiceNoticeAdmin(_StaffReadOnly):
    """Urgent alerts and closures partners set: already live; supervisors confirm or undo them here."""

    list_display = ("service", "kind", "text", "starts_at", "ends_at", "review_status", "created_by", "reviewed_by")
    list_filter = ("review_status", "kind")
    search_fields = ("service__name", "text")
    action_form = ReviewActionForm
    actions = ("confirm", "undo")

    def has_review_permission(self, request: HttpRequest) -> bool:
        return _staff(request)

    def _act(self, request: HttpRequest, queryset: models.QuerySet, undo: bool) -> None:
        note = request.POST.get("note", "")
        for notice in queryset:
            try:
                (notice_undo if undo else notice_confirm)(notice_id=notice.pk, reviewer=request.user, note=note)
            except (ResourceError, ValidationError) as exc:
                text = exc.message if isinstance(exc, ResourceError) else "; ".join(exc.messages)
                messages.error(request, f"#{notice.pk}: {text}")
        messages.success(request, "Done.")

    @admin.action(description="Confirm selected notices", permissions=["review"])
    def confirm(self, request: HttpRequest, queryset: models.QuerySet) -> None:
        self._act(request, queryset, undo=False)

    @admin.action(description="Undo selected notices (take them down now)", permissions=["review"])
    def undo(self, request: HttpRequest, queryset: models.QuerySet) -> None:
        self._act(request, queryset, undo=True)


@admin.register(ChangeRequest)
class ChangeRequestAdmin(admin.ModelAdmin):
    """Review queue. Partners see their own organization's requests, read-only."""

    list_display = (
        "id",
        "organization",
        "target_type",
        "action",
        "changed_fields",
        "source",
        "status",
        "created_at",
        "reviewed_by",
        "reviewed_at",
    )
    list_filter = ("status", "source", "target_type")
    readonly_fields = (
        "organization",
        "target_type",
        "target_id",
        "action",
        "diff",
        "status",
        "source",
        "requested_by",
        "feed_refresh",
        "created_at",
        "reviewed_by",
        "reviewed_at",
        "review_note",
    )
    exclude = ("changes", "children")
    actions = ("approve", "reject")
    action_form = ReviewActionForm

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _staff(request) or _partner_org(request) is not None

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if _staff(request):
            return True
        org = _partner_org(request)
        return org is not None and (obj is None or obj.organization_id == org.pk)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_review_permission(self, request: HttpRequest) -> bool:
        return _staff(request)

    def get_queryset(self, request: HttpRequest) -> models.QuerySet:
        queryset = super().get_queryset(request).select_related("organization", "reviewed_by")
        if _staff(request):
            return queryset
        org = _partner_org(request)
        return queryset.filter(organization_id=org.pk) if org else queryset.none()

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        try:
            visible = self.get_queryset(request).filter(pk=int(object_id)).exists()
        except ValueError:
            visible = False
        if not visible:
            raise Http404("No such change request.")
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description="fields")
    def changed_fields(self, obj: ChangeRequest) -> str:
        return ", ".join(obj.fields_changed)

    @admin.display(description="changes")
    def diff(self, obj: ChangeRequest) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><th>{}</th><td>{}</td><td>{}</td></tr>",
            ((row["what"], row["field"], row["old"], row["new"]) for row in change_request_readable(obj)),
        )
        header = mark_safe("<tr><th>what</th><th>field</th><th>now</th><th>proposed</th></tr>")
        return format_html("<table>{}{}</table>", header, rows)

    def _review(self, request: HttpRequest, queryset: models.QuerySet, approve: bool) -> None:
        done, failed = 0, []
        note = request.POST.get("note", "")
        for change_request in queryset.order_by("created_at"):
            try:
                if approve:
                    change_request_approve(change_request_id=change_request.pk, reviewer=request.user, note=note)
                else:
                    change_request_reject(change_request_id=change_request.pk, reviewer=request.user, note=note)
                done += 1
            except (ResourceError, ValidationError) as exc:
                text = exc.message if isinstance(exc, ResourceError) else "; ".join(exc.messages)
                failed.append(f"#{change_request.pk}: {text}")
        verb = "Approved" if approve else "Rejected"
        if done:
            messages.success(request, f"{verb} {done} change request(s).")
        for text in failed:
            messages.error(request, text)

    @admin.action(description="Approve selected changes (apply them)", permissions=["review"])
    def approve(self, request: HttpRequest, queryset: models.QuerySet) -> None:
        self._review(request, queryset, approve=True)

    @admin.action(description="Reject selected changes", permissions=["review"])
    def reject(self, request: HttpRequest, queryset: models.QuerySet) -> None:
        self._review(request, queryset, approve=False)
