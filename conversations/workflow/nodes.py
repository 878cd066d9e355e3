"""Node logic: each node is a plain function of its read-only projection returning a NodeResult.

Nodes never touch the database or the turn row; the engine saves what they return. The model is
reached only through `ctx.call_llm`, which enforces the turn's LLM-call bound and deadline and
turns any failure into None, so every node has a deterministic path.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from django.conf import settings
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from audit import rules as audit_rules
from audit.claims import Statement, language_of, quote_in, sentences_of
from audit.types import AuditContext, AuditResult, EvidenceRecord, Verdict
from conversations import llm
from conversations.hooks import apply_gate, handoff_for
from conversations.workflow import approval, extensions, intake_rules, templates
from conversations.workflow.delivery import delivery_plan
from conversations.workflow.graph import MAX_AUDIT_REVISIONS
from conversations.workflow.understanding import own_case_probability, understand
from corpus.errors import QueryError
from corpus.evidence import EntryText, entry_texts
from corpus.selectors import corpus_search
from plans.selectors import is_plan_request, plan_build, plan_request_from_message
from plans.types import OutOfTexas, PlanError
from resources.selectors import REFERRAL_SLUG, match, referral_card
from vocab import NEED_CATEGORIES

logger = logging.getLogger(__name__)

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
PLAN_LEAD = {
    "en": "Here is a plan for your first days out, step by step (below).",
    "es": "Aquí tiene un plan para sus primeros días afuera, paso a paso (abajo).",
}


# What a prompt file writes as {{name}}: vocabularies rendered from their one definition, so a prompt
# can never offer the model a category that the answer's schema would reject (or omit one it accepts).
PROMPT_VALUES: dict[str, str] = {"need_categories": ", ".join(NEED_CATEGORIES)}
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def prompt(name: str) -> str:
    """Load a versioned prompt file with its placeholders filled (cached by the OS; files are small)."""
    text = (PROMPTS / f"{name}.md").read_text()

    def value(found: re.Match[str]) -> str:
        if found.group(1) not in PROMPT_VALUES:
            raise KeyError(f"prompt {name!r} names an unknown placeholder {found.group(0)}")
        return PROMPT_VALUES[found.group(1)]

    return _PLACEHOLDER.sub(value, text)


@dataclass
class NodeContext:
    """What a node may use besides its projection: the model (bounded) and the clock."""

    deadline: float
    llm_calls_left: int
    usages: list[llm.LLMUsage] = field(default_factory=list)
    llm_errors: list[str] = field(default_factory=list)
    llm_calls: int = 0

    def remaining(self) -> float:
        return self.deadline - time.time()

    def call_llm(self, *, call: Callable[..., Any] | None = None, **kwargs: Any) -> Any | None:
        """Make one model call (structured by default) if the key, the call bound and the deadline allow; None on any failure."""
        if not llm.enabled() or self.llm_calls_left - self.llm_calls <= 0 or self.remaining() <= 0.5:
            return None
        self.llm_calls += 1
        try:
            result = (call or llm.structured_call)(timeout=self.remaining(), **kwargs)
        except llm.LLMError as exc:
            self.llm_errors.append(exc.kind)
            usage = getattr(exc, "usage", None)
            if usage is not None:
                self.usages.append(usage)
            return None
        except Exception:
            logger.exception("unexpected error from the LLM client")
            self.llm_errors.append("unexpected")
            return None
        self.usages.append(result.usage)
        return result.value


@dataclass(frozen=True)
class NodeResult:
    """A node's decision: the outcome naming the transition, the state updates, a short trace output."""

    outcome: str
    updates: dict[str, Any]
    output: dict[str, Any] = field(default_factory=dict)


# --- intake -----------------------------------------------------------------------------------


class IntakeOpinion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    top_need: Literal[intake_rules.NEED_CATEGORIES]  # type: ignore[valid-type]
    language: Literal["en", "es"]
    supervision: Literal["parole", "probation", "mandatory_supervision", "none", "unknown"]


