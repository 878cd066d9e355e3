"""The claim checker: polarity, gates, numbers and support spans, in English and Spanish."""

from __future__ import annotations

import pytest

from audit.claims import (
    Statement,
    check_claim,
    check_claim_against,
    clauses_of,
    numbers_in,
    quantities_in,
    quote_in,
    stance_of,
)
from audit.rules import check_draft
from audit.types import AuditContext, EvidenceRecord, Verdict

VOTING = EvidenceRecord(
    slug="tx-elec-11-002",
    citation="Tex. Elec. Code § 11.002(a)(4)",
    url="http://faq.sll.texas.gov/questions/40767",
    assertable=True,
    summary="A person with a final felony conviction is not a qualified voter until the whole sentence is fully discharged, which includes any prison or jail time, parole, supervision, or probation. A pardon or other release from the voting disability also restores eligibility.",
    excerpt="fully discharged the person's sentence, including any term of incarceration, parole, or supervision, or completed a period of probation ordered by any court",
    summaries=(
        "Una persona con una condena final por delito grave (felony) no puede votar hasta que cumpla toda la sentencia, incluido el tiempo en prisión o cárcel, la libertad condicional (parole), la supervisión o la probatoria. Un indulto u otra liberación de esa restricción también le devuelve el derecho a votar.",
    ),
)


def ctx(language="en"):
    return AuditContext(language, "web", "voting", None, False, None, False, 1600)


@pytest.mark.parametrize(
    ("draft", "language"),
    [
        ("You can vote while you are on parole [Tex. Elec. Code § 11.002(a)(4)].", "en"),
        ("Yes, you can vote while you are on parole in Texas [Tex. Elec. Code § 11.002(a)(4)].", "en"),
        ("Sí, puede votar mientras está en libertad condicional en Texas [Tex. Elec. Code § 11.002(a)(4)].", "es"),
        ("Puede votar aunque esté en libertad condicional [Tex. Elec. Code § 11.002(a)(4)].", "es"),
    ],
)
def test_the_parole_voting_example_is_blocked_in_english_and_spanish(draft, language):
    result = check_draft(draft=draft, evidence=[VOTING], context=ctx(language))
    assert result.verdict == Verdict.SOFT_BLOCK
    finding = next(f for f in result.findings if f.rule == "contradicted_claim")
    assert finding.entry == "tx-elec-11-002"
    assert finding.span.startswith(draft.split(" [")[0][:20])


@pytest.mark.parametrize(
    "draft",
    ["Felons get their voting rights back right away in Texas.", "An ID costs nothing for people leaving prison."],
)
def test_uncited_outcome_and_cost_claims_are_caught(draft):
    result = check_draft(draft=draft, evidence=[VOTING], context=ctx())
    assert "uncited_claim" in result.rules


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        ("Not yet: you cannot vote until your whole sentence is done, including parole", "supported"),
        ("You can vote again once your whole sentence is discharged", "supported"),
        ("You can vote after parole ends", "contradicted"),  # a different condition
        ("You can vote right away", "contradicted"),
        ("You can get SNAP with a drug felony", "unsupported"),  # the entry says nothing about it
        ("No puede votar hasta que cumpla toda la sentencia", "supported"),
        ("Puede volver a votar después de terminar la libertad condicional", "contradicted"),
    ],
)
def test_claims_are_judged_against_the_entry(claim, outcome):
    assert check_claim(claim, VOTING).outcome == outcome


def test_a_number_the_entry_does_not_state_contradicts_it():
    fees = EvidenceRecord(
        "tx-gov-508-182",
        "Tex. Gov't Code § 508.182",
        "u",
        True,
        summary="People on parole pay a $10 supervision fee and an $8 administrative fee each month.",
    )
    assert check_claim("You pay a $10 supervision fee each month", fees).outcome == "supported"
    wrong = check_claim("You pay a $20 supervision fee each month", fees)
    assert wrong.outcome == "contradicted" and "20" in wrong.detail
    assert check_claim("Supervision is free", fees).outcome == "contradicted"


def test_numbers_are_read_in_words_and_digits():
    assert numbers_in("ten years, $10,000 and the seventh day") == {10.0, 10000.0, 7.0}
    assert numbers_in("diez años y el séptimo día") == {10.0, 7.0}
    assert numbers_in("one of the forms") == frozenset()  # "one" as an article is not a number


def test_not_until_and_only_after_are_the_same_gate():
    a = stance_of("is not a qualified voter until the whole sentence is fully discharged")
    b = stance_of("can vote only after the whole sentence is discharged")
    assert a.gate == b.gate == "after" and a.strong and b.strong
    assert a.anchor & b.anchor


def test_a_statement_quote_is_the_support_span_when_it_is_verbatim():
    assert quote_in("not a qualified voter until the whole sentence", [VOTING.summary])
    assert not quote_in("people on parole may vote", [VOTING.summary])
    draft = "Not yet: you cannot vote while on parole [Tex. Elec. Code § 11.002(a)(4)]."
    good = Statement(
        "Not yet: you cannot vote while on parole",
        "tx-elec-11-002",
        "is not a qualified voter until the whole sentence is fully discharged",
    )
    assert check_draft(draft=draft, evidence=[VOTING], context=ctx(), statements=[good]).verdict == Verdict.PASS


