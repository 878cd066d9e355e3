"""A fake Anthropic Messages API behind httpx2.MockTransport, plugged into the real SDK client."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2

from conversations import llm

Responder = Callable[[dict[str, Any]], httpx2.Response]


# The draft asks for plain text over search results (citations need text blocks, so no tool is
# forced); the fake files that call under the draft's old tool name.
DRAFT = "write_reply"


def _usage(body: dict[str, Any] | None, input_tokens: int, output_tokens: int) -> dict[str, Any]:
    """Usage as the API reports it: cache counters stay 0 unless the request asked for caching.

    A request that marks a cache breakpoint reports the prefix as written on its first use; prompts
    below the model's minimum never carry the breakpoint (llm.cache_worthwhile), so they never cache.
    """
    cached = any("cache_control" in block for block in (body or {}).get("system") or [] if isinstance(block, dict))
    prefix = (
        sum(len(block.get("text", "")) for block in (body or {}).get("system") or [] if isinstance(block, dict)) // 4
    )
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": prefix if cached else 0,
        "cache_read_input_tokens": 0,
    }


def message(
    tool: str,
    tool_input: dict[str, Any],
    *,
    model: str = "claude-haiku-4-5",
    stop_reason: str = "tool_use",
    input_tokens: int = 900,
    output_tokens: int = 120,
    body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A realistic Messages API body whose only content block is a tool_use."""
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": tool, "input": tool_input}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(body, input_tokens, output_tokens),
    }


def cited_message(
    blocks: list[tuple[str, list[tuple[int | str, str]]]],
    *,
    body: dict[str, Any] | None = None,
    model: str = "claude-sonnet-4-6",
    stop_reason: str = "end_turn",
    input_tokens: int = 1400,
    output_tokens: int = 160,
) -> dict[str, Any]:
    """A realistic text answer over search results: text blocks, some with search_result_location citations.

    `blocks` is [(text, [(search_result_index or title, cited_text), ...])]; the cited text must be
    whole content blocks of that search result, as the API guarantees.
    """
    results = [
        block
        for block in ((body or {}).get("messages") or [{}])[0].get("content", [])
        if isinstance(block, dict) and block.get("type") == "search_result"
    ]
    content = []
    for text, spans in blocks:
        block: dict[str, Any] = {"type": "text", "text": text}
        if spans:
            citations = []
            for where, cited in spans:
                titles = [r.get("title") for r in results]
                index = (
                    titles.index(where)
                    if isinstance(where, str) and where in titles
                    else where
                    if isinstance(where, int)
                    else 99
                )
                result = (
                    results[index] if index < len(results) else {"source": "unknown", "title": "unknown", "content": []}
                )
                texts = [c.get("text") for c in result.get("content", [])]
                start = texts.index(cited) if cited in texts else 0
                citations.append(
                    {
                        "type": "search_result_location",
                        "cited_text": cited,
                        "search_result_index": index,
                        "source": result.get("source"),
                        "title": result.get("title"),
                        "start_block_index": start,
                        "end_block_index": start + 1,
                    }
                )
            block["citations"] = citations
        content.append(block)
    return {
        "id": "msg_01TextWithCitations000001",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(body, input_tokens, output_tokens),
    }


class FakeAnthropic:
    """Records every request body; answers per tool name with a configurable responder."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.responders: dict[str, Responder] = {}

    def on(self, tool: str, responder: Responder) -> None:
        self.responders[tool] = responder

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content or b"{}")
        self.requests.append(body)
        tool = (body.get("tool_choice") or {}).get("name", "") or DRAFT
        responder = self.responders.get(tool)
        if responder is None:
            return httpx2.Response(
                500, json={"type": "error", "error": {"type": "api_error", "message": "no responder"}}
            )
        response = responder(body)
        return _as_text_answer(response) if tool == DRAFT and not body.get("tool_choice") else response

    def install(self) -> None:
        llm.set_http_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(self.handler)))

    @property
    def tools_called(self) -> list[str]:
        return [(body.get("tool_choice") or {}).get("name", "") or DRAFT for body in self.requests]


def _as_text_answer(response: httpx2.Response) -> httpx2.Response:
    """A draft responder written as a tool answer ({"reply": ...}) becomes the text answer the API would send."""
    try:
        data = json.loads(response.content)
    except ValueError:
        return response
    blocks = data.get("content") if isinstance(data, dict) else None
    if (
        response.status_code != 200
        or not isinstance(blocks, list)
        or not any(b.get("type") == "tool_use" for b in blocks)
    ):
        return response
    reply = next((b.get("input", {}).get("reply") for b in blocks if b.get("type") == "tool_use"), None)
    data["content"] = [{"type": "text", "text": reply if isinstance(reply, str) else ""}]
    data["stop_reason"] = "refusal" if data.get("stop_reason") == "refusal" else "end_turn"
    return httpx2.Response(200, json=data)


def ok(tool: str, tool_input: dict[str, Any], **kwargs: Any) -> Responder:
    return lambda body: httpx2.Response(
        200, json=message(tool, tool_input, model=body.get("model", "claude-haiku-4-5"), body=body, **kwargs)
    )


def cited(blocks: list[tuple[str, list[tuple[int | str, str]]]], **kwargs: Any) -> Responder:
    """Answer the draft call with these text blocks (citations point into the request's search results)."""
    return lambda body: httpx2.Response(
        200, json=cited_message(blocks, body=body, model=body.get("model", "claude-sonnet-4-6"), **kwargs)
    )


def status(code: int, error_type: str = "api_error") -> Responder:
    return lambda body: httpx2.Response(code, json={"type": "error", "error": {"type": error_type, "message": "fake"}})
