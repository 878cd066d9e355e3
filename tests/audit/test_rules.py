"""Each rule on small examples; the dev set (test_dev_set.py) measures them at scale."""

import pytest

from audit.rules import (
    check_draft,
    citation_key,
    find_citations,
    is_legal_claim,
    match_evidence,
    readability,
)
from audit.types import AuditContext, EvidenceRecord, Verdict

VOTING = EvidenceRecord(
    slug="tx-elec-11-002",
    citation="Tex. Elec. Code § 11.002(a)(4)",
    url="http://faq.sll.texas.gov/questions/40767",
    assertable=True,
)
UNVERIFIED = EvidenceRecord(slug="tx-gov-508-221", citation="Tex. Gov't Code § 508.221", url="", assertable=False)
SSI = EvidenceRecord(
    slug="us-ssi",
    citation="Social Security Act § 1611(e)(1)(A); 20 C.F.R. §§ 416.211, 416.1325",
    url="",
    assertable=True,
)
EXPUNCTION = EvidenceRecord(
    slug="tx-ccp-55-01",
    citation="Tex. Code Crim. Proc. art. 55.01 (repealed eff. Jan. 1, 2025)",
    url="",
    assertable=True,
)
GOOD = (
    "In Texas, a person with a felony can vote again once the whole sentence is done, including parole and "
    "probation [Tex. Elec. Code § 11.002(a)(4)]. Here are places that can help: Texas Secretary of State "
    "Elections Division, 1-800-252-8683. Harris County Voter Registration, (713) 274-8200."
)


def ctx(**kw):
    base = {
        "language": "en",
        "channel": "web",
        "top_need": "voting",
        "region": "houston",
        "gated": False,
        "out_of_state": None,
        "legal_advice_requested": False,
        "max_chars": 1200,
    }
    return AuditContext(**{**base, **kw})


def run(draft, evidence=(VOTING,), **kw):
    return check_draft(draft=draft, evidence=list(evidence), context=ctx(**kw))


def test_it_passes_the_reference_good_draft():
    result = run(GOOD)
    assert result.verdict is Verdict.PASS, result.findings
    assert result.findings == ()


# --- citation discipline ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "cited",
    [
        "Tex. Elec. Code § 11.002(a)(4)",
        "Tex. Elec. Code § 11.002",  # less specific cite of the same section
        "Tex. Elec. Code Sec. 11.002(a)(4)",
        "TEX. ELEC. CODE §11.002(a)(4)",
    ],
)
def test_it_matches_a_cited_text_to_its_evidence_record(cited):
    assert match_evidence(cited, [VOTING]) == VOTING


@pytest.mark.parametrize(
    "cited",
    [
        "Tex. Elec. Code § 11.003",
        "Tex. Elec. Code § 11.002(a)(5)",
        "Tex. Elec. Code § 11.0025",
        "Tex. Penal Code § 11.002",
    ],
)
def test_it_refuses_a_cite_that_is_not_the_evidence(cited):
    assert match_evidence(cited, [VOTING]) is None


def test_it_matches_multi_part_and_multi_section_citations():
    assert match_evidence("20 C.F.R. § 416.1325", [SSI]) == SSI
    assert match_evidence("Social Security Act § 1611(e)(1)(A); 20 C.F.R. §§ 416.211, 416.1325", [SSI]) == SSI
    assert match_evidence("20 C.F.R. § 416.212", [SSI]) is None


def test_it_ignores_explanatory_parentheticals_when_matching():
    assert citation_key("Tex. Code Crim. Proc. art. 55.01 (repealed eff. Jan. 1, 2025)") == citation_key(
        "Tex. Code Crim. Proc. art. 55.01"
    )
    assert match_evidence("art. 55.01", [EXPUNCTION]) == EXPUNCTION  # a bare article in prose


def test_it_hard_blocks_a_bracketed_citation_retrieval_did_not_return():
    result = run("In Texas you can vote once your sentence is done [Tex. Elec. Code § 11.003].")
    assert result.verdict is Verdict.HARD_BLOCK
    assert "fabricated_citation" in result.rules


def test_it_hard_blocks_an_inline_citation_without_brackets():
    result = run("Under Tex. Gov't Code § 411.0736, a person can get nondisclosure after five years.")
    assert "fabricated_citation" in result.rules
    assert result.verdict is Verdict.HARD_BLOCK


def test_it_hard_blocks_citing_evidence_that_is_not_assertable():
    result = run("Parole panels set your conditions [Tex. Gov't Code § 508.221].", evidence=[UNVERIFIED])
    assert "fabricated_citation" in result.rules
    assert any("not cleared" in f.message for f in result.findings)