def test_a_claim_citing_an_unassertable_entry_is_not_checked_twice():
    record = EvidenceRecord("x", "Tex. Elec. Code § 11.002(a)(4)", "u", False, summary=VOTING.summary)
    result = check_draft(
        draft="You can vote on parole [Tex. Elec. Code § 11.002(a)(4)].", evidence=[record], context=ctx()
    )
    assert result.rules == {"fabricated_citation"}


FEES = EvidenceRecord(
    "tx-gov-508-182",
    "Tex. Gov't Code § 508.182",
    "u",
    True,
    summary="People on parole pay a $10 supervision fee and an $8 administrative fee each month. A parole panel may let the person defer payments.",
)
GUNS = EvidenceRecord(
    "tx-penal-46-04",
    "Tex. Penal Code § 46.04(a)",
    "u",
    True,
    summary="A person with a felony conviction commits a third-degree felony by having a firearm before the fifth anniversary of release from prison or from parole, whichever is later. After that, possession is still illegal anywhere except the premises where the person lives.",
)


def test_numbers_are_compared_with_what_they_count():
    assert quantities_in("a third-degree felony for five years") == {(3.0, "degree"), (5.0, "year")}
    assert quantities_in("after one-third of the term") == {(1 / 3, "fraction")}
    assert check_claim("You can't have a gun for three years after prison", GUNS).outcome == "contradicted"
    assert check_claim("You can't have a gun for five years after prison or parole", GUNS).outcome == "supported"


def test_each_clause_is_compared_with_its_own_best_support():
    # one clause right, one opposite: the second is found although the first matches the entry well
    check = check_claim("You pay a $10 supervision fee each month, but the panel cannot let you defer it", FEES)
    assert check.outcome == "contradicted"
    assert check_claim("You pay $10 a month for supervision, and the panel may let you defer it", FEES).outcome == (
        "supported"
    )
    assert clauses_of("You pay $10 a month, and the panel may let you defer it; ask your officer", claim=True) == [
        "You pay $10 a month",
        "the panel may let you defer it",
        "ask your officer",
    ]


def test_double_negatives_and_anywhere_are_read():
    voting = "Being on parole doesn't stop you from voting in Texas"
    assert check_claim(voting, VOTING).outcome == "contradicted"
    assert check_claim("After five years from your release you can have a gun anywhere", GUNS).outcome == "contradicted"


def test_a_claim_better_said_by_another_retrieved_entry_is_a_wrong_entry():
    check = check_claim_against("You pay a $10 supervision fee every month", [VOTING], others=[FEES])
    assert check.outcome in ("unsupported", "contradicted")
    assert check.entry == "tx-elec-11-002"
    assert check_claim_against("You pay a $10 supervision fee every month", [FEES], others=[VOTING]).outcome == (
        "supported"
    )


PROBATION = EvidenceRecord(
    slug="tx-ccp-42a-701",
    citation="Tex. Code Crim. Proc. art. 42A.701",
    url="https://statutes.capitol.texas.gov/Docs/CR/htm/CR.42A.htm",
    assertable=True,
    summary="A judge may reduce or end probation after one-third of the term or two years (whichever is less) is completed satisfactorily.",
    excerpt="",
)
RELEASE = EvidenceRecord(
    slug="tx-gov-508-147",
    citation="Tex. Gov't Code § 508.147",
    url="https://statutes.capitol.texas.gov/Docs/GV/htm/GV.508.htm",
    assertable=True,
    summary="A parole panel must order the release to mandatory supervision of an eligible person whose time served plus good time equals the sentence.",
    excerpt="",
)
SNAP = EvidenceRecord(
    slug="tx-hrc-33-018",
    citation="Tex. Hum. Res. Code § 33.018",
    url="https://statutes.capitol.texas.gov/Docs/HR/htm/HR.33.htm",
    assertable=True,
    summary="Texas generally does not apply the federal drug-felony SNAP ban.",
    excerpt="",
)


def test_must_against_an_entrys_may_and_decides_against_its_must_are_contradictions():
    assert check_claim("The judge has to end your probation after one-third of the term", PROBATION).outcome == (
        "contradicted"
    )
    assert check_claim("A judge may end probation after one-third of the term", PROBATION).outcome == "supported"
    assert check_claim("The parole panel decides whether to release you to mandatory supervision", RELEASE).outcome == (
        "contradicted"
    )


def test_not_using_the_ban_agrees_with_not_applying_it():
    assert check_claim("Texas generally doesn't use the federal SNAP ban for drug felonies", SNAP).outcome == (
        "supported"
    )


def test_an_uncited_sentence_that_restates_an_entry_is_an_uncited_claim_unless_the_next_one_cites_it():
    uncited = "A judge may reduce your probation after one-third of the term or two years."
    assert "uncited_claim" in check_draft(draft=uncited, evidence=[PROBATION], context=ctx()).rules
    paired = f"{uncited} That is the rule for probation [Tex. Code Crim. Proc. art. 42A.701]."
    assert "uncited_claim" not in check_draft(draft=paired, evidence=[PROBATION], context=ctx()).rules
    referral = "If you are not sure, the court clerk can tell you about reducing probation after two years."
    assert "uncited_claim" not in check_draft(draft=referral, evidence=[PROBATION], context=ctx()).rules


