"""The rules on the labelled dev set, with floors: ≥ 0.95 verdict accuracy, recall 1.0 on the two worst failures."""

import json
from collections import Counter
from pathlib import Path

import pytest

from audit.metrics import evaluate, load_dev_set
from audit.types import Rule, Verdict

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "tests" / "evals" / "audit_dev.jsonl"
HOLDOUT = Path(__file__).parent / "data" / "audit_holdout.jsonl"


@pytest.fixture(scope="module")
def dev_cases():
    return load_dev_set(DEV)


@pytest.fixture(scope="module")
def report(dev_cases):
    return evaluate(dev_cases)


def test_the_dev_set_covers_every_kind_in_both_languages(dev_cases):
    assert len(dev_cases) >= 100
    assert len({c.id for c in dev_cases}) == len(dev_cases)
    langs = Counter(c.language for c in dev_cases)
    assert langs["en"] >= 40 and langs["es"] >= 30
    good = [c for c in dev_cases if c.expected_verdict is Verdict.PASS]
    assert {c.language for c in good} == {"en", "es"}
    expected_rules = {r for c in dev_cases for r in c.expected_rules}
    assert expected_rules == {r.value for r in Rule}  # every rule has at least one positive
    for rule in ("fabricated_citation", "outcome_promise", "out_of_state", "legal_advice", "uncited_claim"):
        assert {c.language for c in dev_cases if rule in c.expected_rules} == {"en", "es"}, rule


def test_it_labels_each_case_consistently(dev_cases):
    severities = {
        "fabricated_citation": "hard_block",
        "gated_claim": "hard_block",
        "out_of_state": "hard_block",
        "outcome_promise": "hard_block",
        "legal_advice": "hard_block",
        "pii_placeholder": "hard_block",
        "prompt_leak": "hard_block",
    }
    for c in dev_cases:
        worst = max([Verdict(severities.get(r, "soft_block")) for r in c.expected_rules], default=Verdict.PASS)
        assert c.expected_verdict is worst, c.id


def test_it_reaches_the_verdict_accuracy_floor(report):
    assert report.verdict_accuracy >= 0.95, [f for f in report.failures if not f["verdict_ok"]]
    for lang, acc in report.accuracy_by_language.items():
        assert acc >= 0.9, lang


def test_it_passes_the_good_drafts(report):
    assert report.accuracy_by_kind["good"] >= 0.95
    assert report.confusion["pass"].get("hard_block", 0) == 0  # a good draft is never escalated


@pytest.mark.parametrize("rule", ["fabricated_citation", "outcome_promise"])
def test_it_catches_every_fabricated_citation_and_outcome_promise(dev_cases, rule):
    from audit.metrics import run_case

    cases = [c for c in dev_cases if rule in c.expected_rules]
    assert len(cases) >= 10
    missed = [c.id for c in cases if rule not in run_case(c).rules or run_case(c).verdict is not Verdict.HARD_BLOCK]
    assert missed == []
    assert evaluate(cases).rules[rule].recall == 1.0


def test_it_stays_above_a_floor_on_the_holdout_regression_set():
    # Written after the rules were tuned on the dev set; the first blind run scored 0.70 (paraphrased
    # promises and advice). It is a regression set now, not a blind estimate.
    holdout = evaluate(load_dev_set(HOLDOUT))
    assert holdout.total >= 30
    assert holdout.verdict_accuracy >= 0.9
    assert holdout.confusion["pass"].get("pass", 0) == sum(holdout.confusion["pass"].values())


def test_the_dev_set_is_valid_jsonl():
    for line in DEV.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert set(row) == {
            "id",
            "language",
            "kind",
            "draft",
            "evidence",
            "context",
            "expected_verdict",
            "expected_rules",
        }
