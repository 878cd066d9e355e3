"""The entry's invariants held by the database and by save(): assertable, versions, vectors."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction
from django.utils import timezone

from corpus.models import CorpusEntry, CorpusEntryVersion
from corpus.services import ReviewError, corpus_entry_mark_reviewed, corpus_entry_save

pytestmark = pytest.mark.django_db


def _entry(**overrides) -> CorpusEntry:
    values = {
        "slug": "tx-test-1",
        "category": "voting",
        "jurisdiction": "TX",
        "citation": "Tex. Test Code § 1.001",
        "title": "A test rule about ballots",
        "summary_en": "A plain summary about ballots.",
        "summary_es": "Un resumen sencillo sobre boletas.",
        "source_url": "https://example.org/rule",
        "source_excerpt": "the excerpt",
        "verified": True,
    }
    values.update(overrides)
    entry = CorpusEntry(**values)
    entry.save()
    return entry


def test_it_is_not_assertable_until_reviewed(reviewer):
    entry = _entry()
    assert entry.assertable is False
    corpus_entry_mark_reviewed(entry=entry, reviewer=reviewer)
    entry.refresh_from_db()
    assert entry.assertable is True
    assert entry.reviewed_by == reviewer


def test_an_unverified_entry_never_becomes_assertable_even_with_a_review_date():
    entry = _entry(verified=False, source_excerpt="")
    CorpusEntry.objects.filter(pk=entry.pk).update(reviewed_at=timezone.now())
    entry.refresh_from_db()
    assert entry.assertable is False


def test_a_verified_reviewed_entry_without_an_excerpt_is_not_assertable():
    entry = _entry(source_excerpt="")
    CorpusEntry.objects.filter(pk=entry.pk).update(reviewed_at=timezone.now())
    entry.refresh_from_db()
    assert entry.assertable is False


def test_assertable_cannot_be_set_directly():
    entry = _entry()
    CorpusEntry.objects.filter(pk=entry.pk).update(assertable=True)  # Django drops generated fields
    entry.refresh_from_db()
    assert entry.assertable is False
    with pytest.raises((ProgrammingError, IntegrityError)), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE corpus_corpusentry SET assertable = true WHERE id = %s", [entry.pk])


def test_review_is_refused_for_unverified_entries(reviewer):
    entry = _entry(verified=False)
    with pytest.raises(ReviewError):
        corpus_entry_mark_reviewed(entry=entry, reviewer=reviewer)


def test_review_writes_an_audit_event(reviewer):
    from audit.log import AuditEvent

    entry = _entry()
    corpus_entry_mark_reviewed(entry=entry, reviewer=reviewer)
    event = AuditEvent.objects.order_by("-id").first()
    assert (event.action, event.actor, event.object_type, event.object_id) == (
        "corpus.reviewed",
        f"user:{reviewer.pk}",
        "corpus_entry",
        "tx-test-1",
    )


def test_an_edit_bumps_the_version_keeps_history_and_withdraws_the_review(reviewer):
    entry = _entry()
    corpus_entry_mark_reviewed(entry=entry, reviewer=reviewer)
    entry.summary_en = "A changed summary about ballots and polls."
    corpus_entry_save(entry=entry, actor=reviewer, note="fix wording")
    entry.refresh_from_db()
    assert entry.version == 2
    assert entry.reviewed_at is None and entry.reviewed_by is None
    assert entry.assertable is False
    versions = list(CorpusEntryVersion.objects.filter(entry=entry).order_by("version"))
    assert [v.version for v in versions] == [1, 2]
    assert versions[0].snapshot["summary_en"] == "A plain summary about ballots."
    assert versions[1].changed_fields == ["summary_en"]
    assert versions[1].changed_by == reviewer


def test_a_save_without_content_change_keeps_version_and_review(reviewer):
    entry = _entry()
    corpus_entry_mark_reviewed(entry=entry, reviewer=reviewer)
    entry.last_checked = timezone.localdate()
    entry.save()
    entry.refresh_from_db()
    assert entry.version == 1
    assert entry.assertable is True
    assert CorpusEntryVersion.objects.filter(entry=entry).count() == 1


def test_search_vectors_follow_an_edit():
    entry = _entry()
    entry.summary_en = "Covers the zeppelin registry."
    entry.summary_es = "Trata del registro de zepelines."
    entry.save()
    assert CorpusEntry.objects.filter(pk=entry.pk, search_en="zeppelin").exists()
    assert CorpusEntry.objects.filter(pk=entry.pk, search_es="zepelines").exists()


def test_text_edit_re_embeds_and_other_edits_do_not(monkeypatch):
    from corpus import embeddings

    entry = _entry()
    calls: list[str] = []
    real = embeddings.embed_one
    monkeypatch.setattr(embeddings, "embed_one", lambda text: calls.append(text) or real(text))
    entry.caveat = "new caveat"
    entry.save()
    assert calls == []
    entry.title = "A test rule about ballots and polling places"
    entry.save()
    assert len(calls) == 1