EXPUNCTION_FEE = EvidenceRecord(
    slug="tx-ccp-55a-203",
    citation="Tex. Code Crim. Proc. art. 55A.203",
    url="https://statutes.capitol.texas.gov/Docs/CR/htm/CR.55A.htm",
    assertable=True,
    summary="After a case is dismissed because the person completed a veterans treatment court or mental health court program, a district court may enter an expunction order within 30 days with the prosecutor's consent. The court may not charge a fee for this expunction.",
    excerpt="",
    summaries=(
        "Después de que un caso se desestima porque la persona completó un programa de tribunal para veteranos o de salud mental, un tribunal de distrito puede dictar la orden de expunción dentro de 30 días con el consentimiento del fiscal. El tribunal no puede cobrar ninguna cuota por esta expunción.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        (
            "If your case was dismissed because you completed a veterans treatment court program, the court may not charge you any fee for that expunction",
            "supported",
        ),
        (
            "If your case was dismissed because you completed a veterans treatment court program, the court can charge you the usual fees for that expunction",
            "contradicted",
        ),
        (
            "Si su caso se desestimó porque terminó un programa de tribunal para veteranos, el tribunal no le puede cobrar ninguna cuota por la expunción",
            "supported",
        ),
        (
            "Si su caso se desestimó porque terminó un programa de tribunal para veteranos, el tribunal le puede cobrar una cuota por la expunción",
            "contradicted",
        ),
    ],
)
def test_a_rule_is_compared_with_the_sentence_that_states_it_not_the_one_its_condition_matches(claim, outcome):
    assert check_claim(claim, EXPUNCTION_FEE).outcome == outcome


DISCLOSURE = EvidenceRecord(
    slug="tx-gov-411-0755",
    citation="Tex. Gov't Code § 411.0755",
    url="https://statutes.capitol.texas.gov/Docs/GV/htm/GV.411.htm",
    assertable=True,
    summary="A person with an order of nondisclosure generally is not required to state on a job application that they were the subject of the criminal proceeding.",
    excerpt="",
    summaries=(
        "Una persona con una orden de no divulgación por lo general no tiene que decir en una solicitud de empleo que estuvo en el proceso penal cubierto por esa orden.",
    ),
)
PAROLE_FEE = EvidenceRecord(
    slug="tx-gov-508-182",
    citation="Tex. Gov't Code § 508.182",
    url="https://statutes.capitol.texas.gov/Docs/GV/htm/GV.508.htm",
    assertable=True,
    summary="People on parole are required to pay a $10 supervision fee each month they are supervised.",
    excerpt="",
    summaries=("Las personas en libertad condicional deben pagar una cuota de supervisión de $10 cada mes.",),
)


def test_optional_and_obligated_are_read_as_modality_in_english_and_spanish():
    assert (
        check_claim("On parole, paying the monthly $10 supervision fee is optional", PAROLE_FEE).outcome
        == "contradicted"
    )
    assert (
        check_claim("On parole, you have to pay the $10 supervision fee each month", PAROLE_FEE).outcome == "supported"
    )
    assert check_claim("En libertad condicional, la cuota de supervisión de $10 es opcional", PAROLE_FEE).outcome == (
        "contradicted"
    )
    obliged = (
        "Con una orden de no divulgación, está obligado a decir en una solicitud de empleo que estuvo en el proceso"
    )
    assert check_claim(obliged, DISCLOSURE).outcome == "contradicted"
    free = "Con una orden de no divulgación, por lo general no tiene que decir en una solicitud de empleo que estuvo en el proceso"
    assert check_claim(free, DISCLOSURE).outcome == "supported"
    judge = "Cuando cumple un tercio del plazo, el juez está obligado a terminar la probatoria"
    assert check_claim(judge, PROBATION_ES).outcome == "contradicted"


PROBATION_ES = EvidenceRecord(
    slug="tx-ccp-42a-701",
    citation="Tex. Code Crim. Proc. art. 42A.701",
    url="https://statutes.capitol.texas.gov/Docs/CR/htm/CR.42A.htm",
    assertable=True,
    summary="Un juez puede reducir o terminar la probatoria cuando se ha cumplido bien un tercio del plazo o dos años (lo que sea menor).",
    excerpt="",
)
SNAP_BAN = EvidenceRecord(
    slug="tx-hrc-33-018",
    citation="Tex. Hum. Res. Code § 33.018",
    url="https://statutes.capitol.texas.gov/Docs/HR/htm/HR.33.htm",
    assertable=True,
    summary="The SNAP ban lasts two years for a person with a drug felony who violates a condition of parole or probation.",
    excerpt="",
    summaries=(
        "La prohibición de SNAP dura dos años solo para una persona con un delito grave de drogas que viola una condición de su libertad condicional.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        ("Anyone with a drug felony is banned from SNAP for two years", "contradicted"),
        (
            "A person with a drug felony who violates a condition of parole is banned from SNAP for two years",
            "supported",
        ),
        ("Cualquier persona con un delito grave de drogas pierde SNAP por dos años", "contradicted"),
        (
            "Una persona con un delito grave de drogas que viola una condición de su libertad condicional pierde SNAP por dos años",
            "supported",
        ),
    ],
)
def test_a_claim_about_everyone_needs_an_entry_that_does_not_limit_whom_it_covers(claim, outcome):
    assert check_claim(claim, SNAP_BAN).outcome == outcome


