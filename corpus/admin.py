"""Admin for corpus entries: search, filters, review action, read-only derived fields and history."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest

from corpus.models import CorpusEntry, CorpusEntryVersion
from corpus.services import ReviewError, corpus_entry_mark_reviewed, corpus_entry_save


class CorpusEntryVersionInline(admin.TabularInline):
    model = CorpusEntryVersion
    extra = 0
    can_delete = False
    fields = ("version", "changed_fields", "changed_by", "note", "created_at")
    readonly_fields = fields
    ordering = ("-version",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CorpusEntry)
class CorpusEntryAdmin(admin.ModelAdmin):
    list_display = ("citation", "slug", "category", "jurisdiction", "verified", "assertable", "version", "reviewed_at")
    list_filter = ("category", "verified", "assertable", "jurisdiction")
    search_fields = ("slug", "citation", "title", "summary_en", "summary_es")
    ordering = ("category", "slug")
    actions = ("mark_reviewed",)
    inlines = (CorpusEntryVersionInline,)
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    readonly_fields = (
        "assertable",
        "reviewed_by",
        "reviewed_at",
        "review_note",
        "version",
        "content_hash",
        "embedding_preview",
        "search_en",
        "search_es",
        "created_at",
        "updated_at",
    )
    fieldsets = (
        (None, {"fields": ("slug", "category", "jurisdiction", "citation", "title")}),
        ("Plain-language summaries", {"fields": ("summary_en", "summary_es", "caveat", "caveat_es", "key_points")}),
        ("Source", {"fields": ("source_url", "source_excerpt", "verified", "last_checked")}),
        (
            "Review (editing any text above withdraws the review)",
            {"fields": ("assertable", "reviewed_by", "reviewed_at", "review_note", "version")},
        ),
        (
            "Derived (read-only)",
            {
                "classes": ("collapse",),
                "fields": ("content_hash", "embedding_preview", "search_en", "search_es", "created_at", "updated_at"),
            },
        ),
    )

    @admin.display(description="embedding")
    def embedding_preview(self, obj: CorpusEntry) -> str:
        if obj.embedding is None:
            return "(not embedded)"
        values = list(obj.embedding)
        return f"{len(values)} dims: [" + ", ".join(f"{v:.3f}" for v in values[:6]) + ", …]"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # The slug is the entry's identity (and the research's id): fixed once created.
        return (*self.readonly_fields, "slug") if obj is not None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: CorpusEntry, form: Any, change: bool) -> None:
        corpus_entry_save(entry=obj, actor=request.user, note="admin edit")
        if change and obj.reviewed_at is None and form.changed_data:
            messages.warning(
                request, f"{obj.slug}: content changed, so the entry is no longer assertable until reviewed again."
            )

    @admin.action(description="Mark reviewed (I checked the text against the source)")
    def mark_reviewed(self, request: HttpRequest, queryset: QuerySet[CorpusEntry]) -> None:
        done = 0
        for entry in queryset:
            try:
                corpus_entry_mark_reviewed(entry=entry, reviewer=request.user)
                done += 1
            except ReviewError as error:
                messages.error(request, error.message)
        if done:
            messages.success(request, f"{done} entr{'y' if done == 1 else 'ies'} marked reviewed by {request.user}.")