def intake(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Classify language, need, region and hand-off signals; a crisis from ingress goes straight to escalate.

    The trained model's assessment (made at ingress on the redacted message) decides with the rules
    as tie-breakers, and the conversation's need and region carry over (workflow/understanding.py).
    """
    text = str(view["text"])
    crisis = view["crisis"] or {}
    # An explicit choice from the client wins; otherwise the language of the person's own words
    # (not of a follow-up's rewrite, which carries the previous question's language), with the
    # conversation's language only breaking ties (so a person who switches is followed).
    own_words = str(view["place_text"] or text)
    found = understand(
        text=text,
        own_words=own_words,
        assessment=view["assessment"],
        language_pref=view["language_pref"],
        language_hint=view["language_hint"],
        region_hint=view["region_hint"],
        need_hint=view["need_hint"],
        crisis=crisis.get("category", "none"),
    )
    language = found.language
    updates: dict[str, Any] = {
        "language": language,
        "top_need": found.top_need,
        "supervision": found.supervision,
        "needs": list(found.needs),
        "region": found.region,
        "place": found.place,
        "out_of_state": found.out_of_state,
        "legal_advice": found.legal_advice,
        "outcome_promise": found.outcome_promise,
        "prompt_injection": found.prompt_injection,
        "intake_source": found.need_source,
    }
    if crisis.get("category", "none") != "none":
        updates["handoff_category"] = crisis["category"]
        return NodeResult(
            "crisis",
            updates,
            {"crisis": crisis["category"], "source": crisis.get("source", "rules"), "language": language},
        )
    # Checked on the message as sent: a follow-up rewrite must not hide "AGENT" inside an old question.
    if found.human_request:
        updates["handoff_category"] = "human"
        return NodeResult("handoff", updates, {"handoff": "human", "source": found.need_source})
    if found.out_of_state:
        updates["handoff_category"] = "out_of_state"
        return NodeResult("handoff", updates, {"handoff": "out_of_state", "state": found.out_of_state})
    if found.legal_advice:
        updates["handoff_category"] = "legal_aid"
        return NodeResult("handoff", updates, {"handoff": "legal_aid"})
    if not found.sure:
        opinion = ctx.call_llm(
            model=_settings().ANTHROPIC_MODEL_FAST,
            system=prompt("intake_v1"),
            messages=[{"role": "user", "content": f"MESSAGE:\n{text}"}],
            tool_name="classify",
            tool_description="Report the classification of the message.",
            schema=IntakeOpinion,
            max_tokens=200,
        )
        if opinion is not None:
            updates.update(top_need=opinion.top_need, intake_source="llm")
            if opinion.supervision != "unknown":
                updates["supervision"] = opinion.supervision
    output = {k: updates[k] for k in ("language", "top_need", "region", "intake_source")}
    output["model"] = (view["assessment"] or {}).get("version") or "unavailable"
    return NodeResult("ok", updates, output)


def _settings() -> Any:
    return settings


# --- retrieve ---------------------------------------------------------------------------------


def retrieve(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Hybrid search for the question; the confidence gate turns weak evidence into 'do not assert'."""
    query = str(view["query"])
    language = view["language"] or "en"
    category = view["top_need"] if view["top_need"] not in (None, "other") else None
    try:
        result = corpus_search(
            query=query,
            language=language,
            category=category,
            k=5,
            widen_if_gated=True,
            # Intake's reading of this message; without a model the gate's input is 0, as corpus_search
            # would find by assessing the question again.
            own_case=own_case_probability(view.get("assessment")) or 0.0,
        )
    except QueryError as exc:
        return NodeResult(
            "gated",
            {
                "evidence": [],
                "gated": True,
                "gate": {"gated": True, "reason": exc.code},
                "retrieval": {"confidence": 0.0, "gated": True},
            },
            {"error": exc.code},
        )
    decision = apply_gate(result, result.floor)
    evidence = [
        {
            "slug": hit.slug,
            "citation": hit.citation,
            "title": hit.title,
            "summary": hit.summary,
            "url": hit.url,
            "caveat": hit.caveat,
            "assertable": hit.assertable,
        }
        for hit in decision.evidence
        if hit.assertable
    ][:3]
    gated = decision.gated or not evidence
    updates = {
        "evidence": evidence if not gated else [],
        "gated": gated,
        "gate": {
            "gated": gated,
            "confidence": round(result.confidence, 4),
            "floor": result.floor,
            "reason": decision.reason,
            "evidence": evidence if not gated else [],
        },
        "retrieval": {"confidence": round(result.confidence, 4), "gated": gated},
        "retrieved_slugs": [hit.slug for hit in result.hits],
    }
    output = {"confidence": round(result.confidence, 4), "gated": gated, "hits": [hit.slug for hit in result.hits]}
    return NodeResult("gated" if gated else "ok", updates, output)


# --- match ------------------------------------------------------------------------------------


def match_resources(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Directory entries by need and region, nearest first when a place is known (no model)."""
    place = view["place"] or None
    near = (place["lat"], place["lon"]) if place and place.get("lat") is not None else None
    cards = match(
        category=view["top_need"] or "other",
        region=view["region"],
        near=near,
        language=view["language"],
        limit=5,
        needs=tuple(need for need in (view["needs"] or ()) if need == "id_not_required"),
    )
    # A named region with no local listing for this need: say so (the draft reads the flag) and make
    # sure 2-1-1, which knows local help the directory lacks, is right after the first statewide line.
    no_local = view["region"] not in (None, "", "statewide", "other") and not any(
        not card.is_statewide_line for card in cards
    )
    if no_local and not any(card.slug == REFERRAL_SLUG for card in cards):
        referral = referral_card()
        if referral is not None:
            cards = [*cards[:1], referral, *cards[1:4]]
    resources = [{**_card_json(card), "no_local_listing": no_local} for card in cards]
    updates: dict[str, Any] = {"resources": resources}
    output: dict[str, Any] = {"resources": [card["id"] for card in resources], "no_local_listing": no_local}
    updates.update(_release_plan(str(view["place_text"] or ""), view["language"] or "en"))
    if "plan" in updates:
        output["plan_steps"] = len(updates["plan"]["steps"])
    return NodeResult("ok", updates, output)


def _release_plan(text: str, language: str) -> dict[str, Any]:
    """A day-one plan card when the person gives their release facts ("I get out Friday, Bexar, parole").

    The plan's rules come only from assertable corpus entries (plans.selectors); a missing or unclear
    fact becomes one question back instead of a guess. Deterministic: no model call.
    """
    if not text or not is_plan_request(text):
        return {}
    request = plan_request_from_message(text, now=timezone.localtime(), language=language)
    if request is None or isinstance(request, OutOfTexas):
        return {}
    if isinstance(request, PlanError):
        return {"plan_question": request.message(language)}
    return {"plan": plan_build(request=request).as_json()}


def _card_json(card: Any) -> dict[str, Any]:
    return {
        "id": str(card.id),
        "slug": card.slug,
        "name": card.name,
        "organization": card.organization,
        "phone": card.phone,
        "phone_display": card.phone_display,
        "address": card.address,
        "city": card.city,
        "region": card.region,
        "lat": card.lat,
        "lon": card.lon,
        "hours": card.hours,
        "languages": list(card.languages),
        "url": card.url,
        "last_verified_at": card.last_verified_at,
        "distance_km": card.distance_km,
        "open_now": card.open_now,
        "is_statewide_line": card.is_statewide_line,
        "service": card.service,
        "alert": card.alert,
        "documents": list(card.documents),
        "attributes": dict(card.attributes),
    }


# --- draft ------------------------------------------------------------------------------------


class DraftOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reply: str = Field(min_length=1, max_length=4000)
    cited: list[str] = Field(default_factory=list)


class StatementOut(BaseModel):
    """One claim of a draft, as data: its text, the entry it rests on and a verbatim quote of that entry."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=1000)
    entry: str = Field(min_length=1, max_length=80)
    quote: str = Field(max_length=4000)


def _enrich(evidence: list[dict[str, Any]], language: str) -> tuple[list[dict[str, Any]], dict[str, EntryText]]:
    """Add each entry's key points, caveat and texts (what the draft may quote) to the gate's evidence."""
    texts = entry_texts(slugs=[str(item["slug"]) for item in evidence]) if evidence else {}
    enriched = []
    for item in evidence:
        text = texts.get(str(item["slug"]))
        enriched.append(
            {
                **item,
                "key_points": list(text.key_points) if text else [],
                "caveat": text.caveat_in(language) if text else item.get("caveat", ""),
            }
        )
    return enriched, texts


def draft(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Write the reply and its claims as data: Sonnet over cited search results when available, else the template."""
    gate = view["gate"] or {}
    gated = bool(gate.get("gated", True))
    language = view["language"] or "en"
    evidence, texts = _enrich([] if gated else list(gate.get("evidence") or []), language)
    resources = list(view["resources"] or [])
    channel = view["channel"] or "web"
    revisions = int(view["revisions"] or 0)
    findings = list((view["audit"] or {}).get("findings") or [])
    # Read up front, whichever path runs: the declared reads are what the node reads on every turn.
    history, plan, plan_question = view["history"], view["plan"], view["plan_question"]
    source = "template"
    drafted = None
    if llm.enabled():
        drafted = _draft_with_llm(
            view,
            ctx,
            evidence=evidence,
            texts=texts,
            gated=gated,
            resources=resources,
            findings=findings,
            history=history,
        )
        source = "llm" if drafted else "template"
    if drafted is None:
        drafted = templates.render_structured(
            language=language,
            channel=channel,
            evidence=evidence,
            gated=gated,
            resources=resources,
            level=revisions,
            query=str(view["query"] or ""),
            need=view["top_need"],
        )
    text, statements = drafted
    if plan and channel == "web":  # by SMS the plan goes in parts (outreach), not as a card
        # The plan card carries the steps and their rules; the reply says it is there.
        text = PLAN_LEAD.get(language, PLAN_LEAD["en"]) + "\n" + text
    elif plan_question:
        text = str(plan_question) + "\n" + text
    statements = [StatementOut.model_validate(item).model_dump() for item in statements]
    return NodeResult(
        "ok",
        {"draft": text, "statements": statements, "draft_source": source},
        {"source": source, "chars": len(text), "revision": revisions, "statements": len(statements)},
    )


def _search_results(
    evidence: list[dict[str, Any]], texts: Mapping[str, EntryText], language: str
) -> list[dict[str, Any]]:
    """The retrieved entries as Messages API search_result blocks, one text block per sentence (the citable unit)."""
    blocks = []
    for item in evidence:
        text = texts.get(str(item["slug"]))
        body = (
            [text.excerpt, text.summary_es if language == "es" else text.summary_en] if text else [str(item["summary"])]
        )
        sentences = [sentence for part in body if part for sentence in sentences_of(part)]
        blocks.append(
            {
                "type": "search_result",
                "source": str(item.get("url") or item["slug"]),
                "title": str(item["citation"]),
                "content": [{"type": "text", "text": sentence} for sentence in sentences],
                "citations": {"enabled": True},
            }
        )
    return blocks


def _from_cited(
    answer: llm.CitedAnswer, evidence: list[dict[str, Any]], texts: Mapping[str, EntryText], language: str
) -> tuple[str, list[dict[str, str]]] | str:
    """Turn the model's cited text blocks into (reply, statements), or say what is wrong with them."""
    parts: list[str] = []
    statements: list[dict[str, str]] = []
    for block in answer.blocks:
        chunk = block.text
        cites = []
        for span in block.citations:
            if span.search_result_index >= len(evidence):
                return "cites a search result that was not sent"
            item = evidence[span.search_result_index]
            text = texts.get(str(item["slug"]))
            pool = [text.excerpt, text.summary_en, text.summary_es] if text else [str(item["summary"])]
            if not quote_in(span.cited_text, pool):
                return "quotes text that is not in the entry"
            statements.append({"text": chunk.strip().rstrip("."), "entry": str(item["slug"]), "quote": span.cited_text})
            if item["citation"] not in cites:
                cites.append(str(item["citation"]))
        if cites:
            stripped = chunk.rstrip()
            tail = chunk[len(stripped) :]
            end = "." if stripped.endswith(".") else ""
            chunk = f"{stripped.rstrip('.')} [{'; '.join(cites)}]{end}{tail}"
        parts.append(chunk)
    reply = "".join(parts).strip()
    if not reply:
        return "empty answer"
    if len(reply.split()) >= 8 and language_of(reply) != language:
        return f"answered in the wrong language (expected {language})"
    return reply, statements


def _history_text(history: Any) -> str:
    """The conversation's earlier turns as the draft prompt shows them (already redacted and bounded at ingress)."""
    lines = []
    for item in history or []:
        lines.append(f"PERSON: {item.get('person', '')}")
        if item.get("reply"):
            lines.append(f"PATHWAYS: {item['reply']}")
    return "\n".join(lines) or "(none)"


def _draft_with_llm(
    view: Mapping[str, Any],
    ctx: NodeContext,
    *,
    evidence: list[dict[str, Any]],
    texts: Mapping[str, EntryText],
    gated: bool,
    resources: list[Any],
    findings: list[Any],
    history: Any,
) -> tuple[str, list[dict[str, str]]] | None:
    language = view["language"] or "en"
    resource_text = (
        "\n".join(f"- {item['name']}, {item.get('phone_display') or item.get('phone') or ''}" for item in resources[:3])
        or "(none)"
    )
    feedback = [
        f"- {finding.get('rule')}: {finding.get('message')} {finding.get('span') or ''}".strip() for finding in findings
    ]
    caveats = (
        "\n".join(f"- {item['citation']}: {item['caveat']}" for item in evidence if item.get("caveat")) or "(none)"
    )
    instructions = (
        f"LANGUAGE: {language}\nCHANNEL: {view['channel']}\nGATED: {str(gated).lower()}\n"
        f"EARLIER TURNS (oldest first, redacted):\n{_history_text(history)}\n\n"
        f"QUESTION:\n{view['query']}\n\nCAVEATS (show the one that qualifies your answer as 'Note: ...'):\n{caveats}\n\n"
        f"RESOURCES:\n{resource_text}\n\nAUDIT FEEDBACK ON THE LAST DRAFT:\n" + ("\n".join(feedback) or "(none)")
    )
    for _attempt in range(2):  # one re-ask when the answer does not fit the evidence; then the template
        content = [*_search_results(evidence, texts, language), {"type": "text", "text": instructions}]
        answer = ctx.call_llm(
            call=llm.cited_call,
            model=_settings().ANTHROPIC_MODEL_DRAFT,
            system=prompt("draft_v3"),
            messages=[{"role": "user", "content": content}],
            max_tokens=700,
        )
        if answer is None:
            return None
        built = _from_cited(answer, evidence, texts, language)
        if not isinstance(built, str):
            return built
        ctx.llm_errors.append("draft_mismatch")
        instructions += f"\n\nYOUR LAST ANSWER WAS REJECTED: {built}. Answer again."
    return None


# --- audit ------------------------------------------------------------------------------------


class AuditorFindings(BaseModel):
    """What the auditor's answer is checked against: the envelope only; each finding is checked on its own."""

    model_config = ConfigDict(extra="forbid")
    findings: list[dict[str, Any]] = Field(default_factory=list, max_length=20)


def _audit_evidence(view: Mapping[str, Any]) -> list[EvidenceRecord]:
    items = list(view["evidence"] or [])
    texts = entry_texts(slugs=[str(item["slug"]) for item in items]) if items else {}
    language = view["language"] or "en"
    records = []
    for item in items:
        text = texts.get(str(item["slug"]))
        if text is not None:
            base = text.record(language)
            records.append(
                EvidenceRecord(
                    slug=base.slug,
                    citation=item["citation"],
                    url=item["url"],
                    assertable=bool(item["assertable"]),
                    summary=item["summary"],
                    excerpt=base.excerpt,
                    summaries=(*base.summaries, base.summary),
                    caveat=text.caveat_in(language),
                )
            )
        else:
            records.append(
                EvidenceRecord(
                    slug=item["slug"],
                    citation=item["citation"],
                    url=item["url"],
                    assertable=bool(item["assertable"]),
                    summary=item["summary"],
                )
            )
    return records


def audit(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Run every compliance rule and the claim checker; the LLM auditor may add findings but never loosens the verdict."""
    channel = view["channel"] or "web"
    evidence = _audit_evidence(view)
    context = AuditContext(
        language=view["language"] or "en",
        channel=channel,
        top_need=view["top_need"] or "other",
        region=view["region"],
        gated=bool(view["gated"]),
        out_of_state=view["out_of_state"],
        legal_advice_requested=bool(view["legal_advice"]),
        max_chars=settings.SMS_DRAFT_MAX_CHARS if channel == "sms" else settings.WEB_DRAFT_MAX_CHARS,
    )
    draft_text = str(view["draft"] or "")
    statements = [Statement(**item) for item in (view["statements"] or [])]
    result: AuditResult = audit_rules.check_draft(
        draft=draft_text, evidence=evidence, context=context, statements=statements
    )
    auditor_used = False
    if llm.enabled():
        evidence_text = (
            "\n\n".join(
                f"[{item.slug}] {item.citation}\nexcerpt: {item.excerpt}\nsummary: {item.summary}" for item in evidence
            )
            or "(none)"
        )
        payload = ctx.call_llm(
            model=_settings().ANTHROPIC_MODEL_FAST,
            system=prompt("audit_v2"),
            messages=[{"role": "user", "content": f"EVIDENCE:\n{evidence_text}\n\nDRAFT:\n{draft_text}"}],
            tool_name="report_findings",
            tool_description="Report compliance findings about the draft (empty list when fine).",
            schema=AuditorFindings,
            input_schema=audit_rules.LLM_FINDINGS_JSON_SCHEMA,
            max_tokens=600,
        )
        if payload is not None:
            try:
                result = audit_rules.combine(result, audit_rules.parse_llm_findings(payload.model_dump()))
                auditor_used = True
            except ValueError:
                ctx.llm_errors.append("auditor_malformed")
    revisions = int(view["revisions"] or 0)
    findings = [
        {
            "rule": f.rule,
            "verdict": str(f.verdict.value),
            "message": f.message,
            **({"entry": f.entry, "span": f.span} if f.entry else {}),
        }
        for f in result.findings
    ]
    verdict = result.verdict
    updates: dict[str, Any] = {"audit": {"verdict": verdict.value, "findings": findings, "llm_auditor": auditor_used}}
    if verdict == Verdict.PASS:
        outcome = "pass"
    elif verdict == Verdict.HARD_BLOCK:
        outcome = "hard_block"
        updates["handoff_category"] = "out_of_state" if view["out_of_state"] else "uncertain"
        updates["escalation_reason"] = "audit_hard_block"
    elif revisions >= MAX_AUDIT_REVISIONS:
        outcome = "revisions_exhausted"
        updates["handoff_category"] = "uncertain"
        updates["escalation_reason"] = "audit_revisions_exhausted"
    else:
        outcome = "soft_block"
        updates["revisions"] = revisions + 1
    return NodeResult(outcome, updates, {"verdict": verdict.value, "rules": [f["rule"] for f in findings]})


# --- send and escalate ------------------------------------------------------------------------


def _plan(
    reply: str,
    delivery: Literal["reply", "handoff", "crisis"],
    view: Mapping[str, Any],
    category: Any,
    *,
    fixed_text: bool = False,
    unreviewed_label: str = "",
) -> Any:
    return delivery_plan(
        reply=reply,
        delivery=delivery,
        handoff_category=category,
        channel=view["channel"] or "web",
        mode=view["mode"] or "navigator",
        require_approval=bool(_settings().SMS_REQUIRE_APPROVAL),
        fixed_text=fixed_text,
        unreviewed_label=unreviewed_label,
    ).as_json()


def _unreviewed_label(audit: Mapping[str, Any] | None, language: str) -> str:
    """After hours under AFTER_HOURS_POLICY=send_audited, the label an audited SMS reply goes out with."""
    unreviewed = approval.after_hours_unreviewed(
        state={"delivery": "reply", "audit": audit or {}},
        now=timezone.now(),
        hours=approval.office_hours(),
        policy=str(getattr(_settings(), "AFTER_HOURS_POLICY", "hold")),
    )
    return approval.UNREVIEWED_LABEL.get(language, approval.UNREVIEWED_LABEL["en"]) if unreviewed else ""


def send(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Fix the reply and plan its delivery (web at once, SMS through the approval outbox); finalize applies the plan."""
    reply = str(view["draft"] or "")
    label = _unreviewed_label(view["audit"], view["language"] or "en")
    plan = _plan(reply, "reply", view, None, unreviewed_label=label if view["channel"] == "sms" else "")
    return NodeResult(
        "ok",
        {"reply": reply, "delivery": "reply", "delivery_plan": plan},
        {"channel": view["channel"]},
    )


def escalate(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Hand off: the category-matched line for a crisis, legal aid, 'Texas only' or an honest 'not sure'."""
    crisis = (view["crisis"] or {}).get("category", "none")
    category = crisis if crisis != "none" else (view["handoff_category"] or "uncertain")
    if view["escalation_reason"] in (
        "bound_breach",
        "deadline",
        "max_steps",
        "max_llm_calls",
        "workflow_version_changed",
        "node_error",
    ):
        category = crisis if crisis != "none" else "bound"
    handoff = handoff_for(category, view["language"] or "en")
    reply = handoff.text
    if category == "human":
        reply = extensions.human_request_notice(view["language"] or "en", timezone.now()) or reply
    resources = [item for item in (view["resources"] or []) if not item.get("is_statewide_line")]
    if view["channel"] == "web" and category in ("uncertain", "legal_aid", "human") and resources:
        reply += "\n" + "\n".join(
            f"- {item['name']}, {item.get('phone_display') or item.get('phone') or ''}".rstrip(", ")
            for item in resources[:2]
        )
    handoff_json = {
        "category": category,
        "lines": [list(line) if isinstance(line, tuple) else line for line in handoff.lines],
        "reason": view["escalation_reason"] or category,
    }
    delivery: Literal["handoff", "crisis"] = "crisis" if crisis != "none" else "handoff"
    # A fixed text with nothing generated in it (no release plan appended) needs no approval.
    fixed_text = approval.fixed_text_without_approval(
        {"delivery": delivery, "handoff": handoff_json, "plan": view["plan"]}
    )
    plan = _plan(reply, delivery, view, view["handoff_category"], fixed_text=fixed_text)
    return NodeResult(
        "ok",
        {"reply": reply, "handoff": handoff_json, "delivery": delivery, "delivery_plan": plan},
        {"category": category},
    )


NODE_FUNCTIONS: dict[str, Callable[[Mapping[str, Any], NodeContext], NodeResult]] = {
    "intake": intake,
    "retrieve": retrieve,
    "match": match_resources,
    "draft": draft,
    "audit": audit,
    "send": send,
    "escalate": escalate,
}