APPLICATION_FEE = EvidenceRecord(
    slug="tx-prop-92-3515",
    citation="Tex. Prop. Code § 92.3515",
    url="https://statutes.capitol.texas.gov/Docs/PR/htm/PR.92.htm",
    assertable=True,
    summary="If the landlord did not do this and rejects the applicant, the application fee and deposit must be returned.",
    excerpt="",
    summaries=("Si no lo hizo y rechaza al solicitante, debe devolver la cuota de solicitud y el depósito.",),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        ("If it did not do that and then rejects you, it must return your application fee and deposit", "supported"),
        ("If it did not do that and then rejects you, it can keep your application fee and deposit", "contradicted"),
        ("Si no lo hizo y luego lo rechaza, tiene que devolverle la cuota de solicitud y el depósito", "supported"),
        ("Si no lo hizo y luego lo rechaza, puede quedarse con su cuota de solicitud y su depósito", "contradicted"),
    ],
)
def test_a_leading_condition_stays_whole_and_an_undoing_action_is_a_contradiction(claim, outcome):
    assert check_claim(claim, APPLICATION_FEE).outcome == outcome


SUPPORT_REVIEW = EvidenceRecord(
    slug="tx-fam-231-1015",
    citation="Tex. Fam. Code § 231.1015",
    url="https://statutes.capitol.texas.gov/Docs/FA/htm/FA.231.htm",
    assertable=True,
    summary="When the agency verifies that a parent who owes support is confined for at least 180 days in a row, it must review the support order. This does not apply if the confinement is for not paying support.",
    excerpt="",
    summaries=(
        "Cuando la agencia confirma que un padre que debe manutención está encerrado por lo menos 180 días seguidos, debe revisar la orden. No se aplica si el encierro es por no pagar manutención.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        (
            "Once you are confined at least 180 days, the agency must review your order, even if you are locked up for not paying support",
            "contradicted",
        ),
        (
            "Once you are confined at least 180 days, the agency must review your order, even if you owe support to several children",
            "supported",
        ),
        (
            "Si está encerrado por lo menos 180 días seguidos, la agencia debe revisar la orden, aunque el encierro sea por no pagar manutención",
            "contradicted",
        ),
        (
            "Si está encerrado por lo menos 180 días seguidos, la agencia debe revisar la orden de manutención",
            "supported",
        ),
    ],
)
def test_even_if_a_case_the_entry_excludes_is_a_contradiction(claim, outcome):
    assert check_claim(claim, SUPPORT_REVIEW).outcome == outcome


WAITING = EvidenceRecord(
    slug="tx-ccp-55a-052",
    citation="Tex. Code Crim. Proc. art. 55A.052",
    url="https://statutes.capitol.texas.gov/Docs/CR/htm/CR.55A.htm",
    assertable=True,
    summary="If no charging document was filed after an arrest, the person can seek expunction after a waiting period: 180 days for a Class C misdemeanor, one year for a Class A or B misdemeanor, and three years for a felony.",
    excerpt="",
    summaries=(
        "Si no se presentó acusación después del arresto, la persona puede pedir la expunción después de una espera: 180 días para un delito menor Clase C, un año para un delito menor Clase A o B, y tres años para un delito grave.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        (
            "If you were arrested for a Class C misdemeanor and no charge was filed, you can ask for an expunction after 180 days",
            "supported",
        ),
        (
            "If you were arrested for a Class C misdemeanor and no charge was filed, you have to wait one year to ask for an expunction",
            "contradicted",
        ),
        (
            "Si lo arrestaron por un delito menor Clase C y no se presentó acusación, puede pedir la expunción después de 180 días",
            "supported",
        ),
        (
            "Si lo arrestaron por un delito menor Clase C y no se presentó acusación, tiene que esperar un año para pedir la expunción",
            "contradicted",
        ),
    ],
)
def test_a_number_the_entry_gives_for_another_case_is_a_contradiction(claim, outcome):
    assert check_claim(claim, WAITING).outcome == outcome


def test_a_criminal_charge_is_not_a_price_and_a_duration_may_be_said_in_another_unit():
    assert check_claim(
        "If no charge was ever filed, you can ask for an expunction after three years for a felony", WAITING
    ).outcome == ("supported")
    registry = EvidenceRecord(
        "tx-ccp-62-059",
        "Tex. Code Crim. Proc. art. 62.059",
        "u",
        True,
        summary="A registrant who spends more than 48 straight hours in another county must report it to the police there.",
        summaries=(
            "Una persona registrada que pasa más de 48 horas seguidas en otro condado debe reportarlo a la policía de ese lugar.",
        ),
    )
    assert (
        check_claim(
            "If you spend more than two full days in another county, you must report it to the police there", registry
        ).outcome
        == "supported"
    )
    assert (
        check_claim(
            "Si pasa más de dos días completos seguidos en otro condado, debe reportarlo a la policía", registry
        ).outcome
        == "supported"
    )
    assert (
        check_claim("Si pasa más de tres días seguidos en otro condado, debe reportarlo a la policía", registry).outcome
        == "contradicted"
    )
    assert numbers_in("Cualquiera de los dos padres puede pedir la revisión") == frozenset()
    assert numbers_in("Los dos años de espera") == frozenset({2.0})


@pytest.mark.parametrize(
    "claim",
    [
        "You can vote again as soon as your prison term ends",
        "Puede votar otra vez en cuanto termine su tiempo en prisión",
    ],
)
def test_as_soon_as_and_again_do_not_dilute_a_gate_the_claim_skips(claim):
    assert check_claim(claim, VOTING).outcome == "contradicted"


