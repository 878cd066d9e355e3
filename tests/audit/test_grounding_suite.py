"""The grounding suite (tests/audit/data/grounding_suite.jsonl): drafts with expected verdicts, pinned.

Written with the claim checker, so it is a regression floor, not a blind measure: the blind check is
that the lexical checker errs towards "unsupported" (a revision, then a handoff), never towards "pass".
"""

from __future__ import annotations

import pytest

from tests.audit.grounding import BAD_KINDS, figures, run_suite

OUTCOMES = run_suite()


def test_the_suite_is_big_enough_and_bilingual():
    f = figures(OUTCOMES)
    assert f["drafts"] >= 80
    assert f["spanish"] >= 30
    kinds = {o.case["kind"] for o in OUTCOMES}
    assert kinds >= {"right", "hedged", "polarity", "number", "condition", "uncited", "wrong_entry"}


def test_no_contradicting_or_unsupported_claim_is_accepted():
    f = figures(OUTCOMES)
    assert f["bad"] >= 40
    assert f["bad_accepted"] == []


def test_at_most_five_percent_of_correct_drafts_are_blocked():
    f = figures(OUTCOMES)
    assert len(f["good_blocked"]) <= 0.05 * f["good"], f["good_blocked"]


@pytest.mark.parametrize("outcome", [o for o in OUTCOMES if o.case["kind"] in BAD_KINDS], ids=lambda o: o.case["id"])
def test_each_bad_draft_is_blocked_by_the_rule_that_names_its_fault(outcome):
    assert outcome.ok, (outcome.case["draft"], [(f.rule, f.message) for f in outcome.result.findings])


def test_a_claim_finding_names_the_claim_and_the_entry():
    bad = next(o for o in OUTCOMES if o.case["kind"] == "polarity")
    finding = next(f for f in bad.result.findings if f.rule == "contradicted_claim")
    assert finding.entry == bad.case["evidence"][0]
    assert finding.span and finding.span in bad.case["draft"]
