"""The LLM auditor can add findings and tighten the verdict; it can never loosen the rules' verdict."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.rules import LLM_FINDINGS_JSON_SCHEMA, check_draft, combine, parse_llm_findings
from audit.types import AuditContext, AuditResult, Finding, Rule, Verdict

verdicts = st.sampled_from(list(Verdict))
findings = st.builds(
    Finding,
    rule=st.sampled_from([r.value for r in Rule]),
    verdict=verdicts,
    message=st.text(max_size=20),
    span=st.text(max_size=20),
)
results = st.lists(findings, max_size=5).map(
    lambda fs: AuditResult(max((f.verdict for f in fs), default=Verdict.PASS), tuple(fs))
)


@given(rule_result=results, llm=st.lists(findings, max_size=5))
def test_it_never_lowers_the_rule_verdict(rule_result, llm):
    combined = combine(rule_result, llm)
    assert combined.verdict >= rule_result.verdict
    assert combined.verdict == max([rule_result.verdict, *(f.verdict for f in llm)])


@given(rule_result=results, llm=st.lists(findings, max_size=5))
def test_it_keeps_every_rule_finding(rule_result, llm):
    combined = combine(rule_result, llm)
    assert combined.findings[: len(rule_result.findings)] == rule_result.findings
    assert len(combined.findings) == len(rule_result.findings) + len(llm)


def test_a_passing_llm_cannot_clear_a_hard_block():
    ctx = AuditContext("en", "web", "voting", None, False, None, False, 1200)
    rule_result = check_draft(draft="You'll definitely be approved.", evidence=[], context=ctx)
    assert rule_result.verdict is Verdict.HARD_BLOCK
    combined = combine(rule_result, parse_llm_findings({"findings": []}))
    assert combined.verdict is Verdict.HARD_BLOCK
    combined = combine(rule_result, [Finding("outcome_promise", Verdict.PASS, "looks fine to me")])
    assert combined.verdict is Verdict.HARD_BLOCK


def test_the_llm_can_raise_a_pass_to_a_block():
    rule_result = AuditResult(Verdict.PASS, ())
    llm = parse_llm_findings(
        {"findings": [{"rule": "moralizing", "verdict": "soft_block", "message": "blames the reader"}]}
    )
    assert combine(rule_result, llm).verdict is Verdict.SOFT_BLOCK


def test_it_parses_valid_llm_findings():
    parsed = parse_llm_findings(
        {
            "findings": [
                {"rule": "legal_advice", "verdict": "hard_block", "message": "tells them to plead", "span": "plead"}
            ]
        }
    )
    assert parsed == [Finding("legal_advice", Verdict.HARD_BLOCK, "tells them to plead", "plead")]
    assert parsed[0].verdict is Verdict.HARD_BLOCK


@pytest.mark.parametrize(
    "payload",
    [
        {"findings": [{"rule": "moralizing", "verdict": "block", "message": "x"}]},  # unknown verdict
        {"findings": [{"rule": "moralizing", "verdict": "soft_block", "message": "x", "score": 3}]},  # extra key
        {"findings": [], "verdict": "pass"},  # extra top-level key
        {"findings": "none"},
        {},
        ["not", "an", "object"],
        {"findings": [{"rule": "moralizing", "verdict": "soft_block", "message": "x" * 501}]},
    ],
)
def test_it_rejects_off_schema_llm_output(payload):
    with pytest.raises(ValueError, match="LLM audit payload"):
        parse_llm_findings(payload)


def test_an_unknown_rule_name_drops_that_finding_alone():
    parsed = parse_llm_findings(
        {
            "findings": [
                {"rule": "vibes", "verdict": "hard_block", "message": "x"},
                {
                    "rule": "contradicted_claim",
                    "verdict": "soft_block",
                    "message": "parole",
                    "span": "s",
                    "entry": "tx-elec-11-002",
                },
            ]
        }
    )
    assert parsed == [Finding("contradicted_claim", Verdict.SOFT_BLOCK, "parole", "s", "tx-elec-11-002")]


def test_it_does_not_echo_the_payload_in_the_error():
    with pytest.raises(ValueError) as exc:
        parse_llm_findings({"findings": [{"rule": "moralizing", "verdict": "secret draft text", "message": "x"}]})
    assert "secret draft text" not in str(exc.value)


def test_it_publishes_a_json_schema_for_the_auditor_prompt():
    assert LLM_FINDINGS_JSON_SCHEMA["additionalProperties"] is False
    assert "findings" in LLM_FINDINGS_JSON_SCHEMA["required"]