REPORTS = EvidenceRecord(
    slug="us-fcra-1681c",
    citation="15 U.S.C. § 1681c(a)(2), (a)(5)",
    url="u",
    assertable=True,
    summary="Consumer reporting agencies generally may not report arrest records more than seven years old. Records of criminal convictions are excluded from the seven-year limit and can be reported longer.",
    excerpt="",
    summaries=(
        "Las agencias de informes de consumidores por lo general no pueden reportar arrestos de hace más de siete años. Las condenas penales no tienen ese límite de siete años y se pueden reportar por más tiempo.",
    ),
)
NONDISCLOSURE = EvidenceRecord(
    slug="tx-gov-411-0725",
    citation="Tex. Gov't Code § 411.0725",
    url="u",
    assertable=True,
    summary="A person who completed deferred adjudication and is not eligible under Section 411.072 may petition the court for an order of nondisclosure, unless the offense was DWI or BWI.",
    excerpt="",
    summaries=(
        "Quien completó una adjudicación diferida y no califica según la Sección 411.072 puede pedir al tribunal una orden de no divulgación, salvo si el delito fue manejar intoxicado (DWI).",
    ),
)


@pytest.mark.parametrize(
    ("claim", "record", "outcome"),
    [
        (
            "Background check companies cannot report convictions that are more than seven years old",
            REPORTS,
            "contradicted",
        ),
        (
            "Las agencias de antecedentes no pueden reportar tus condenas de hace más de siete años",
            REPORTS,
            "contradicted",
        ),
        ("Background check companies can report convictions that are more than seven years old", REPORTS, "supported"),
        ("Las agencias sí pueden reportar condenas de hace más de siete años", REPORTS, "supported"),
        ("You can petition for nondisclosure after deferred adjudication for a DWI", NONDISCLOSURE, "contradicted"),
        ("Puede pedir la no divulgación después de una adjudicación diferida por DWI", NONDISCLOSURE, "contradicted"),
        ("After deferred adjudication you may petition the court for nondisclosure", NONDISCLOSURE, "supported"),
        ("Si el delito fue DWI, no puede pedir la orden de no divulgación", NONDISCLOSURE, "supported"),
        ("A DWI case cannot petition the court for nondisclosure", NONDISCLOSURE, "supported"),
    ],
)
def test_a_claim_that_names_a_case_the_entry_sets_apart_must_give_it_the_exceptions_polarity(claim, record, outcome):
    assert check_claim(claim, record).outcome == outcome


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        ("Nor can you vote while you are on parole", "supported"),
        ("Nor do you have to wait: you can vote on parole", "contradicted"),
        ("You can vote while on parole, nor do you need to wait", "contradicted"),
    ],
)
def test_a_clause_that_opens_with_nor_is_negated_once(claim, outcome):
    assert check_claim(claim, VOTING).outcome == outcome


EARLY_REVIEW = EvidenceRecord(
    slug="tx-ccp-42a-701",
    citation="Tex. Code Crim. Proc. art. 42A.701",
    url="u",
    assertable=True,
    summary="At one-half of the term or two years (whichever is more) the judge must review the case, unless restitution the person can pay is behind or required counseling or treatment is not done.",
    excerpt="",
    summaries=(
        "A la mitad del plazo o a los dos años (lo que sea mayor) el juez debe revisar el caso, salvo que la persona esté atrasada en la restitución que puede pagar o no haya hecho la consejería o el tratamiento exigidos.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        ("If you are not behind on restitution, the judge must review your case at the halfway point", "supported"),
        ("Si no está atrasado en la restitución, el juez debe revisar su caso a la mitad del plazo", "supported"),
        ("Even if you are behind on restitution, the judge must review your case", "contradicted"),
    ],
)
def test_a_claim_that_names_the_set_apart_case_only_to_deny_it_states_the_rule(claim, outcome):
    """'not behind on restitution' is the rule's own case: denying the exception is not giving it the rule."""
    assert check_claim(claim, EARLY_REVIEW).outcome == outcome


AUTOMATIC = EvidenceRecord(
    slug="tx-gov-411-072",
    citation="Tex. Gov't Code § 411.072",
    url="u",
    assertable=True,
    summary="For certain nonviolent misdemeanors handled with deferred adjudication, the court must issue an order of nondisclosure after discharge and dismissal. Many offense types are excluded, including kidnapping and weapons offenses, and cases with a family violence finding.",
    excerpt="",
    summaries=(
        "En ciertos delitos menores tratados con adjudicación diferida, el tribunal debe dictar una orden de no divulgación al terminar el caso. Se excluyen muchos delitos, como secuestro o de armas, y casos con hallazgo de violencia familiar.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        (
            "After deferred adjudication for a misdemeanor, the court must issue the nondisclosure order, even if there was a family violence finding",
            "contradicted",
        ),
        (
            "Tras una adjudicación diferida por un delito menor, el tribunal debe dictar la no divulgación, aunque haya habido un hallazgo de violencia familiar",
            "contradicted",
        ),
        (
            "Tras una adjudicación diferida por un delito menor, el tribunal debe dictar la orden de no divulgación",
            "supported",
        ),
    ],
)
def test_even_if_a_case_the_entry_excludes_in_a_later_clause_of_the_sentence_is_a_contradiction(claim, outcome):
    assert check_claim(claim, AUTOMATIC).outcome == outcome


