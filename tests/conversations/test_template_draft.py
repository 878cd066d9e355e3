"""The template draft: a request for places leads with the places; a rule question keeps the honest hedge."""

from __future__ import annotations

import pytest

from conversations.workflow import templates

FOOD_BANK = {"name": "San Antonio Food Bank", "phone_display": "(210) 431-8326", "city": "San Antonio"}


@pytest.mark.parametrize(
    "query",
    [
        "where can I find food in San Antonio",
        "I need a shelter tonight in Austin",
        "food bank near me",
        "¿Dónde puedo encontrar comida en San Antonio?",
        "necesito un albergue en Dallas",
    ],
)
def test_a_request_for_places_is_answered_with_places(query: str) -> None:
    assert templates.asks_for_a_place(query)
    reply = templates.render(language="en", channel="web", evidence=[], gated=True, resources=[FOOD_BANK], query=query)
    assert "not certain about the rule" not in reply
    assert reply.startswith(templates.PLACES["en"]) and "San Antonio Food Bank, (210) 431-8326" in reply


@pytest.mark.parametrize(
    "query",
    [
        "can I vote on parole in Texas",
        "am I allowed to live in public housing with a felony",
        "where is it legal for me to live on parole",
        "I need to know if I can get SNAP with a drug felony",
        "¿puedo votar si estoy en libertad condicional?",
        "necesito saber si la ley me deja trabajar de barbero",
        "child support took my whole tax refund, can they do that",
        "is it legal for them to fire me for my record",
    ],
)
def test_a_rule_question_without_evidence_keeps_the_hedge(query: str) -> None:
    assert not templates.asks_for_a_place(query)
    reply = templates.render(language="en", channel="web", evidence=[], gated=True, resources=[FOOD_BANK], query=query)
    assert reply.startswith(templates.NO_ASSERT["en"])


def test_with_no_places_to_list_a_place_request_gets_211_not_the_hedge() -> None:
    reply = templates.render(
        language="es", channel="sms", evidence=[], gated=True, resources=[], query="dónde hay comida"
    )
    assert templates.NO_ASSERT["es"] not in reply
    assert reply == templates.NO_PLACES["es"]


@pytest.mark.parametrize(
    ("query", "need"),
    [
        ("need food tonight", "food"),
        ("who hires felons in houston? warehouse, construction, anything", "employment"),
        ("free legal aid in dallas for a landlord problem", "legal_aid"),
        ("quiero sacar mi GED en linea", "education"),
    ],
)
def test_an_ordinary_request_without_evidence_gets_no_rule_hedge(query: str, need: str) -> None:
    """Food tonight or a job asks no rule: "not certain about the rule" would answer a question nobody asked."""
    assert not templates.asks_a_rule(query, need)
    with_places = templates.render(
        language="en", channel="web", evidence=[], gated=True, resources=[FOOD_BANK], query=query, need=need
    )
    assert "not certain" not in with_places and with_places.startswith(templates.PLACES["en"])
    without = templates.render(
        language="en", channel="web", evidence=[], gated=True, resources=[], query=query, need=need
    )
    assert without == templates.NO_PLACES["en"]


@pytest.mark.parametrize(
    ("query", "need"),
    [("help with my record", "legal_record"), ("voting rights after prison, whats the deal", "voting")],
)
def test_a_rule_need_keeps_the_hedge_whatever_its_wording(query: str, need: str) -> None:
    assert templates.asks_a_rule(query, need) and not templates.asks_a_rule(query, "food")
    reply = templates.render(
        language="en", channel="sms", evidence=[], gated=True, resources=[], query=query, need=need
    )
    assert reply.startswith(templates.NO_ASSERT["en"]) and "2-1-1" in reply


def test_the_spanish_place_reply_is_in_spanish() -> None:
    reply = templates.render(
        language="es",
        channel="web",
        evidence=[],
        gated=True,
        resources=[FOOD_BANK],
        query="¿Dónde puedo encontrar comida?",
    )
    assert reply.splitlines()[0] == templates.PLACES["es"]


# --- answers from key points (issue #23) --------------------------------------------------------

from audit.rules import readability  # noqa: E402

