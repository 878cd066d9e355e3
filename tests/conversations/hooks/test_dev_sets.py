"""Floors on the dev sets: the issue's targets, checked on every run."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from conversations.evaluation.hooks_metrics import (
    DEV_DIR,
    STRUCTURED_PII,
    TARGETS,
    crisis_metrics,
    latency_metrics,
    load_jsonl,
    pii_metrics,
)
from conversations.hooks import CrisisResult, Redaction
from conversations.hooks.crisis import CRISIS_CATEGORIES


@pytest.fixture(scope="module")
def crisis_rows() -> list[dict[str, Any]]:
    return load_jsonl(DEV_DIR / "crisis_dev.jsonl")


@pytest.fixture(scope="module")
def pii_rows() -> list[dict[str, Any]]:
    return load_jsonl(DEV_DIR / "pii_dev.jsonl")


@pytest.fixture(scope="module")
def crisis(crisis_rows: list[dict[str, Any]]) -> dict[str, Any]:
    return crisis_metrics(crisis_rows)


@pytest.fixture(scope="module")
def pii(pii_rows: list[dict[str, Any]]) -> dict[str, Any]:
    return pii_metrics(pii_rows)


def test_the_crisis_dev_set_has_the_promised_shape(crisis_rows: list[dict[str, Any]]) -> None:
    assert len(crisis_rows) >= 200
    assert len({r["id"] for r in crisis_rows}) == len(crisis_rows)
    for row in crisis_rows:
        assert set(row) == {"id", "text", "language", "category", "hard_negative"}
        assert row["category"] in (*CRISIS_CATEGORIES, "none")
        assert not (row["hard_negative"] and row["category"] != "none")
    labels = Counter(r["category"] for r in crisis_rows)
    assert sum(n for c, n in labels.items() if c != "none") >= 60
    assert all(labels[c] >= 10 for c in CRISIS_CATEGORIES)
    assert sum(r["hard_negative"] for r in crisis_rows) >= 60
    assert {"en", "es"} <= {r["language"] for r in crisis_rows}


def test_the_pii_dev_set_has_the_promised_shape(pii_rows: list[dict[str, Any]]) -> None:
    assert len(pii_rows) >= 120
    for row in pii_rows:
        assert {"id", "text", "pii", "keep"} <= set(row)
        for item in row["pii"]:
            assert item["value"] in row["text"]
        for keep in row["keep"]:
            assert keep in row["text"]
    types = Counter(item["type"] for row in pii_rows for item in row["pii"])
    assert all(types[kind] >= 5 for kind in STRUCTURED_PII)


def test_crisis_recall_meets_its_floor(crisis: dict[str, Any]) -> None:
    assert crisis["recall"] >= TARGETS["crisis_recall"], crisis["misses"]


def test_every_suicide_or_self_harm_message_is_caught(crisis: dict[str, Any]) -> None:
    assert crisis["suicide_recall"] == TARGETS["suicide_recall"] == 1.0, crisis["misses"]


def test_hard_negatives_rarely_raise_a_false_alarm(crisis: dict[str, Any]) -> None:
    assert crisis["hard_negative_fpr"] <= TARGETS["hard_negative_fpr_max"], crisis["false_alarms"]


def test_every_structured_pii_value_is_removed(pii: dict[str, Any]) -> None:
    for kind in STRUCTURED_PII:
        assert pii["recall_by_type"][kind] == 1.0, (kind, pii["leaks"])


def test_redaction_rarely_touches_what_is_not_pii(pii: dict[str, Any]) -> None:
    assert pii["over_redaction"] <= TARGETS["over_redaction_max"]
    assert pii["keep_survival"] == 1.0, pii["damaged_keeps"]


def test_the_hooks_meet_the_latency_target(crisis_rows: list[dict[str, Any]], pii_rows: list[dict[str, Any]]) -> None:
    latency = latency_metrics([r["text"] for r in crisis_rows + pii_rows], rounds=3)
    assert latency["p95_ms"] <= TARGETS["p95_ms_max"]


def test_the_floors_catch_a_broken_detector(crisis_rows: list[dict[str, Any]], pii_rows: list[dict[str, Any]]) -> None:
    blind = crisis_metrics(crisis_rows, detector=lambda _text: CrisisResult())
    assert blind["recall"] == 0.0
    assert blind["suicide_recall"] < TARGETS["suicide_recall"]
    alarmist = crisis_metrics(crisis_rows, detector=lambda _text: CrisisResult(category="housing_emergency"))
    assert alarmist["hard_negative_fpr"] == 1.0
    leaky = pii_metrics(pii_rows, redactor=lambda text: Redaction(text=text))
    assert leaky["structured_recall"] == 0.0
    eraser = pii_metrics(pii_rows, redactor=lambda _text: Redaction(text=""))
    assert eraser["over_redaction"] == 1.0
