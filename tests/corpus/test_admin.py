"""Admin: search and filters work, the review action records the reviewer, edits keep history."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.log import AuditEvent
from corpus.models import CorpusEntry, CorpusEntryVersion

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.corpus.admin_urls")]


@pytest.fixture
def admin_client_logged(client, reviewer):
    client.force_login(reviewer)
    return client


def test_the_changelist_searches_and_filters(corpus, admin_client_logged):
    url = reverse("admin:corpus_corpusentry_changelist")
    response = admin_client_logged.get(url, {"q": "voter", "category__exact": "voting", "assertable__exact": "1"})
    assert response.status_code == 200
    assert b"tx-elec-11-002" in response.content
    assert b"tx-gov-508-182" not in response.content


def test_the_review_action_records_who_reviewed(corpus, admin_client_logged, reviewer):
    entry = CorpusEntry.objects.get(slug="tx-elec-13-002")
    CorpusEntry.objects.filter(pk=entry.pk).update(reviewed_at=None, review_note="")
    response = admin_client_logged.post(
        reverse("admin:corpus_corpusentry_changelist"),
        {"action": "mark_reviewed", "_selected_action": [entry.pk]},
    )
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.reviewed_by == reviewer and entry.assertable
    assert AuditEvent.objects.filter(action="corpus.reviewed", object_id="tx-elec-13-002").exists()


def test_an_admin_edit_bumps_the_version_and_withdraws_the_review(corpus, admin_client_logged, reviewer):
    entry = CorpusEntry.objects.get(slug="tx-elec-64-012")
    url = reverse("admin:corpus_corpusentry_change", args=[entry.pk])
    page = admin_client_logged.get(url)
    assert page.status_code == 200
    assert b"384 dims" in page.content  # the embedding is shown read-only
    data = {
        "category": entry.category,
        "jurisdiction": entry.jurisdiction,
        "citation": entry.citation,
        "title": entry.title,
        "summary_en": entry.summary_en + " Edited.",
        "summary_es": entry.summary_es,
        "caveat": entry.caveat,
        "caveat_es": entry.caveat_es,
        "source_url": entry.source_url,
        "source_excerpt": entry.source_excerpt,
        "verified": "on",
        "last_checked": "",
        "versions-TOTAL_FORMS": "0",
        "versions-INITIAL_FORMS": "0",
        "versions-MIN_NUM_FORMS": "0",
        "versions-MAX_NUM_FORMS": "1000",
    }
    response = admin_client_logged.post(url, data)
    assert response.status_code == 302, response.content[:2000]
    entry.refresh_from_db()
    assert entry.version == 2
    assert entry.assertable is False
    latest = CorpusEntryVersion.objects.filter(entry=entry).order_by("-version").first()
    assert latest.changed_by == reviewer and latest.changed_fields == ["summary_en"]
