"""The fixture's integrity and the loader: idempotent upsert, re-embedding only changed text."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command

from corpus.models import CorpusEntry, CorpusEntryVersion
from corpus.services import FIXTURE_PATH, IMPORT_REVIEW_NOTE, CorpusLoadError, corpus_fixture_read, corpus_load
from corpus.types import CATEGORIES

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "tx_legal_sources.jsonl"


def test_the_fixture_has_enough_entries_in_every_category():
    records = corpus_fixture_read()
    assert len(records) >= 80
    counts = Counter(record["category"] for record in records)
    short = {category: counts[category] for category in CATEGORIES if category != "other" and counts[category] < 3}
    assert short == {}


def test_no_two_fixture_entries_share_a_citation_or_slug():
    records = corpus_fixture_read()
    assert len({r["citation"] for r in records}) == len(records)
    assert len({r["slug"] for r in records}) == len(records)


def test_every_entry_has_a_spanish_summary_of_its_own():
    for record in corpus_fixture_read():
        assert record["summary_es"].strip(), record["slug"]
        assert record["summary_es"] != record["summary_en"], record["slug"]


@pytest.mark.skipif(not REFERENCE.is_file(), reason="shared reference research not present")
def test_reference_entries_keep_their_research_id_citation_and_source():
    reference = {
        json.loads(line)["id"]: json.loads(line) for line in REFERENCE.read_text().splitlines() if line.strip()
    }
    for record in corpus_fixture_read():
        if record["slug"] in reference:
            source = reference[record["slug"]]
            assert (record["citation"], record["source_url"], record["source_excerpt"], record["verified"]) == (
                source["citation"],
                source["source_url"],
                source["source_excerpt"],
                source["verified"],
            )


def test_a_fixture_with_a_duplicate_citation_is_refused(tmp_path):
    records = corpus_fixture_read()[:2]
    records[1] = {**records[1], "citation": records[0]["citation"]}
    path = tmp_path / "dup.json"
    path.write_text(json.dumps({"entries": records}))
    with pytest.raises(CorpusLoadError, match="duplicate citation"):
        corpus_fixture_read(path=path)


@pytest.mark.django_db
def test_every_assertable_entry_has_a_source_url_and_excerpt(corpus):
    assert CorpusEntry.objects.filter(assertable=True).count() >= 80
    lacking = CorpusEntry.objects.filter(assertable=True).filter(source_url="") | CorpusEntry.objects.filter(
        assertable=True, source_excerpt=""
    )
    assert list(lacking.values_list("slug", flat=True)) == []


@pytest.mark.django_db
def test_unverified_entries_load_but_are_never_assertable(corpus):
    unverified = CorpusEntry.objects.filter(verified=False)
    assert set(unverified.values_list("slug", flat=True)) >= {"tx-gov-508-221", "tx-occ-53-023"}
    assert not unverified.filter(assertable=True).exists()
    assert not unverified.filter(reviewed_at__isnull=False).exists()


@pytest.mark.django_db
def test_import_review_is_recorded_honestly(corpus):
    imported = CorpusEntry.objects.get(slug="tx-elec-11-002")
    assert imported.assertable is True
    assert imported.reviewed_by is None
    assert imported.review_note == IMPORT_REVIEW_NOTE


@pytest.mark.django_db
def test_every_entry_is_embedded(corpus):
    assert not CorpusEntry.objects.filter(embedding__isnull=True).exists()


@pytest.mark.django_db
def test_a_second_load_changes_nothing_and_embeds_nothing(corpus, monkeypatch):
    from corpus import embeddings

    calls: list[int] = []
    monkeypatch.setattr(embeddings, "embed", lambda texts, **kw: calls.append(len(texts)) or [])
    versions = CorpusEntryVersion.objects.count()
    report = corpus_load()
    assert (report.created, report.updated, report.embedded) == (0, 0, 0)
    assert report.unchanged == len(corpus_fixture_read())
    assert CorpusEntryVersion.objects.count() == versions
    assert sum(calls) == 0


@pytest.mark.django_db
def test_a_changed_record_is_updated_and_only_it_is_re_embedded(corpus, tmp_path):
    data = json.loads(FIXTURE_PATH.read_text())
    target = next(r for r in data["entries"] if r["slug"] == "tx-gov-508-182")
    target["summary_en"] += " Fees are paid to TDCJ."
    other = next(r for r in data["entries"] if r["slug"] == "tx-elec-11-002")
    other["caveat"] += " (checked again)"  # a change that does not alter the embedded text
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(data, ensure_ascii=False))

    report = corpus_load(path=path)
    assert (report.created, report.updated, report.embedded) == (0, 2, 1)
    entry = CorpusEntry.objects.get(slug="tx-gov-508-182")
    assert entry.version == 2
    assert entry.summary_en.endswith("Fees are paid to TDCJ.")
    # The loader re-reviews imported research; a human edit would have withdrawn it (see models tests).
    assert entry.assertable is True


@pytest.mark.django_db
def test_a_reload_does_not_overwrite_an_admin_edit(corpus):
    entry = CorpusEntry.objects.get(slug="tx-elec-13-002")
    entry.summary_en = "Edited by a reviewer."
    entry.save()
    corpus_load()
    entry.refresh_from_db()
    assert entry.summary_en == "Edited by a reviewer."
    assert entry.assertable is False


@pytest.mark.django_db
def test_the_load_command_with_no_path_loads_the_project_fixture(corpus, capsys):
    call_command("corpus", "load", "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["unchanged"] == len(corpus_fixture_read())


@pytest.mark.django_db
def test_a_repealed_provision_loads_for_traceability_but_is_never_assertable(corpus):
    repealed = CorpusEntry.objects.get(slug="tx-ccp-55-01")
    assert repealed.verified and not repealed.assertable
    assert CorpusEntry.objects.get(slug="tx-ccp-55a-051").assertable