VOUCHERS = EvidenceRecord(
    slug="us-cfr-24-982-553",
    citation="24 C.F.R. § 982.553(a)",
    url="u",
    assertable=True,
    summary="For Section 8 vouchers, the housing agency must deny admission if any household member was convicted of making methamphetamine on federally assisted housing premises.",
    excerpt="",
    summaries=(
        "Para los vales de la Sección 8, la agencia de vivienda debe negar la admisión si algún miembro del hogar fue condenado por producir metanfetamina en una vivienda con ayuda federal.",
    ),
)


@pytest.mark.parametrize(
    ("draft", "language"),
    [
        (
            "With Section 8 vouchers, the agency must deny admission if a household member was convicted of making methamphetamine in federally assisted housing.",
            "en",
        ),
        (
            "Con los vales de la Sección 8, la agencia tiene que negar la entrada si algún miembro del hogar fue condenado por producir metanfetamina en una vivienda con ayuda federal.",
            "es",
        ),
    ],
)
def test_the_section_8_program_name_is_not_a_citation(draft, language):
    assert "uncited_claim" in check_draft(draft=draft, evidence=[VOUCHERS], context=ctx(language)).rules


REGISTER = EvidenceRecord(
    slug="tx-elec-13-001",
    citation="Tex. Elec. Code § 13.001(a)(4)",
    url="u",
    assertable=True,
    summary="To register to vote, a person must not have a final felony conviction, or must have fully discharged the sentence (including prison, parole, supervision or probation) or been pardoned.",
    excerpt="",
    summaries=(
        "Para inscribirse para votar, la persona no debe tener una condena final por delito grave, o debe haber cumplido toda la sentencia (incluida prisión, libertad condicional, supervisión o probatoria) o haber recibido un indulto.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        (
            "Once your parole is over you can register to vote, even if you still have probation left to finish",
            "contradicted",
        ),
        ("Cuando termine su parole puede inscribirse para votar, aunque todavía esté en probatoria", "contradicted"),
        ("You can register to vote once you have fully discharged the sentence, including probation", "supported"),
    ],
)
def test_even_while_still_serving_a_part_the_entry_requires_over_is_a_contradiction(claim, outcome):
    assert check_claim(claim, REGISTER).outcome == outcome


TEFAP = EvidenceRecord(
    slug="us-tefap-251-5",
    citation="7 C.F.R. § 251.5",
    url="u",
    assertable=True,
    summary="USDA food distributed through food banks and pantries under TEFAP goes to households that meet the state's uniform income-based eligibility rules.",
    excerpt="",
    summaries=(
        "La comida del USDA que se reparte en bancos de comida y despensas por medio de TEFAP es para hogares que cumplen las reglas de elegibilidad por ingresos del estado.",
    ),
)


@pytest.mark.parametrize(
    ("draft", "language", "uncited"),
    [
        ("Food banks that hand out USDA food under TEFAP use the state's income-based eligibility rules.", "en", True),
        (
            "Los bancos de comida que reparten comida del USDA por TEFAP usan las reglas de elegibilidad por ingresos del estado.",
            "es",
            True,
        ),
        ("A local food bank near you might have food this week.", "en", False),
        ("Un banco de comida cerca de usted quizás tenga comida esta semana.", "es", False),
    ],
)
def test_an_uncited_plain_statement_that_is_mostly_an_entrys_words_is_an_uncited_claim(draft, language, uncited):
    assert ("uncited_claim" in check_draft(draft=draft, evidence=[TEFAP], context=ctx(language)).rules) == uncited


FEE_WAIVED = EvidenceRecord(
    slug="tx-ccp-55a-203",
    citation="Tex. Code Crim. Proc. art. 55A.203",
    url="u",
    assertable=True,
    summary="After a case is dismissed because the person completed a veterans treatment court program, a district court may enter an expunction order within 30 days. The court may not charge a fee for this expunction.",
    excerpt="",
    summaries=(
        "Después de que un caso se desestima porque la persona completó un programa de tribunal para veteranos, un tribunal de distrito puede dictar la orden de expunción dentro de 30 días. El tribunal no puede cobrar por esta expunción.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        # The condition matches the first sentence; the rule it states ("may not charge") is the second one.
        (
            "Si desestimaron tu caso porque completaste el programa de veteranos, la corte que dicte la expunción no te puede cobrar ninguna cuota",
            "supported",
        ),
        (
            "Si desestimaron tu caso porque completaste el programa de veteranos, la corte que dicte la expunción te puede cobrar una cuota",
            "contradicted",
        ),
    ],
)
def test_a_rule_after_a_condition_is_judged_by_the_sentence_that_holds_its_verb(claim, outcome):
    assert check_claim(claim, FEE_WAIVED).outcome == outcome


TITLE_II = EvidenceRecord(
    slug="us-ssa-title2-suspension",
    citation="SSA POMS GN 02607.160",
    url="u",
    assertable=True,
    summary="Social Security benefits are suspended for a person who is convicted of a crime and confined for more than 30 continuous days; they can restart the month after release.",
    excerpt="",
    summaries=(
        "Los beneficios del Seguro Social se suspenden para una persona condenada por un delito y encerrada más de 30 días seguidos; pueden volver el mes después de salir.",
    ),
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        (
            "Your Social Security checks are suspended after 30 days locked up, even if you haven't been convicted yet",
            "contradicted",
        ),
        (
            "Sus beneficios del Seguro Social se suspenden a los 30 días encerrado, aunque no lo hayan condenado",
            "contradicted",
        ),
        (
            "Your Social Security checks are suspended if you are convicted and locked up for more than 30 days in a row",
            "supported",
        ),
    ],
)
def test_a_condition_the_entry_sets_said_not_to_matter_is_a_contradiction(claim, outcome):
    assert check_claim(claim, TITLE_II).outcome == outcome


