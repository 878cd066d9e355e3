from audit.types import AuditResult, Finding, Rule, Verdict


def test_it_orders_verdicts_by_severity_not_alphabetically():
    assert Verdict.PASS < Verdict.SOFT_BLOCK < Verdict.HARD_BLOCK
    assert max(Verdict.HARD_BLOCK, Verdict.PASS) is Verdict.HARD_BLOCK
    assert max([Verdict.PASS, Verdict.SOFT_BLOCK, Verdict.PASS]) is Verdict.SOFT_BLOCK
    assert sorted([Verdict.HARD_BLOCK, Verdict.PASS, Verdict.SOFT_BLOCK]) == [
        Verdict.PASS,
        Verdict.SOFT_BLOCK,
        Verdict.HARD_BLOCK,
    ]


def test_it_keeps_verdicts_usable_as_plain_strings():
    assert Verdict("soft_block") is Verdict.SOFT_BLOCK
    assert Verdict.HARD_BLOCK == "hard_block"
    assert {Verdict.PASS: 1}["pass"] == 1


def test_it_lists_the_rules_that_fired():
    result = AuditResult(Verdict.HARD_BLOCK, (Finding(Rule.PROMPT_LEAK, Verdict.HARD_BLOCK, "x"),))
    assert result.rules == {"prompt_leak"}
