"""The evaluation floors of issue 11, enforced in `make test`: each failure names its metric and cases."""

from __future__ import annotations

from typing import Any

import pytest

FLOORS = (
    "crisis_recall",
    "pii_leaks",
    "fabricated_citations",
    "top_need_accuracy",
    "reply_language_accuracy",
    "top_need_stratum_gap",
)

pytestmark = pytest.mark.slow


def _floor(evaluation: dict[str, Any], metric: str) -> dict[str, Any]:
    return next(check for check in evaluation["floors"] if check["metric"] == metric)


@pytest.mark.parametrize("metric", FLOORS)
def test_it_meets_the_floor(evaluation: dict[str, Any], metric: str) -> None:
    check = _floor(evaluation, metric)
    assert check["ok"], check["message"]


def test_it_ran_every_turn_without_an_error(evaluation: dict[str, Any]) -> None:
    errors = [case["case"] for case in evaluation["cases"] if case["error"]]
    assert not errors, f"turns that raised: {errors}"


def test_it_measured_crises_and_citations_on_enough_cases(evaluation: dict[str, Any]) -> None:
    # A floor over a handful of cases proves nothing: the denominators must stay meaningful.
    rates = evaluation["overall"]["rates"]
    assert rates["crisis_recall"]["n"] >= 20
    assert rates["top_need_accuracy"]["n"] >= 150
    assert rates["citation_recall"]["n"] >= 50
