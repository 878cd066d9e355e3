"""Node logic: each node is a plain function of its read-only projection returning a NodeResult.

Nodes never touch the database or the turn row; the engine saves what they return. The model is
reached only through `ctx.call_llm`, which enforces the turn's LLM-call bound and deadline and
turns any failure into None, so every node has a deterministic path.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from audit import rules as audit_rules
from audit.types import AuditContext, AuditResult, EvidenceRecord, Verdict
from conversations import llm
from conversations.hooks import apply_gate, handoff_for
from conversations.workflow import extensions, intake_rules, templates
from conversations.workflow.graph import MAX_AUDIT_REVISIONS
from conversations.workflow.understanding import understand
from corpus.errors import QueryError
from corpus.selectors import corpus_search
from resources.selectors import REFERRAL_SLUG, match, referral_card

logger = logging.getLogger(__name__)

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
SMS_MAX_CHARS = 480
WEB_MAX_CHARS = 1600


def prompt(name: str) -> str:
    """Load a versioned prompt file (cached by the OS; files are small)."""
    return (PROMPTS / f"{name}.md").read_text()


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

    def call_llm(self, **kwargs: Any) -> Any | None:
        """Make one structured call if the key, the call bound and the deadline allow; None on any failure."""
        if not llm.enabled() or self.llm_calls_left - self.llm_calls <= 0 or self.remaining() <= 0.5:
            return None
        self.llm_calls += 1
        try:
            result = llm.structured_call(timeout=self.remaining(), **kwargs)
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
        return NodeResult("crisis", updates, {"crisis": crisis["category"], "source": crisis.get("source", "rules"), "language": language})
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
    from django.conf import settings

    return settings


# --- retrieve ---------------------------------------------------------------------------------


def retrieve(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Hybrid search for the question; the confidence gate turns weak evidence into 'do not assert'."""
    query = str(view["query"])
    language = view["language"] or "en"
    category = view["top_need"] if view["top_need"] not in (None, "other") else None
    try:
        result = corpus_search(query=query, language=language, category=category, k=5, widen_if_gated=True)
    except QueryError as exc:
        return NodeResult("gated", {"evidence": [], "gated": True, "gate": {"gated": True, "reason": exc.code}, "retrieval": {"confidence": 0.0, "gated": True}}, {"error": exc.code})
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
        "gate": {"gated": gated, "confidence": round(result.confidence, 4), "floor": result.floor, "reason": decision.reason, "evidence": evidence if not gated else []},
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
    no_local = view["region"] not in (None, "", "statewide", "other") and not any(not card.is_statewide_line for card in cards)
    if no_local and not any(card.slug == REFERRAL_SLUG for card in cards):
        referral = referral_card()
        if referral is not None:
            cards = [*cards[:1], referral, *cards[1:4]]
    resources = [{**_card_json(card), "no_local_listing": no_local} for card in cards]
    return NodeResult("ok", {"resources": resources}, {"resources": [card["id"] for card in resources], "no_local_listing": no_local})


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
    }


# --- draft ------------------------------------------------------------------------------------


class DraftOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reply: str = Field(min_length=1, max_length=4000)
    cited: list[str] = Field(default_factory=list)


