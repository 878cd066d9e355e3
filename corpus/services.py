"""Writes of the corpus: loading the fixture, editing and reviewing entries, re-embedding."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from corpus.models import CONTENT_FIELDS, CorpusEntry, content_hash_of, embedding_text
from corpus.types import CATEGORIES, JURISDICTIONS

FIXTURE_PATH = Path(__file__).resolve().parent / "fixtures" / "corpus.json"
# The demo's stand-in for a human review of imported research. It is recorded as what it is:
# no reviewer (reviewed_by stays null) and this note, so a supervisor can find and redo them.
IMPORT_REVIEW_NOTE = "imported from verified reference research"
_REQUIRED = ("slug", "category", "jurisdiction", "citation", "title", "summary_en", "summary_es")


class CorpusLoadError(ValueError):
    """The fixture is malformed; nothing was written."""


class ReviewError(ValueError):
    """An entry that cannot become citable was sent for review."""

    http_status = 400
    code = "corpus_review_refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class LoadReport:
    """What a load did; `embedded` counts entries whose text had to be embedded again."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    embedded: int = 0
    import_reviewed: int = 0
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Return the report as plain JSON."""
        return dict(self.__dict__)


def _record_hash(record: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _validate(records: list[dict[str, Any]]) -> None:
    seen_slugs: set[str] = set()
    seen_citations: set[str] = set()
    for index, record in enumerate(records):
        missing = [name for name in _REQUIRED if not str(record.get(name) or "").strip()]
        if missing:
            raise CorpusLoadError(f"entry {index} ({record.get('slug')!r}) lacks {', '.join(missing)}")
        if record["category"] not in CATEGORIES:
            raise CorpusLoadError(f"entry {record['slug']!r}: unknown category {record['category']!r}")
        if record["jurisdiction"] not in JURISDICTIONS:
            raise CorpusLoadError(f"entry {record['slug']!r}: unknown jurisdiction {record['jurisdiction']!r}")
        if record["slug"] in seen_slugs:
            raise CorpusLoadError(f"duplicate slug {record['slug']!r}")
        if record["citation"] in seen_citations:
            raise CorpusLoadError(f"duplicate citation {record['citation']!r}")
        seen_slugs.add(record["slug"])
        seen_citations.add(record["citation"])
        _validate_key_points(record)
        if str(record.get("caveat") or "").strip() and not str(record.get("caveat_es") or "").strip():
            # A Spanish reader would get "Nota:" followed by English: the caveat must be written in both.
            raise CorpusLoadError(f"entry {record['slug']!r}: has a caveat but no caveat_es")


KEY_POINT_KINDS = ("eligibility", "cost", "deadline", "process", "other")


def _validate_key_points(record: dict[str, Any]) -> None:
    """Each key point is one plain fact in both languages whose quotes are verbatim in the entry's texts."""
    from audit.claims import quote_in

    texts = [record.get("source_excerpt") or "", record.get("summary_en") or "", record.get("summary_es") or ""]
    points = record.get("key_points") or []
    if not isinstance(points, list):
        raise CorpusLoadError(f"entry {record['slug']!r}: key_points must be a list")
    for n, point in enumerate(points):
        where = f"entry {record['slug']!r} key point {n}"
        if not isinstance(point, dict) or set(point) - {"kind", "en", "es", "quote_en", "quote_es"}:
            raise CorpusLoadError(f"{where}: unexpected shape")
        if point.get("kind") not in KEY_POINT_KINDS or not point.get("en") or not point.get("es"):
            raise CorpusLoadError(f"{where}: needs a kind and text in en and es")
        for language in ("en", "es"):
            if not quote_in(str(point.get(f"quote_{language}") or ""), texts):
                raise CorpusLoadError(f"{where}: quote_{language} is not a verbatim span of the excerpt or a summary")


def corpus_fixture_read(*, path: Path | None = None) -> list[dict[str, Any]]:
    """Return the fixture's entry records (the project fixture when no path is given)."""
    data = json.loads((path or FIXTURE_PATH).read_text(encoding="utf-8"))
    records = data["entries"] if isinstance(data, dict) else data
    _validate(records)
    return records


def _importable_review(record: dict[str, Any]) -> bool:
    # A repealed provision stays in the corpus for traceability (old forms still cite it) but is
    # never cleared for citing: stating it as current law would be a wrong answer.
    repealed = "repealed" in str(record.get("citation", "")).lower()
    return bool(record.get("verified") and record.get("source_url") and record.get("source_excerpt")) and not repealed