SSI = EvidenceRecord(
    slug="us-ssi-inmate-suspension",
    citation="20 C.F.R. § 416.1325",
    url="u",
    assertable=True,
    summary="SSI is not paid for any full calendar month a person lives in a jail or prison; if the suspension lasts 12 months in a row, SSI ends and a new application is needed.",
    excerpt="",
    summaries=(
        "El SSI no se paga por ningún mes completo en que la persona vive en una cárcel o prisión; si la suspensión dura 12 meses seguidos, el SSI termina y hay que solicitarlo de nuevo.",
    ),
)


def test_a_benefit_that_ends_is_the_same_whether_it_ends_or_is_ended():
    claim = "si la suspensión dura doce meses seguidos el beneficio se termina y hay que volver a solicitar"
    assert check_claim(claim, SSI).outcome == "supported"
    assert stance_of("el SSI termina").negated == stance_of("el beneficio se termina").negated


def test_an_although_clause_in_spanish_is_its_own_clause_but_a_short_aside_is_not():
    assert (
        len(
            clauses_of(
                "La junta puede negar la licencia, aunque una adjudicación diferida no cuenta como condena", claim=True
            )
        )
        == 2
    )
    assert (
        len(clauses_of("La agencia debe negar la admisión, aunque sea vieja, por fabricar metanfetamina", claim=True))
        == 1
    )


def test_a_past_while_tells_what_happened_and_a_present_while_is_a_gate():
    assert (
        stance_of("If your Medicaid was suspended while you were in jail, HHSC must reinstate it within 48 hours").gate
        != "during"
    )
    assert stance_of("You can vote while you are on parole").gate == "during"


WAIT = EvidenceRecord(
    slug="tx-gov-411-0725",
    citation="Tex. Gov't Code § 411.0725",
    url="u",
    assertable=True,
    summary="A person who completed deferred adjudication may ask the court for an order of nondisclosure; for felonies the person generally must wait five years after the dismissal.",
    excerpt="",
    summaries=(
        "Quien completó una adjudicación diferida puede pedir al tribunal una orden de no divulgación; para delitos graves por lo general hay que esperar cinco años después de la desestimación.",
    ),
)


@pytest.mark.parametrize(
    "claim",
    [
        "After a felony deferred adjudication you can ask for nondisclosure without having to wait",
        "Después de una adjudicación diferida por un delito grave puede pedir la no divulgación sin tener que esperar",
    ],
)
def test_without_waiting_against_a_waiting_period_is_a_contradiction(claim):
    assert check_claim(claim, WAIT).outcome == "contradicted"


def test_a_section_the_evidence_itself_cross_references_is_not_a_fabricated_citation():
    supervision = EvidenceRecord(
        slug="tx-gov-508-147",
        citation="Tex. Gov't Code § 508.147",
        url="u",
        assertable=True,
        summary="Except as limited by Section 508.149, a parole panel must release to mandatory supervision a person whose time served plus good conduct time equals the sentence.",
        excerpt="",
    )
    named = "Mandatory supervision comes when time served plus good time equals the sentence, though section 508.149 can rule it out [Tex. Gov't Code § 508.147]."
    invented = "Mandatory supervision comes when time served plus good time equals the sentence, though section 508.150 can rule it out [Tex. Gov't Code § 508.147]."
    assert "fabricated_citation" not in check_draft(draft=named, evidence=[supervision], context=ctx()).rules
    assert "fabricated_citation" in check_draft(draft=invented, evidence=[supervision], context=ctx()).rules


@pytest.mark.parametrize(
    ("draft", "uncited"),
    [
        ("Register early so you're not scrambling at the deadline.", False),
        ("The deadline to register is 7 days after you arrive.", True),
    ],
)
def test_a_deadline_mentioned_in_advice_is_not_a_rule_but_a_stated_one_is(draft, uncited):
    assert ("uncited_claim" in check_draft(draft=draft, evidence=[VOTING], context=ctx()).rules) is uncited


REGISTRATION_VISITS = EvidenceRecord(
    slug="tx-ccp-62-059",
    citation="Tex. Code Crim. Proc. art. 62.059",
    url="u",
    assertable=True,
    summary="A registrant who, on at least three occasions in a month, spends more than 48 straight hours in another county must report it there before the last day of that month.",
    excerpt="",
)


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        (
            "If three or more times in one month you stay over 48 hours in another county, you must report it",
            "supported",
        ),
        (
            "If three or more times in one year you stay over 48 hours in another county, you must report it",
            "contradicted",
        ),
    ],
)
def test_one_month_is_what_in_a_month_says(claim, outcome):
    assert check_claim(claim, REGISTRATION_VISITS).outcome == outcome


LICENSE = EvidenceRecord(
    slug="tx-occ-53-021",
    citation="Tex. Occ. Code § 53.021",
    url="u",
    assertable=True,
    summary="A license must be revoked if the holder is imprisoned after a felony conviction. Public housing has a three-year bar after a drug eviction, unless the person finished rehabilitation.",
    excerpt="",
    summaries=(
        "La licencia debe revocarse si la persona va a prisión por un delito grave. Hay una prohibición de tres años después de un desalojo por drogas, salvo si la persona terminó rehabilitación.",
    ),
)


