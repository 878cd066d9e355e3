"""Regression floors on the frozen PII sets: the measured figures (manage.py pii evaluate) less a small margin."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from conversations.evaluation import pii_eval
from conversations.hooks.pii import redact
from conversations.management.commands.pii import region_changes

# Measured on 2026-12-01 (see the report in the closing note); a floor is the figure less ~1 point.
# Second measurement, after tuning names and street lines on presidio_dev.jsonl (seed 7) only: the frozen
# seed-21 sentences were scored once, and once more after a fix for a dev-set failure (a ZIP read as a house number).
# Third (issue-21n): tuned on presidio_dev.jsonl and the pii_set dev split only (and a dev-only recombination of their
# values and contexts). The test figures were read at the start (0.861 names, 0.774 street lines), once in between
# (0.953, 0.855) and at the end; ordinary tokens masked on non_pii: 1 -> 4 of 9,106.
# Fourth (pii-streets): a second frozen test set, seed 2027 (presidio_sentences2.jsonl), made and read once before
# any change (read 0: names 0.945, street lines 0.877, phones 0.974); tuned on dev seeds 7-10 and the pii_set dev split
# only; at the end each test set was read once (seed 21: street lines 0.855 -> 0.925; seed 2027: 0.877 -> 0.959).
# Fifth (pii-names): names tuned on dev seeds 7-11 and the pii_set dev split only; at the end each test set was read
# once, aggregates only (seed 2027 read 2: names 0.945 -> 0.959; seed 21 names 0.964 -> 0.969; pii_set test 0.983).
# Sixth (2026-12-02): a third frozen test set, seed 3033 (presidio_sentences3.jsonl), made and frozen before any
# change; street lines tuned on dev seeds 7-13 only; addresses are now scored by LABELING.md (a street named without a
# house number is not PII, so it is not scored; `{key}_labelled` keeps the old figure). Each test set read once at the
# end, aggregates only. Street lines by the guide: seed 21 0.948, seed 2027 0.971, seed 3033 0.955 (every labelled
# street line: 0.930, 0.964, 0.934).
FLOORS: dict[str, dict[str, float]] = {
    "patterns+ner": {  # measured 0.983, 0.988, 0.989, 0.969, 0.948, 1.0; seed 2027: 0.959, 0.971, 0.974; 3033: 0.964, 0.955, 0.982
        "pii_test": 0.975,
        "pii_all": 0.98,
        "name_test": 0.98,
        "presidio_NAME": 0.96,
        "presidio_ADDRESS": 0.94,
        "presidio_PHONE": 0.99,
        "presidio2_NAME": 0.95,
        "presidio2_ADDRESS": 0.96,
        "presidio2_PHONE": 0.97,
        "presidio3_NAME": 0.955,
        "presidio3_ADDRESS": 0.945,
        "presidio3_PHONE": 0.97,
    },
    "patterns": {  # measured 0.983, 0.988, 0.989, 0.777, 0.948, 1.0; seed 2027: 0.722, 0.962, 0.974; 3033: 0.775, 0.950, 0.982
        "pii_test": 0.975,
        "pii_all": 0.98,
        "name_test": 0.98,
        "presidio_NAME": 0.77,
        "presidio_ADDRESS": 0.94,
        "presidio_PHONE": 0.99,
        "presidio2_NAME": 0.71,
        "presidio2_ADDRESS": 0.95,
        "presidio2_PHONE": 0.97,
        "presidio3_NAME": 0.765,
        "presidio3_ADDRESS": 0.94,
        "presidio3_PHONE": 0.97,
    },
}
MASKED_CEILING = {"patterns+ner": 0.002, "patterns": 0.001}
STRUCTURED = ("SSN", "TDCJ", "SID", "EMAIL", "DOB", "PHONE", "MEDICAID", "ID", "CARD")


def _rate(counts: dict[str, Any], kind: str | None = None) -> float:
    caught, total = counts["caught"], counts["total"]
    if kind is not None:
        return caught.get(kind, 0) / total[kind]
    return sum(caught.values()) / sum(total.values())


@pytest.fixture(scope="module", params=["patterns+ner", "patterns"])
def measured(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    name = request.param
    return name, pii_eval.evaluate(pii_eval.redactors()[name])


def test_the_sets_are_the_frozen_ones() -> None:
    assert pii_eval.check_frozen() == []


def test_a_changed_set_is_reported(tmp_path: Any) -> None:
    for name in ("SHA256SUMS", "pii_set.jsonl", "non_pii.jsonl", *pii_eval.PRESIDIO_SETS.values()):
        (tmp_path / name).write_bytes((pii_eval.PII_EVAL_DIR / name).read_bytes())
    with open(tmp_path / "non_pii.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "x", "language": "en", "text": "tuned after freezing"}) + "\n")
    assert pii_eval.check_frozen(tmp_path) == ["non_pii.jsonl"]


def test_the_pii_set_has_the_promised_shape() -> None:
    rows = pii_eval.load_rows("pii_set.jsonl")
    values = [item for row in rows for item in row["pii"]]
    assert len(values) >= 300
    assert {row["language"] for row in rows} == {"en", "es"}
    assert {row["split"] for row in rows} == {"dev", "test"}
    for row in rows:
        for item in row["pii"]:
            assert row["text"][item["start"] : item["end"]] == item["value"]
    types = Counter(item["type"] for item in values)
    assert types["NAME"] >= 100
    assert all(types[kind] >= 1 for kind in (*STRUCTURED, "ADDRESS", "MEDICARE"))
    ordinary = pii_eval.load_rows("non_pii.jsonl")
    assert len(ordinary) >= 500 and {r["language"] for r in ordinary} == {"en", "es"}
    for sentences in pii_eval.PRESIDIO_SETS.values():
        assert len(pii_eval.load_rows(sentences)) == 600


def test_recall_on_the_pii_set_holds_its_floor(measured: tuple[str, dict[str, Any]]) -> None:
    name, result = measured
    floors = FLOORS[name]
    assert _rate(result["pii_set_test"]) >= floors["pii_test"], result["pii_set_test"]["misses"]
    assert _rate(result["pii_set_all"]) >= floors["pii_all"], result["pii_set_all"]["misses"]
    assert _rate(result["pii_set_test"], "NAME") >= floors["name_test"]


def test_every_structured_value_of_the_pii_set_is_redacted(measured: tuple[str, dict[str, Any]]) -> None:
    _, result = measured
    counts = result["pii_set_all"]
    for kind in STRUCTURED:
        assert counts["caught"].get(kind, 0) == counts["total"][kind], (kind, counts["misses"])


def test_ordinary_messages_are_rarely_masked(measured: tuple[str, dict[str, Any]]) -> None:
    name, result = measured
    non_pii = result["non_pii"]
    assert non_pii["masked"] / non_pii["tokens"] <= MASKED_CEILING[name], non_pii["damaged"]
    other = result["pii_set_all"]
    assert other["other_tokens_masked"] / other["other_tokens"] <= 0.02


def test_presidio_evaluator_sentences_hold_their_floors(measured: tuple[str, dict[str, Any]]) -> None:
    name, result = measured
    for key in pii_eval.PRESIDIO_SETS:
        for kind in ("NAME", "ADDRESS", "PHONE"):
            assert _rate(result[key], kind) >= FLOORS[name][f"{key}_{kind}"], (key, kind)


def test_the_region_lookup_sees_the_same_city_after_redaction() -> None:
    changes = region_changes(pii_eval.memoized(lambda text: redact(text).text))
    assert changes["messages_with_city"] >= 100
    assert changes["changed"] == []


def test_the_floors_catch_a_broken_redactor() -> None:
    rows = pii_eval.load_rows("pii_set.jsonl")
    leaky = pii_eval.recall_counts(rows, lambda text: text)
    assert _rate(leaky) == 0.0
    half = pii_eval.recall_counts(rows, lambda text: text.replace("-", " "))
    assert _rate(half) == 0.0  # re-spacing an SSN does not remove it
    eraser = pii_eval.false_mask_counts(pii_eval.load_rows("non_pii.jsonl"), lambda _text: "")
    assert eraser["masked"] == eraser["tokens"] > 0