def draft(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Write the reply: Sonnet when available, else the template; may cite only the gate's evidence."""
    gate = view["gate"] or {}
    gated = bool(gate.get("gated", True))
    evidence = [] if gated else list(gate.get("evidence") or [])
    resources = list(view["resources"] or [])
    language = view["language"] or "en"
    channel = view["channel"] or "web"
    revisions = int(view["revisions"] or 0)
    findings = list((view["audit"] or {}).get("findings") or [])
    source = "template"
    text = None
    if llm.enabled():
        text = _draft_with_llm(view, ctx, evidence=evidence, gated=gated, resources=resources, findings=findings)
        source = "llm" if text else "template"
    if text is None:
        text = templates.render(
            language=language, channel=channel, evidence=evidence, gated=gated, resources=resources, level=revisions,
            query=str(view["query"] or ""),
        )
    return NodeResult("ok", {"draft": text, "draft_source": source}, {"source": source, "chars": len(text), "revision": revisions})


def _draft_with_llm(
    view: Mapping[str, Any], ctx: NodeContext, *, evidence: list[Any], gated: bool, resources: list[Any], findings: list[Any]
) -> str | None:
    evidence_text = "\n".join(f"- citation: {item['citation']}\n  summary: {item['summary']}" for item in evidence) or "(none)"
    resource_text = "\n".join(f"- {item['name']}, {item.get('phone_display') or item.get('phone') or ''}" for item in resources[:3]) or "(none)"
    feedback = "\n".join(f"- {finding.get('rule')}: {finding.get('message')}" for finding in findings) or "(none)"
    content = (
        f"LANGUAGE: {view['language']}\nCHANNEL: {view['channel']}\nGATED: {str(gated).lower()}\n"
        f"QUESTION:\n{view['query']}\n\nEVIDENCE:\n{evidence_text}\n\nRESOURCES:\n{resource_text}\n\n"
        f"AUDIT FEEDBACK ON THE LAST DRAFT:\n{feedback}"
    )
    output = ctx.call_llm(
        model=_settings().ANTHROPIC_MODEL_DRAFT,
        system=prompt("draft_v1"),
        messages=[{"role": "user", "content": content}],
        tool_name="write_reply",
        tool_description="Return the reply text and the citations it uses.",
        schema=DraftOutput,
        max_tokens=700,
    )
    return output.reply.strip() if output is not None else None


# --- audit ------------------------------------------------------------------------------------


class AuditorFindings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    findings: list[dict[str, str]] = Field(default_factory=list, max_length=20)


def audit(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Run every compliance rule; the LLM auditor may add findings but never loosens the rule verdict."""
    channel = view["channel"] or "web"
    evidence = [
        EvidenceRecord(slug=item["slug"], citation=item["citation"], url=item["url"], assertable=bool(item["assertable"]), summary=item["summary"])
        for item in (view["evidence"] or [])
    ]
    context = AuditContext(
        language=view["language"] or "en",
        channel=channel,
        top_need=view["top_need"] or "other",
        region=view["region"],
        gated=bool(view["gated"]),
        out_of_state=view["out_of_state"],
        legal_advice_requested=bool(view["legal_advice"]),
        max_chars=SMS_MAX_CHARS if channel == "sms" else WEB_MAX_CHARS,
    )
    draft_text = str(view["draft"] or "")
    result: AuditResult = audit_rules.check_draft(draft=draft_text, evidence=evidence, context=context)
    auditor_used = False
    if llm.enabled():
        payload = ctx.call_llm(
            model=_settings().ANTHROPIC_MODEL_FAST,
            system=prompt("audit_v1"),
            messages=[{"role": "user", "content": "EVIDENCE CITATIONS:\n" + "\n".join(f"- {item.citation}" for item in evidence) + f"\n\nDRAFT:\n{draft_text}"}],
            tool_name="report_findings",
            tool_description="Report compliance findings about the draft (empty list when fine).",
            schema=AuditorFindings,
            max_tokens=400,
        )
        if payload is not None:
            try:
                result = audit_rules.combine(result, audit_rules.parse_llm_findings(payload.model_dump()))
                auditor_used = True
            except ValueError:
                ctx.llm_errors.append("auditor_malformed")
    revisions = int(view["revisions"] or 0)
    findings = [{"rule": f.rule, "verdict": str(f.verdict.value), "message": f.message} for f in result.findings]
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


def send(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Fix the reply; the engine delivers it (web at once, SMS through the approval outbox)."""
    return NodeResult("ok", {"reply": view["draft"], "delivery": "reply"}, {"channel": view["channel"]})


def escalate(view: Mapping[str, Any], ctx: NodeContext) -> NodeResult:
    """Hand off: the category-matched line for a crisis, legal aid, 'Texas only' or an honest 'not sure'."""
    crisis = (view["crisis"] or {}).get("category", "none")
    category = crisis if crisis != "none" else (view["handoff_category"] or "uncertain")
    if view["escalation_reason"] in ("bound_breach", "deadline", "max_steps", "max_llm_calls", "workflow_version_changed", "node_error"):
        category = crisis if crisis != "none" else "bound"
    handoff = handoff_for(category, view["language"] or "en")
    reply = handoff.text
    if category == "human":
        from django.utils import timezone

        reply = extensions.human_request_notice(view["language"] or "en", timezone.now()) or reply
    resources = [item for item in (view["resources"] or []) if not item.get("is_statewide_line")]
    if category in ("uncertain", "legal_aid", "human") and resources and view["channel"] == "web":
        reply += "\n" + "\n".join(f"- {item['name']}, {item.get('phone_display') or item.get('phone') or ''}".rstrip(", ") for item in resources[:2])
    handoff_json = {"category": category, "lines": [list(line) if isinstance(line, tuple) else line for line in handoff.lines], "reason": view["escalation_reason"] or category}
    return NodeResult(
        "ok",
        {"reply": reply, "handoff": handoff_json, "delivery": "crisis" if crisis != "none" else "handoff"},
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