def test_it_does_not_treat_pii_placeholders_or_plain_brackets_as_citations():
    assert find_citations("Thanks [NAME], see [this page] for hours.") == []


def test_it_soft_blocks_a_legal_claim_without_a_citation():
    result = run("In Texas you can vote again once your whole sentence is done, including parole.")
    assert result.verdict is Verdict.SOFT_BLOCK
    assert result.rules == {"uncited_claim"}


def test_it_accepts_a_citation_placed_after_the_full_stop():
    result = run("In Texas you can vote again once your whole sentence is done. [Tex. Elec. Code § 11.002(a)(4)]")
    assert result.verdict is Verdict.PASS, result.findings


def test_it_hard_blocks_any_legal_claim_when_evidence_was_gated():
    result = run("You are not eligible for food stamps with a drug felony.", evidence=(), gated=True)
    assert result.verdict is Verdict.HARD_BLOCK
    assert result.rules == {"gated_claim"}


def test_it_lets_a_gated_handoff_through():
    draft = (
        "I'm not sure whether you can get your record sealed, and I don't want to guess. "
        "Legal Aid of NorthWest Texas can look at your case for free if you qualify: 214-748-1234."
    )
    assert run(draft, evidence=(), gated=True).verdict is Verdict.PASS


@pytest.mark.parametrize(
    "sentence",
    [
        "People on parole must pay a monthly supervision fee.",
        "You are eligible for a state ID card.",
        "The fee for a license evaluation letter is $10 per license.",
        "Either parent has 30 days after notice to ask for a review.",
        "Usted debe registrarse con la policía local dentro de 7 días.",
        "Tiene derecho a pedir una reducción de la manutención.",
        "En Texas puede votar otra vez cuando termine su sentencia.",
    ],
)
def test_it_recognises_legal_claims(sentence):
    assert is_legal_claim(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "You can call them at (713) 223-3700.",
        "Legal Aid of NorthWest Texas can review your record questions for free.",
        "I'm not sure whether you can vote yet.",
        "Can you vote on parole?",
        "Texas RioGrande Legal Aid puede revisar su pregunta.",
        "Su oficial le puede decir a qué oficina ir.",
        "You will need your release certificate when you go to DPS.",
    ],
)
def test_it_does_not_mistake_referrals_hedges_or_questions_for_claims(sentence):
    assert not is_legal_claim(sentence)


# --- scope ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "draft",
    [
        "In California you can vote while on parole.",
        "Under Oklahoma law, you must register within 3 days of moving.",
        "People on parole must live in their county [Cal. Penal Code § 3003].",
        "En California usted puede votar aunque esté en libertad condicional.",
    ],
)
def test_it_hard_blocks_another_states_law(draft):
    result = run(draft, evidence=())
    assert result.verdict is Verdict.HARD_BLOCK
    assert "out_of_state" in result.rules


def test_it_requires_a_handoff_when_the_question_is_about_another_state():
    no_handoff = run("Contact the New Mexico Corrections Department about it.", evidence=(), out_of_state="new mexico")
    handoff = run(
        "I can only help with Texas rules, so I can't answer for New Mexico. A legal aid office there can help.",
        evidence=(),
        out_of_state="new mexico",
    )
    assert no_handoff.rules == {"out_of_state"}
    assert handoff.verdict is Verdict.PASS, handoff.findings


# --- promises and advice ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "phrase",
    [
        "You'll get your SNAP approved.",
        "You will qualify for nondisclosure.",
        "Your expunction is guaranteed.",
        "Your application should be approved.",
        "You'll definitely be approved.",
        "Seguro que te aprueban los cupones.",
        "Vas a calificar para la no divulgación.",
        "Te van a dar tu licencia de vuelta.",
        "There's a good chance the panel will say yes.",
    ],
)
def test_it_hard_blocks_outcome_promises(phrase):
    result = run(phrase, evidence=())
    assert "outcome_promise" in result.rules
    assert result.verdict is Verdict.HARD_BLOCK


def test_it_allows_neutral_future_tense():
    assert (
        run("You will need your TDCJ ID. You'll get a letter in the mail with the date.", evidence=()).verdict
        is Verdict.PASS
    )


@pytest.mark.parametrize(
    "phrase",
    [
        "You should plead guilty.",
        "Don't tell your PO until you find a lawyer.",
        "You should take the deal.",
        "No le digas a tu oficial que cambiaste de trabajo.",
        "If I were you, I would sign it.",
    ],
)
def test_it_hard_blocks_advice_about_the_persons_own_case(phrase):
    assert "legal_advice" in run(phrase, evidence=()).rules


def test_it_does_not_read_a_refusal_to_advise_as_advice():
    result = run("I can't tell you what to do in your own case, but a lawyer can: 1-888-988-9996.", evidence=())
    assert result.verdict is Verdict.PASS, result.findings