def corpus_load(*, path: Path | None = None, import_review: bool = True) -> LoadReport:
    """Upsert fixture entries by slug; embed only new or changed text; safe to run again.

    A record whose fixture content is unchanged since the last load is skipped entirely, so a
    reload neither bumps versions nor overwrites an admin edit. When `import_review` is on,
    verified records with a source are marked reviewed by the import (no reviewer, a note).
    """
    from corpus.embeddings import embed

    records = corpus_fixture_read(path=path)
    report = LoadReport()
    existing = {entry.slug: entry for entry in CorpusEntry.objects.filter(slug__in=[r["slug"] for r in records])}

    pending: list[tuple[dict[str, Any], CorpusEntry, bool]] = []
    for record in records:
        import_hash = _record_hash(record)
        entry = existing.get(record["slug"])
        if entry is not None and entry.import_hash == import_hash:
            report.unchanged += 1
            continue
        created = entry is None
        entry = entry or CorpusEntry(slug=record["slug"])
        for name in CONTENT_FIELDS:
            default: Any = False if name == "verified" else [] if name == "key_points" else ""
            value = record.get(name, default)
            setattr(entry, name, value if value is not None else default)
        entry.last_checked = record.get("last_checked") or None
        entry.import_hash = import_hash
        pending.append((record, entry, created))
        if record.get("verified") and not _importable_review(record):
            report.warnings.append(
                f"{record['slug']}: verified but repealed or lacking a source URL or excerpt; left unreviewed"
            )

    # Embed in one batch: the model's per-call overhead dominates single-text calls.
    to_embed = [
        entry for _record, entry, _created in pending if content_hash_of(entry.embedding_source()) != entry.content_hash
    ]
    vectors = embed([entry.embedding_source() for entry in to_embed])
    for entry, vector in zip(to_embed, vectors, strict=True):
        entry.embedding = vector
        entry.content_hash = content_hash_of(entry.embedding_source())
    report.embedded = len(to_embed)

    now = timezone.now()
    with transaction.atomic():
        for record, entry, created in pending:
            entry._change_note = "fixture load"
            entry.save()
            if created:
                report.created += 1
            else:
                report.updated += 1
            if import_review and _importable_review(record) and entry.reviewed_at is None:
                CorpusEntry.objects.filter(pk=entry.pk).update(
                    reviewed_at=now, reviewed_by=None, review_note=IMPORT_REVIEW_NOTE
                )
                report.import_reviewed += 1
    return report


def corpus_entry_save(*, entry: CorpusEntry, actor: Any | None = None, note: str = "") -> CorpusEntry:
    """Save an edit made by a person: content edits bump the version, keep history and un-review."""
    entry._changed_by = actor if getattr(actor, "pk", None) else None
    entry._change_note = note
    entry.save()
    return entry


def corpus_entry_mark_reviewed(*, entry: CorpusEntry, reviewer: Any) -> CorpusEntry:
    """Record that `reviewer` checked this entry's current text against its source.

    Refuses entries that could never be cited (unverified, or no source URL/excerpt), so a review
    always means "this may now be shown to a user".
    """
    if not entry.verified:
        raise ReviewError(f"{entry.slug}: only a verified entry can be reviewed; verify its source text first")
    if not entry.source_url or not entry.source_excerpt:
        raise ReviewError(f"{entry.slug}: an entry needs a source URL and excerpt before it can be reviewed")
    with transaction.atomic():
        now = timezone.now()
        CorpusEntry.objects.filter(pk=entry.pk).update(reviewed_at=now, reviewed_by=reviewer, review_note="")
        audit_event_record(
            action="corpus.reviewed",
            actor=f"user:{reviewer.pk}",
            object_type="corpus_entry",
            object_id=entry.slug,
            data={"version": entry.version},
        )
    entry.refresh_from_db()
    return entry


def corpus_reindex(*, force: bool = False) -> int:
    """Embed entries whose text changed since their last embedding (all of them with `force`)."""
    from corpus.embeddings import embed

    stale = []
    for entry in CorpusEntry.objects.only(
        "id", "title", "citation", "summary_en", "summary_es", "content_hash", "embedding"
    ):
        text = embedding_text(
            title=entry.title, citation=entry.citation, summary_en=entry.summary_en, summary_es=entry.summary_es
        )
        if force or entry.embedding is None or entry.content_hash != content_hash_of(text):
            stale.append((entry.pk, text))
    vectors = embed([text for _pk, text in stale])
    with transaction.atomic():
        for (pk, text), vector in zip(stale, vectors, strict=True):
            # update(): re-embedding is not an edit of content, so no version or review change.
            CorpusEntry.objects.filter(pk=pk).update(embedding=vector, content_hash=content_hash_of(text))
    return len(stale)