VOTING = {
    "slug": "tx-elec-11-002",
    "citation": "Tex. Elec. Code § 11.002(a)(4)",
    "summary": "A person with a final felony conviction is not a qualified voter until the whole sentence is fully discharged.",
    "caveat": "A 2025 bill (89R S.B. 631) proposed letting people vote unless currently incarcerated; no evidence was found that it passed. Check the current statute before relying on this.",
    "key_points": [
        {
            "kind": "other",
            "en": "A pardon can also give back the right to vote.",
            "es": "Un indulto también le devuelve el derecho a votar.",
            "quote_en": "A pardon",
            "quote_es": "Un indulto",
        },
        {
            "kind": "eligibility",
            "en": "Not yet: with a felony, you cannot vote while you are on parole or probation.",
            "es": "Todavía no: con un delito grave, no puede votar mientras está en libertad condicional (parole) o probatoria.",
            "quote_en": "is not a qualified voter until the whole sentence is fully discharged",
            "quote_es": "no puede votar hasta que cumpla toda la sentencia",
        },
    ],
}
FEES = {
    "slug": "tx-gov-508-182",
    "citation": "Tex. Gov't Code § 508.182",
    "summary": "People on parole pay fees.",
    "caveat": "",
    "key_points": [
        {
            "kind": "process",
            "en": "A parole panel may let you put off the payments.",
            "es": "Un panel puede permitir aplazar los pagos.",
            "quote_en": "q",
            "quote_es": "q",
        },
        {
            "kind": "cost",
            "en": "On parole you pay a $10 supervision fee and an $8 administrative fee each month.",
            "es": "En libertad condicional usted paga cada mes una cuota de $10 y una de $8.",
            "quote_en": "q",
            "quote_es": "q",
        },
    ],
}


@pytest.mark.parametrize(
    ("query", "language", "lead"),
    [("Can I vote on parole?", "en", "Not yet:"), ("¿Puedo votar en libertad condicional?", "es", "Todavía no:")],
)
def test_an_eligibility_question_leads_with_the_direct_answer_and_its_citation(query, language, lead):
    reply, statements = templates.render_structured(
        language=language, channel="web", evidence=[VOTING], gated=False, resources=[FOOD_BANK], query=query
    )
    first = reply.splitlines()[0]
    assert first.startswith(lead) and first.endswith("[Tex. Elec. Code § 11.002(a)(4)].")
    assert "Here is what Texas rules say" not in reply
    assert statements[0]["entry"] == "tx-elec-11-002" and statements[0]["quote"].startswith(
        ("is not a qualified", "no puede votar")
    )
    lines = reply.splitlines()
    note = next(i for i, line in enumerate(lines) if line.startswith(("Note:", "Nota:")))
    assert note < lines.index(templates.PLACES[language]) < lines.index(templates.NOT_ADVICE[language])


def test_the_lead_answer_reads_at_grade_seven_or_below():
    reply, _ = templates.render_structured(
        language="en", channel="web", evidence=[VOTING], gated=False, resources=[], query="can i vote on parole"
    )
    grade, _words = readability(reply.splitlines()[0], "en")
    assert grade <= 7


def test_a_cost_question_leads_with_the_cost_point():
    reply = templates.render(
        language="en",
        channel="web",
        evidence=[FEES],
        gated=False,
        resources=[],
        query="how much does parole cost each month",
    )
    assert reply.startswith("On parole you pay a $10 supervision fee")


def test_sms_shows_the_caveat_shortened():
    reply = templates.render(
        language="en", channel="sms", evidence=[VOTING], gated=False, resources=[], query="can i vote on parole"
    )
    note = next(line for line in reply.splitlines() if line.startswith("Note:"))
    assert len(note) <= len("Note: ") + templates.SMS_NOTE_CHARS + 1
    assert VOTING["caveat"].startswith(note.removeprefix("Note: ").rstrip("…"))
    assert "Check the current statute" not in note  # the web shows the whole caveat, SMS its first sentence


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("can i vote", "eligibility"),
        ("how much is an ID", "cost"),
        ("cuánto cuesta", "cost"),
        ("when is the deadline", "deadline"),
        ("¿puedo votar?", "eligibility"),
    ],
)
def test_the_question_kind_is_read_from_the_question(query, kind):
    assert templates.question_kind(query) == kind
