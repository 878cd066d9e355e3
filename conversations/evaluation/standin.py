"""An offline stand-in for the Anthropic Messages API, so `evaluate --llm` runs in CI with no key.

It answers like the real API (tool_use for intake and the auditor, text with search_result_location
citations for the draft, usage with cache counters at 0 because no prompt reaches a caching minimum)
and is plugged into the real SDK client as its HTTP transport. Its draft cites the first sentence of
the first search result verbatim, so the run exercises the whole LLM path — search results in,
cited spans out, statements, the claim checker, the strict auditor schema — without a network.
It imports no SDK and no LLM client (the evaluation contract): the command installs it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

from vocab import NEED_CATEGORIES

NEEDS = NEED_CATEGORIES


def _usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _message(
    body: dict[str, Any], content: list[dict[str, Any]], stop_reason: str, output_tokens: int
) -> dict[str, Any]:
    size = len(json.dumps(body.get("messages"))) + len(json.dumps(body.get("system")))
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(size // 4, output_tokens),
    }


def _tool(body: dict[str, Any], name: str) -> dict[str, Any]:
    if name == "classify":
        text = json.dumps(body.get("messages")).lower()
        need = next((n for n in NEEDS if n.split("_")[0] in text), "other")
        payload: dict[str, Any] = {
            "top_need": need,
            "language": "es" if " el " in text or " la " in text else "en",
            "supervision": "unknown",
        }
    elif name == "crisis_opinion":  # the stand-in sees no crisis: the rules and the message model decide
        payload = {"category": "none", "severity": "none"}
    else:  # report_findings: the stand-in auditor finds nothing; the rules and the claim checker still run
        payload = {"findings": []}
    content = [{"type": "tool_use", "id": "toolu_standin", "name": name, "input": payload}]
    return _message(body, content, "tool_use", 40)


def _draft(body: dict[str, Any]) -> dict[str, Any]:
    blocks = [b for b in (body.get("messages") or [{}])[0].get("content", []) if isinstance(b, dict)]
    results = [b for b in blocks if b.get("type") == "search_result"]
    instructions = next((b.get("text", "") for b in blocks if b.get("type") == "text"), "")
    spanish = "LANGUAGE: es" in instructions
    if not results or not results[0].get("content"):
        text = (
            "No estoy seguro de la regla; 211 Texas (2-1-1) puede ayudarle."
            if spanish
            else "I'm not certain about the rule; 211 Texas (2-1-1) can help."
        )
        return _message(body, [{"type": "text", "text": text}], "end_turn", 30)
    first = results[0]["content"][0]["text"]
    cited = {
        "type": "search_result_location",
        "cited_text": first,
        "search_result_index": 0,
        "source": results[0]["source"],
        "title": results[0]["title"],
        "start_block_index": 0,
        "end_block_index": 1,
    }
    tail = (
        "\nEsto es información general, no es asesoría legal."
        if spanish
        else "\nThis is general information, not legal advice."
    )
    content = [{"type": "text", "text": first.rstrip("."), "citations": [cited]}, {"type": "text", "text": "." + tail}]
    return _message(body, content, "end_turn", 90)


def handler(request: httpx2.Request) -> httpx2.Response:
    """Answer one Messages API request."""
    body = json.loads(request.content or b"{}")
    name = (body.get("tool_choice") or {}).get("name")
    return httpx2.Response(200, json=_tool(body, name) if name else _draft(body))


def client() -> httpx2.Client:
    """An HTTP client whose transport is the stand-in (for llm.set_http_client_factory)."""
    return httpx2.Client(transport=httpx2.MockTransport(handler))
