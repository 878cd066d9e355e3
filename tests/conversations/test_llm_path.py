"""The LLM path through the real anthropic client and a fake HTTP transport: budgets, fallbacks, privacy."""

from __future__ import annotations

import json
import uuid

import httpx2
import pytest

from conversations import llm, services
from conversations.models import NodeRun, Turn
from conversations.models import Turn as TurnModel
from tests.conversations.fakes import FakeAnthropic, cited, ok, status

pytestmark = pytest.mark.django_db

VOTING = "Tex. Elec. Code § 11.002(a)(4)"
GOOD_DRAFT = {"reply": "211 Texas can help you find an ID office: call 2-1-1.", "cited": []}


def run(text: str) -> Turn:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex)
    return services.turn_run(turn_id=turn.pk)


def wire_happy(fake: FakeAnthropic) -> None:
    fake.on("classify", ok("classify", {"top_need": "id_documents", "language": "en", "supervision": "unknown"}))
    fake.on("write_reply", ok("write_reply", GOOD_DRAFT))
    fake.on("report_findings", ok("report_findings", {"findings": []}))


def test_the_normal_path_makes_at_most_three_llm_calls_and_accounts_their_cost(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    turn = run("I just got out and need an ID in Houston")
    assert turn.status == Turn.Status.COMPLETED
    assert 1 <= turn.llm_calls <= 3
    assert fake_anthropic.tools_called[-2:] == ["write_reply", "report_findings"]
    draft_run = NodeRun.objects.get(turn=turn, node="draft")
    assert draft_run.input_tokens == 900 and draft_run.output_tokens == 120
    assert draft_run.cost_usd > 0
    assert float(turn.cost_usd) <= 0.02


def test_a_heuristic_sure_message_does_not_spend_an_intake_call(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    run("I need a birth certificate in Dallas")
    assert "classify" not in fake_anthropic.tools_called


def test_prompts_below_the_models_caching_minimum_ask_for_no_cache_and_report_none(
    fake_anthropic: FakeAnthropic,
) -> None:
    # Behaviour change (issue #23): the prompts are far below the 2,048/4,096-token minimums, so a
    # cache breakpoint could never cache anything; it is no longer sent, and usage shows no cache.
    wire_happy(fake_anthropic)
    turn = run("I need a birth certificate in Dallas")
    assert fake_anthropic.requests
    for body in fake_anthropic.requests:
        assert all("cache_control" not in block for block in body["system"])
    auditor = next(body for body in fake_anthropic.requests if body.get("tool_choice"))
    assert auditor["tool_choice"]["type"] == "tool"
    assert not NodeRun.objects.filter(turn=turn, cache_read_tokens__gt=0).exists()


@pytest.mark.parametrize(
    ("model", "chars", "cached"),
    [
        ("claude-haiku-4-5", 4096 * 4, False),
        ("claude-haiku-4-5", 4096 * 5, True),
        ("claude-sonnet-4-6", 2048 * 4, False),
        ("claude-sonnet-4-6", 2048 * 5, True),
    ],
)
def test_caching_is_requested_only_when_the_prefix_reaches_the_models_minimum(
    fake_anthropic: FakeAnthropic, model: str, chars: int, cached: bool
) -> None:
    from pydantic import BaseModel

    class Out(BaseModel):
        ok: bool

    fake_anthropic.on("answer", ok("answer", {"ok": True}))
    result = llm.structured_call(
        model=model,
        system="x" * chars,
        messages=[{"role": "user", "content": "hi"}],
        tool_name="answer",
        tool_description="d",
        schema=Out,
    )
    body = fake_anthropic.requests[-1]
    assert ("cache_control" in body["system"][0]) is cached
    assert (result.usage.cache_write_tokens > 0) is cached


WRONG_PAROLE = [
    (
        "Yes, you can vote while you are on parole in Texas",
        [
            (
                VOTING,
                "A person with a final felony conviction is not a qualified voter until the whole sentence is fully discharged, which includes any prison or jail time, parole, supervision, or probation.",
            )
        ],
    )
]
WRONG_PAROLE_ES = [
    (
        "Sí, puede votar mientras está en libertad condicional en Texas",
        [
            (
                VOTING,
                "Una persona con una condena final por delito grave (felony) no puede votar hasta que cumpla toda la sentencia, incluido el tiempo en prisión o cárcel, la libertad condicional (parole), la supervisión o la probatoria.",
            )
        ],
    )
]


def _voting_turn(text: str, language: str | None = None) -> TurnModel:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(
        conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex, language=language
    )
    return services.turn_run(turn_id=turn.pk)


@pytest.mark.parametrize(
    ("text", "language", "blocks"),
    [
        ("can i vote if im still on parole", "en", WRONG_PAROLE),
        ("¿puedo votar si todavía estoy en libertad condicional?", "es", WRONG_PAROLE_ES),
    ],
)
def test_the_parole_voting_draft_from_the_model_never_reaches_the_person(
    fake_anthropic: FakeAnthropic, text: str, language: str, blocks: list
) -> None:
    fake_anthropic.on("classify", ok("classify", {"top_need": "voting", "language": language, "supervision": "parole"}))
    fake_anthropic.on("write_reply", cited(blocks))
    fake_anthropic.on("report_findings", ok("report_findings", {"findings": []}))
    turn = _voting_turn(text, language)
    assert "parole in Texas" not in turn.reply and "mientras está en libertad condicional en Texas" not in turn.reply
    audits = NodeRun.objects.filter(turn=turn, node="audit").order_by("step")
    assert "contradicted_claim" in audits.first().output["rules"]
    # The model kept saying it, so after the revision bound the reply is the handoff, never the claim.
    assert turn.status == Turn.Status.ESCALATED


def test_the_model_draft_arrives_as_search_results_with_citations_on_and_becomes_statements(
    fake_anthropic: FakeAnthropic,
) -> None:
    good = [
        (
            "Not yet: in Texas you cannot vote until your whole sentence is done, including parole",
            [
                (
                    VOTING,
                    "A person with a final felony conviction is not a qualified voter until the whole sentence is fully discharged, which includes any prison or jail time, parole, supervision, or probation.",
                )
            ],
        ),
        (".\nThis is general information, not legal advice.", []),
    ]
    fake_anthropic.on("classify", ok("classify", {"top_need": "voting", "language": "en", "supervision": "parole"}))
    fake_anthropic.on("write_reply", cited(good))
    fake_anthropic.on("report_findings", ok("report_findings", {"findings": []}))
    turn = _voting_turn("can i vote if im still on parole")
    draft_body = next(body for body in fake_anthropic.requests if not body.get("tool_choice"))
    results = [block for block in draft_body["messages"][0]["content"] if block["type"] == "search_result"]
    assert results and all(block["citations"] == {"enabled": True} for block in results)
    assert VOTING in [block["title"] for block in results]
    assert turn.status == Turn.Status.COMPLETED and turn.state["draft_source"] == "llm"
    assert turn.reply.startswith("Not yet:") and f"[{VOTING}]" in turn.reply
    statement = turn.state["statements"][0]
    assert statement["entry"] == "tx-elec-11-002" and "not a qualified voter until" in statement["quote"]


def test_a_model_answer_quoting_text_not_in_the_entry_is_revised_then_replaced_by_the_template(
    fake_anthropic: FakeAnthropic,
) -> None:
    fake_anthropic.on("classify", ok("classify", {"top_need": "voting", "language": "en", "supervision": "parole"}))
    fake_anthropic.on("write_reply", cited([("You can vote on parole", [(VOTING, "People on parole may vote.")])]))
    fake_anthropic.on("report_findings", ok("report_findings", {"findings": []}))
    turn = _voting_turn("can i vote if im still on parole")
    assert turn.state["draft_source"] == "template"
    assert turn.state["llm_errors"].count("draft_mismatch") == 2
    assert turn.reply.startswith("Not yet:")


def test_a_model_answer_in_the_wrong_language_is_not_sent(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.on("classify", ok("classify", {"top_need": "voting", "language": "es", "supervision": "parole"}))
    fake_anthropic.on(
        "write_reply",
        cited([("Please call 211 Texas and they can help you with the voter registration question today.", [])]),
    )
    fake_anthropic.on("report_findings", ok("report_findings", {"findings": []}))
    turn = _voting_turn("¿puedo votar si todavía estoy en libertad condicional?", "es")
    assert turn.state["draft_source"] == "template"
    assert turn.reply.startswith("Todavía no:")


def test_the_auditor_sees_the_evidence_text_and_a_strict_schema_and_one_unknown_rule_drops_alone(
    fake_anthropic: FakeAnthropic,
) -> None:
    wire_happy(fake_anthropic)
    fake_anthropic.on(
        "report_findings",
        ok(
            "report_findings",
            {
                "findings": [
                    {"rule": "tone", "verdict": "soft_block", "message": "x"},
                    {"rule": "outcome_promise", "verdict": "hard_block", "message": "promise"},
                ]
            },
        ),
    )
    turn = run("can I get my birth certificate with my TDCJ ID in Dallas")  # a rule the corpus answers
    auditor = next(
        body for body in fake_anthropic.requests if (body.get("tool_choice") or {}).get("name") == "report_findings"
    )
    schema = auditor["tools"][0]["input_schema"]
    assert "enum" in json.dumps(schema) and "contradicted_claim" in json.dumps(schema)
    assert "excerpt:" in auditor["messages"][0]["content"]
    assert turn.audit_verdict == "hard_block"  # the known finding counted; the unknown one did not void it


@pytest.mark.parametrize(
    "responder",
    [
        status(429, "rate_limit_error"),
        status(500),
        status(529, "overloaded_error"),
        lambda body: httpx2.Response(200, content=b"{not json"),
        ok("write_reply", {"answer": "wrong field"}),
        ok("write_reply", GOOD_DRAFT, stop_reason="refusal"),
    ],
    ids=["429", "500", "529", "malformed-json", "schema-mismatch", "refusal"],
)
def test_any_llm_failure_falls_back_to_the_template_and_the_turn_completes(
    fake_anthropic: FakeAnthropic, responder: object
) -> None:
    wire_happy(fake_anthropic)
    fake_anthropic.on("write_reply", responder)
    turn = run("I need a birth certificate in Dallas")
    assert turn.status in (Turn.Status.COMPLETED, Turn.Status.ESCALATED)
    assert turn.reply
    assert turn.state["draft_source"] == "template"
    assert turn.state.get("llm_errors")


def test_a_timeout_falls_back_too(fake_anthropic: FakeAnthropic) -> None:
    def slow(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("timed out", request=request)

    llm.set_http_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(slow)))
    turn = run("I need a birth certificate in Dallas")
    assert turn.reply
    assert "timeout" in turn.state["llm_errors"]


def test_only_redacted_text_reaches_the_model(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    run("my ssn is 123-45-6789 and i need an ID in houston, call me 713-555-0199")
    sent = json.dumps(fake_anthropic.requests)
    assert "123-45-6789" not in sent and "555-0199" not in sent
    assert fake_anthropic.requests


def test_the_llm_auditor_can_block_but_never_unblock(fake_anthropic: FakeAnthropic) -> None:
    wire_happy(fake_anthropic)
    fake_anthropic.on(
        "report_findings",
        ok(
            "report_findings",
            {"findings": [{"rule": "outcome_promise", "verdict": "hard_block", "message": "promise"}]},
        ),
    )
    turn = run("I need a birth certificate in Dallas")
    assert turn.status == Turn.Status.ESCALATED
    assert turn.audit_verdict == "hard_block"