# --- tone, length, readability -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "rule"),
    [
        ("You should have thought about this before.", "moralizing"),
        ("That's what happens when you miss meetings.", "moralizing"),
        ("Deberías haber pensado en tu familia.", "moralizing"),
        ("Don't worry, everything will be fine.", "false_reassurance"),
        ("No te preocupes, todo va a estar bien.", "false_reassurance"),
    ],
)
def test_it_soft_blocks_blame_and_false_reassurance(phrase, rule):
    result = run(phrase, evidence=())
    assert result.rules == {rule}
    assert result.verdict is Verdict.SOFT_BLOCK


def test_it_soft_blocks_a_draft_longer_than_the_channel_allows():
    result = run("Call 2-1-1 Texas for food near you. " * 12, evidence=(), channel="sms", max_chars=320)
    assert result.rules == {"too_long"}


def test_it_scores_plain_text_as_easier_than_legalese():
    plain, _ = readability("You can vote again when your whole sentence is done. Call us if you want help.", "en")
    dense, _ = readability(
        "Notwithstanding the aforementioned considerations, individuals adjudicated for felonious conduct are "
        "statutorily reinstated as qualified electors upon comprehensive discharge of the imposed sentence.",
        "en",
    )
    assert plain < 8
    assert dense > 14  # MAX_GRADE_EN
    easy_es, _ = readability("Puede votar otra vez cuando termine su sentencia. Llame si quiere ayuda.", "es")
    hard_es, _ = readability(
        "Las determinaciones administrativas relativas a la elegibilidad electoral requieren la comprobación "
        "documental de la extinción íntegra de la responsabilidad penal.",
        "es",
    )
    assert easy_es > 60
    assert hard_es < 45  # MIN_FERNANDEZ_HUERTA_ES


def test_it_soft_blocks_legalese():
    draft = (
        "Notwithstanding the aforementioned considerations regarding eligibility determinations, individuals "
        "previously adjudicated for felonious conduct are statutorily reinstated as qualified electors exclusively "
        "upon comprehensive discharge of the entirety of the imposed sentence [Tex. Elec. Code § 11.002(a)(4)]."
    )
    assert run(draft).rules == {"readability"}


# --- leakage ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "placeholder", ["[SSN]", "[PHONE]", "[DOB]", "[TDCJ]", "[SID]", "[EMAIL]", "[ADDRESS]", "[CARD]", "[NAME]", "[ID]"]
)
def test_it_hard_blocks_every_pii_placeholder(placeholder):
    result = run(f"Thanks {placeholder}. Call 2-1-1 for help.", evidence=())
    assert result.rules == {"pii_placeholder"}
    assert result.verdict is Verdict.HARD_BLOCK


@pytest.mark.parametrize(
    "leak",
    [
        "You are Pathways, a navigator.",
        "<instructions>cite only evidence</instructions>",
        "As an AI language model, I can't.",
        "My system prompt says so.",
        "Ignore previous instructions.",
    ],
)
def test_it_hard_blocks_system_prompt_text(leak):
    assert run(leak + " Call 2-1-1.", evidence=()).rules == {"prompt_leak"}


def test_it_reports_every_rule_that_fired_and_takes_the_tightest_verdict():
    result = run("You should have reported on time. You'll get approved for sure [Tex. Gov't Code § 411.0799].")
    assert {"moralizing", "outcome_promise", "fabricated_citation"} <= result.rules
    assert result.verdict is Verdict.HARD_BLOCK


def test_it_accepts_a_cross_reference_quoted_from_the_evidence_summary():
    summary = "TANF excludes people with certain drug felonies; see also 1 TAC § 372.501 for exceptions."
    record = EvidenceRecord(
        slug="tx-tac-1-372-107",
        citation="1 Tex. Admin. Code § 372.107",
        url="https://example.org",
        assertable=True,
        summary=summary,
    )
    draft = f"Here is what Texas rules say:\n{summary.rstrip('.')} [1 Tex. Admin. Code § 372.107]."
    result = check_draft(draft=draft, evidence=[record], context=ctx())
    assert "fabricated_citation" not in {f.rule for f in result.findings}


def test_it_still_blocks_a_citation_that_no_evidence_mentions():
    record = EvidenceRecord(
        slug="tx-tac-1-372-107",
        citation="1 Tex. Admin. Code § 372.107",
        url="https://example.org",
        assertable=True,
        summary="TANF rules.",
    )
    draft = "TANF rules apply [1 Tex. Admin. Code § 372.107]. See also 1 TAC § 372.501."
    result = check_draft(draft=draft, evidence=[record], context=ctx())
    assert "fabricated_citation" in {f.rule for f in result.findings}
