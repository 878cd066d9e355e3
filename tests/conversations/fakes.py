"""A fake Anthropic Messages API behind httpx2.MockTransport, plugged into the real SDK client."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2

from conversations import llm

Responder = Callable[[dict[str, Any]], httpx2.Response]


def message(tool: str, tool_input: dict[str, Any], *, model: str = "claude-haiku-4-5", stop_reason: str = "tool_use", input_tokens: int = 900, output_tokens: int = 120) -> dict[str, Any]:
    """A realistic Messages API body whose only content block is a tool_use."""
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": tool, "input": tool_input}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 700},
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
        tool = (body.get("tool_choice") or {}).get("name", "")
        responder = self.responders.get(tool)
        if responder is None:
            return httpx2.Response(500, json={"type": "error", "error": {"type": "api_error", "message": "no responder"}})
        return responder(body)

    def install(self) -> None:
        llm.set_http_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(self.handler)))

    @property
    def tools_called(self) -> list[str]:
        return [(body.get("tool_choice") or {}).get("name", "") for body in self.requests]


def ok(tool: str, tool_input: dict[str, Any], **kwargs: Any) -> Responder:
    return lambda body: httpx2.Response(200, json=message(tool, tool_input, model=body.get("model", "claude-haiku-4-5"), **kwargs))


def status(code: int, error_type: str = "api_error") -> Responder:
    return lambda body: httpx2.Response(code, json={"type": "error", "error": {"type": error_type, "message": "fake"}})