@pytest.mark.parametrize(
    "claim",
    [
        "A license must be revoked after a felony conviction, whether or not the holder is imprisoned for it",
        "La licencia debe revocarse por un delito grave, sin importar si la persona va a prisión",
        "After a drug eviction there is a three-year bar and there are no exceptions to it",
        "Después de un desalojo por drogas hay una prohibición de tres años, sin ninguna excepción",
    ],
)
def test_whether_or_not_and_no_exceptions_against_a_condition_or_exception_are_contradictions(claim):
    assert check_claim(claim, LICENSE).outcome == "contradicted"


def test_spanish_ordinals_are_numbers():
    assert quantities_in("a partir del quinto aniversario") == frozenset({(5.0, "year")})
    assert quantities_in("el décimo aniversario") == frozenset({(10.0, "year")})


def test_a_concession_that_names_the_exceptions_is_not_a_rule_of_its_own():
    assert (
        len(
            clauses_of(
                "A un arrendador no lo pueden demandar por eso, aunque hay excepciones para ciertos delitos cuando sabía",
                claim=True,
            )
        )
        == 2
    )
    assert (
        check_claim("aunque hay excepciones para ciertos delitos cuando el arrendador sabía", LICENSE).outcome
        != "contradicted"
    )


# The twelfth session's checks, each with a claim it must stop and a correct one it must let through, against the
# real corpus texts.
def _entry(slug: str, language: str = "en") -> EvidenceRecord:
    from tests.audit.grounding import corpus_records

    return corpus_records(language)[slug]


@pytest.mark.parametrize(
    ("text", "quantity"),
    [
        ("ciento cincuenta dólares", (150.0, "$")),
        ("treinta y cinco días", (35.0, "day")),
        ("one hundred fifty dollars", (150.0, "$")),
        ("twenty-five days", (25.0, "day")),
    ],
)
def test_a_number_said_in_several_words_is_one_number(text, quantity):
    assert quantities_in(text) == frozenset({quantity})


def test_a_list_of_number_words_stays_a_list():
    assert numbers_in("tres o cuatro años") == frozenset({3.0, 4.0})


@pytest.mark.parametrize(
    ("claim", "slug", "language", "outcome"),
    [
        # "even if" a case the entry sets apart
        (
            "You can seal a misdemeanor this way even if the offense was violent.",
            "tx-gov-411-0735",
            "en",
            "contradicted",
        ),
        (
            "Se puede pedir para un DWI Clase B aunque hubo un accidente con otra persona.",
            "tx-gov-411-0731",
            "es",
            "contradicted",
        ),
        (
            "Medicaid cannot pay for an inmate's care, not even for a hospital stay as an inpatient.",
            "us-cms-medicaid-inmate-exclusion",
            "en",
            "contradicted",
        ),
        (
            "Federal Medicaid generally cannot pay for an inmate's health care.",
            "us-cms-medicaid-inmate-exclusion",
            "en",
            "supported",
        ),
        (
            "La licencia debe revocarse si lo encarcelan, aunque sea por un delito menor.",
            "tx-occ-53-021",
            "es",
            "contradicted",
        ),
        # a discretion said to be forbidden
        (
            "Public housing agencies may not consider rehabilitation a person completed.",
            "us-42-13661",
            "en",
            "contradicted",
        ),
        (
            "The letter request means you cannot enroll in training until it comes.",
            "tx-tac-16-60-42",
            "en",
            "contradicted",
        ),
        # right away, where the entry sets a wait for the claim's class of crime
        (
            "For a felony, you can ask for nondisclosure right away after the dismissal.",
            "tx-gov-411-0725",
            "en",
            "contradicted",
        ),
        # the clock of a notice
        (
            "They cancel it if you don't answer the notice within 30 days after you get it.",
            "tx-elec-16-003-16-033",
            "en",
            "contradicted",
        ),
        (
            "They cancel it if you don't answer the notice within 30 days after it is mailed.",
            "tx-elec-16-003-16-033",
            "en",
            "supported",
        ),
        # a rule the entry says is over, stated as today's
        (
            "A drug conviction while on aid still cuts off federal student aid.",
            "us-fafsa-simplification-drug",
            "en",
            "contradicted",
        ),
        # automatic where someone decides
        ("La probatoria se termina sola a los dos años.", "tx-ccp-42a-701", "es", "contradicted"),
        # "any eviction", "any job", where the entry names some
        (
            "Tras cualquier desalojo de una vivienda con ayuda federal, la agencia tiene que negar la admisión tres años.",
            "us-cfr-24-960-204",
            "es",
            "contradicted",
        ),
    ],
)
def test_the_twelfth_session_checks(claim, slug, language, outcome):
    found = check_claim(claim, _entry(slug, language)).outcome
    assert found == outcome if outcome == "supported" else found != "supported"


def test_a_rule_stated_after_a_cited_sentence_leans_on_its_citation():
    evidence = [_entry("tx-gov-508-182")]
    ok = "On parole you pay $10 a month for supervision and $8 more [Tex. Gov't Code § 508.182]. The parole panel can let you put off those payments."
    bad = "On parole you pay $10 a month for supervision and $8 more [Tex. Gov't Code § 508.182]. The parole panel can never let you put off those payments."
    assert check_draft(draft=ok, evidence=evidence, context=ctx()).verdict == Verdict.PASS
    assert check_draft(draft=bad, evidence=evidence, context=ctx()).verdict != Verdict.PASS
