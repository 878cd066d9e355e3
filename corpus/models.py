"""Cited legal entries, their edit history, embeddings and full-text vectors.

Invariants the database itself holds (not only this code):
- `assertable` is a generated column: true only when the entry is verified AND reviewed AND has a
  source URL and excerpt, so no
  code path (update(), raw SQL, the admin) can make an unreviewed or unverified entry citable;
- the search vectors are generated columns too, so they never go stale after an edit;
- citations and slugs are unique.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models, transaction
from django.db.models import Q
from pgvector.django import HnswIndex, VectorField

from corpus.embeddings import EMBEDDING_DIMENSIONS
from corpus.types import CATEGORIES, JURISDICTIONS

# Fields whose change is an edit of the entry's content: bumps the version, keeps history, and
# withdraws the review (a reviewer approved the old text, not the new one).
CONTENT_FIELDS: tuple[str, ...] = (
    "category",
    "jurisdiction",
    "citation",
    "title",
    "summary_en",
    "summary_es",
    "source_url",
    "source_excerpt",
    "caveat",
    "caveat_es",
    "verified",
    "key_points",
)


# Spanish SMS is often typed without accents, and the Snowball Spanish stemmer only strips
# suffixes it recognises with their accents ("identificación" -> "identif", "identificacion" stays
# whole), so both the stored text and the question are folded the same way before stemming.
# translate() is IMMUTABLE, so it can sit inside a generated column (unaccent cannot).
ACCENTED = "áéíóúüñÁÉÍÓÚÜÑ"
UNACCENTED = "aeiouunAEIOUUN"


class FoldAccents(models.Func):
    """SQL translate() that folds Spanish accents (same map as `fold_accents` in Python)."""

    function = "translate"
    template = f"%(function)s(%(expressions)s, '{ACCENTED}', '{UNACCENTED}')"
    output_field = models.TextField()


_FOLD_TABLE = str.maketrans(ACCENTED, UNACCENTED)


def fold_accents(text: str) -> str:
    """Fold Spanish accents exactly as the Spanish search vector does."""
    return text.translate(_FOLD_TABLE)


def embedding_text(*, title: str, citation: str, summary_en: str, summary_es: str) -> str:
    """Return the text an entry is embedded from.

    MiniLM is English-centred; adding the Spanish summary lets Spanish questions land near the
    entry too (the Spanish full-text leg does most of that work).
    """
    return f"{title}. {citation}. {summary_en} {summary_es}".strip()


def content_hash_of(text: str) -> str:
    """Return the hash that decides whether an entry must be embedded again."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CorpusEntry(models.Model):
    """One Texas or federal provision, in plain English and Spanish, with its source."""

    slug = models.SlugField(
        max_length=80, unique=True, help_text="Stable id; entries from the reference research keep its `id`."
    )
    category = models.CharField(max_length=20, choices=[(c, c) for c in CATEGORIES])
    jurisdiction = models.CharField(max_length=2, choices=[(j, j) for j in JURISDICTIONS])
    citation = models.CharField(max_length=300, unique=True)
    title = models.CharField(max_length=200)
    summary_en = models.TextField(help_text="Plain English, about 8th-grade level; what the rule does, never advice.")
    summary_es = models.TextField(help_text="Plain Spanish, same content as the English summary.")
    source_url = models.URLField(max_length=500, blank=True)
    source_excerpt = models.TextField(blank=True, help_text="Short verbatim quote from the source page.")
    caveat = models.TextField(blank=True)
    caveat_es = models.TextField(
        blank=True, help_text="The caveat in plain Spanish, same content; required when there is a caveat."
    )
    key_points = models.JSONField(
        default=list,
        blank=True,
        help_text=(
            'One fact each, plain words, en and es: [{"kind": "eligibility|cost|deadline|process|other", '
            '"en", "es", "quote_en", "quote_es"}]; each quote is a verbatim span of the excerpt or a summary.'
        ),
    )
    verified = models.BooleanField(
        default=False, help_text="Text supporting the citation and summary was read at the source."
    )

    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_note = models.CharField(max_length=200, blank=True)
    # Derived in the database: nothing can set it directly.
    assertable = models.GeneratedField(
        # A Q is a valid (boolean) expression here; django-stubs types the argument as Expression only.
        expression=Q(verified=True, reviewed_at__isnull=False) & ~Q(source_url="") & ~Q(source_excerpt=""),  # type: ignore[arg-type]
        output_field=models.BooleanField(),
        db_persist=True,
    )

    last_checked = models.DateField(null=True, blank=True, help_text="When the source text was last read.")
    version = models.PositiveIntegerField(default=1, editable=False)
    content_hash = models.CharField(max_length=64, blank=True, editable=False)
    # Hash of the fixture record last imported: a reload skips records that did not change, so an
    # unchanged fixture never overwrites a reviewer's edit made in the admin.
    import_hash = models.CharField(max_length=64, blank=True, editable=False)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    search_en = models.GeneratedField(
        expression=SearchVector("title", "citation", config="english", weight="A")
        + SearchVector("summary_en", config="english", weight="B")
        + SearchVector("source_excerpt", config="english", weight="C"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    # Titles and citations are English but carry names (SNAP, TANF, Medicaid, DPS) Spanish
    # speakers type too. Accents are folded first (see FoldAccents).
    search_es = models.GeneratedField(
        expression=SearchVector(FoldAccents("summary_es"), config="spanish", weight="A")
        + SearchVector("title", "citation", config="spanish", weight="B"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("category", "slug")
        verbose_name_plural = "corpus entries"
        indexes = [
            GinIndex(fields=["search_en"], name="corpus_entry_search_en_gin"),
            GinIndex(fields=["search_es"], name="corpus_entry_search_es_gin"),
            HnswIndex(
                name="corpus_entry_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            models.Index(fields=["category", "assertable"], name="corpus_entry_cat_assert"),
        ]
        constraints = [
            # Redundant with the generated expression on purpose: a later migration that turns
            # `assertable` into a plain column cannot silently drop the rule.
            models.CheckConstraint(
                condition=Q(assertable=False) | Q(verified=True, reviewed_at__isnull=False),
                name="corpus_entry_assertable_needs_verified_review",
            ),
            models.CheckConstraint(
                condition=Q(assertable=False) | (~Q(source_url="") & ~Q(source_excerpt="")),
                name="corpus_entry_assertable_needs_source",
            ),
            models.CheckConstraint(condition=Q(category__in=CATEGORIES), name="corpus_entry_category_valid"),
            models.CheckConstraint(condition=Q(jurisdiction__in=JURISDICTIONS), name="corpus_entry_jurisdiction_valid"),
        ]

    # Set by the caller before save() to attribute an edit in the history (not columns).
    _changed_by: Any
    _change_note: str

    def __str__(self) -> str:
        return f"{self.citation} ({self.slug})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save; an edit of content bumps the version, records history and withdraws the review.

        The caller may set `self._changed_by` (a user) and `self._change_note` to attribute the edit.
        Embeds again only when the embedded text changed (content hash), so bulk loaders can
        pre-compute embeddings in batches and pass them in.
        """
        with transaction.atomic():
            previous = None
            if self.pk is not None:
                previous = (
                    type(self).objects.select_for_update().filter(pk=self.pk).values(*CONTENT_FIELDS, "version").first()
                )
            changed = [] if previous is None else [n for n in CONTENT_FIELDS if previous[n] != getattr(self, n)]
            if changed:
                # From the locked row, not this instance: a stale copy must not reuse a version number.
                self.version = previous["version"] + 1
                self.reviewed_at = None
                self.reviewed_by = None
                self.review_note = ""
                if kwargs.get("update_fields") is not None:
                    kwargs["update_fields"] = {
                        *kwargs["update_fields"],
                        "version",
                        "reviewed_at",
                        "reviewed_by",
                        "review_note",
                    }
            text_hash = content_hash_of(self.embedding_source())
            if text_hash != self.content_hash or self.embedding is None:
                from corpus.embeddings import embed_one

                self.embedding = embed_one(self.embedding_source())
                self.content_hash = text_hash
                if kwargs.get("update_fields") is not None:
                    kwargs["update_fields"] = {*kwargs["update_fields"], "embedding", "content_hash"}
            super().save(*args, **kwargs)
            if previous is None or changed:
                CorpusEntryVersion.objects.create(
                    entry=self,
                    version=self.version,
                    snapshot=self.content_snapshot(),
                    changed_fields=changed,
                    changed_by=getattr(self, "_changed_by", None),
                    note=str(getattr(self, "_change_note", "") or "")[:200],
                )

    def embedding_source(self) -> str:
        """Return the text this entry's embedding is computed from."""
        return embedding_text(
            title=self.title, citation=self.citation, summary_en=self.summary_en, summary_es=self.summary_es
        )

    def content_snapshot(self) -> dict[str, Any]:
        """Return the content fields as plain JSON (what a version row keeps)."""
        return {name: getattr(self, name) for name in CONTENT_FIELDS}


class CorpusEntryVersion(models.Model):
    """The content of an entry at one version: the edit history reviewers and auditors read."""

    entry = models.ForeignKey(CorpusEntry, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    snapshot = models.JSONField()
    changed_fields = models.JSONField(default=list)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("entry", "-version")
        constraints = [models.UniqueConstraint(fields=["entry", "version"], name="corpus_version_unique_per_entry")]

    def __str__(self) -> str:
        return f"{self.entry_id} v{self.version}"
