"""The calibration dev set and the shipped floor: a retrieval or gate regression fails the suite."""

from __future__ import annotations

import json

import pytest

from corpus.evaluation import DEV_SET_PATH, dev_set_read, evaluate
from corpus.models import CorpusEntry
from corpus.retrieval import CALIBRATION_PATH, calibration


def test_the_dev_set_is_big_and_varied_enough():
    questions = dev_set_read()
    assert len(questions) >= 120
    assert sum(q.language == "es" for q in questions) >= 30
    assert sum(not q.answerable for q in questions) >= 30
    assert all(q.slugs for q in questions if q.answerable)
    assert not any(q.slugs for q in questions if not q.answerable)
    assert len({q.id for q in questions}) == len(questions)
    for line in DEV_SET_PATH.read_text().splitlines():
        assert set(json.loads(line)) == {"id", "text", "language", "answerable", "slugs"}


@pytest.mark.django_db
def test_every_labelled_slug_exists(corpus):
    slugs = set(CorpusEntry.objects.values_list("slug", flat=True))
    assert {s for q in dev_set_read() for s in q.slugs} <= slugs


def test_the_shipped_floor_is_the_calibrated_one():
    stored = json.loads(CALIBRATION_PATH.read_text())
    assert 0.0 < stored["floor"] < 1.0
    assert calibration()["floor"] == stored["floor"]


@pytest.mark.slow
@pytest.mark.django_db
def test_the_shipped_calibration_meets_the_quality_and_gate_floors(corpus):
    report = evaluate(tune=False, refit_floor=False)
    hybrid, lexical, semantic = (report["legs"][leg] for leg in ("hybrid", "lexical", "semantic"))
    assert hybrid["recall_at_5"] >= 0.90
    assert hybrid["mrr"] >= 0.75
    assert hybrid["spanish"]["recall_at_5"] >= 0.85
    assert hybrid["recall_at_5"] >= max(lexical["recall_at_5"], semantic["recall_at_5"])
    assert hybrid["mrr"] >= max(lexical["mrr"], semantic["mrr"])
    assert hybrid["gate_recall"] >= 0.90  # unanswerable questions handed off
    assert hybrid["answerable_blocked"] <= 0.10
