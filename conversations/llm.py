"""The one wrapper of the Anthropic SDK: structured (tool-use) calls validated with pydantic.

Every call has a timeout and bounded retries, reports tokens and cost, and raises one typed error
(LLMError, with `retryable`) on anything unexpected — callers then take their deterministic path.
Only redacted text may be passed in; this module never sees raw user input.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Generic, TypeVar

import anthropic
import httpx2
from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field, ValidationError

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

# USD per million tokens at list prices: (input, output). Cache reads cost 10%, cache writes 125%.
PRICES: dict[str, tuple[Decimal, Decimal]] = {
    "claude-haiku-4-5": (Decimal("1.00"), Decimal("5.00")),
    "claude-sonnet-4-6": (Decimal("3.00"), Decimal("15.00")),
    "claude-sonnet-4-5": (Decimal("3.00"), Decimal("15.00")),
    "claude-opus-4-5": (Decimal("5.00"), Decimal("25.00")),
}
_MILLION = Decimal(1_000_000)

# The smallest prefix a model will cache (tokens). Below it the API silently caches nothing, so
# asking for it would only make the trace claim a saving that cannot happen. Where published figures
# disagree (Sonnet 4.6: 1,024 or 2,048) the larger one is used.
CACHE_MIN_TOKENS: dict[str, int] = {
    "claude-haiku-4-5": 4096,
    "claude-sonnet-4-6": 2048,
    "claude-sonnet-4-5": 1024,
    "claude-opus-4-5": 4096,
}
# A token is about 4 characters of English; counting 4.5 under-estimates tokens, so caching is asked
# for only when the prefix is surely long enough.
_CHARS_PER_TOKEN_LOW = 4.5


def cache_worthwhile(model: str, prefix_chars: int) -> bool:
    """Whether a cached prefix of `prefix_chars` characters can reach the model's caching minimum."""
    minimum = next((tokens for prefix, tokens in CACHE_MIN_TOKENS.items() if model.startswith(prefix)), 4096)
    return prefix_chars / _CHARS_PER_TOKEN_LOW >= minimum


def _system_blocks(model: str, system: str, tools_json_chars: int = 0) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "text", "text": system}
    # Tools come before the system prompt in the cached prefix, so they count towards the minimum.
    if cache_worthwhile(model, len(system) + tools_json_chars):
        block["cache_control"] = {"type": "ephemeral"}
    return [block]


class LLMError(Exception):
    """An LLM call that did not produce a valid result; `retryable` says whether trying again can help."""

    def __init__(self, message: str, *, retryable: bool, kind: str) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.kind = kind


@dataclass(frozen=True)
class LLMUsage:
    """Tokens, cost and latency of one call, recorded on the NodeRun that made it."""

    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    ms: float = 0.0

    @property
    def cost_usd(self) -> Decimal:
        price_in, price_out = _price(self.model)
        return (
            Decimal(self.input_tokens) * price_in
            + Decimal(self.cache_read_tokens) * price_in * Decimal("0.1")
            + Decimal(self.cache_write_tokens) * price_in * Decimal("1.25")
            + Decimal(self.output_tokens) * price_out
        ) / _MILLION


@dataclass(frozen=True)
class LLMResult(Generic[T]):
    value: T
    usage: LLMUsage


def _price(model: str) -> tuple[Decimal, Decimal]:
    for prefix, price in PRICES.items():
        if model.startswith(prefix):
            return price
    return PRICES["claude-sonnet-4-6"]  # unknown model: assume the dearer tier so budgets stay safe


# Tests replace this factory to plug a fake HTTP transport into the real SDK client.
_http_client_factory: Callable[[], httpx2.Client | None] = lambda: None  # noqa: E731


def set_http_client_factory(factory: Callable[[], httpx2.Client | None]) -> None:
    """Install an HTTP client factory (tests: httpx2.MockTransport); resets the cached client."""
    global _http_client_factory, _client  # noqa: PLW0603
    _http_client_factory = factory
    _client = None


_client: anthropic.Anthropic | None = None


def enabled() -> bool:
    """Whether an API key is configured; without one every node uses its deterministic path."""
    return bool(settings.ANTHROPIC_API_KEY)


def _get_client() -> anthropic.Anthropic:
    global _client  # noqa: PLW0603 - one pooled client per process
    if _client is None:
        _client = anthropic.Anthropic(
            api_key=settings.ANTHROPIC_API_KEY,
            max_retries=settings.LLM_MAX_RETRIES,
            timeout=settings.LLM_TIMEOUT_SECONDS,
            http_client=_http_client_factory(),
        )
    return _client


def structured_call(
    *,
    model: str,
    system: str,
    messages: Sequence[dict[str, Any]],
    tool_name: str,
    tool_description: str,
    schema: type[T],
    max_tokens: int = 800,
    timeout: float | None = None,
    input_schema: dict[str, Any] | None = None,
    max_retries: int | None = None,
) -> LLMResult[T]:
    """Ask Claude to answer through one forced tool whose input is validated against `schema`.

    `input_schema` (default: `schema`'s JSON Schema) is what the model is shown; it may be stricter
    than `schema`, so that the caller can drop one bad item instead of the whole answer.
    """
    if not enabled():
        raise LLMError("no ANTHROPIC_API_KEY configured", retryable=False, kind="disabled")
    budget = min(timeout or settings.LLM_TIMEOUT_SECONDS, settings.LLM_TIMEOUT_SECONDS)
    if budget <= 0:
        raise LLMError("no time left in the turn's budget", retryable=False, kind="deadline")
    tool = {
        "name": tool_name,
        "description": tool_description,
        "input_schema": input_schema or schema.model_json_schema(),
    }
    started = time.perf_counter()
    response = _create(
        budget,
        max_retries=max_retries,
        model=model,
        max_tokens=max_tokens,
        system=_system_blocks(model, system, len(str(tool))),
        messages=list(messages),
        tools=[tool],
        tool_choice={"type": "tool", "name": tool_name},
    )
    usage = _usage(model, response, started)
    if response.stop_reason == "refusal":
        raise _with_usage(LLMError("the model refused", retryable=False, kind="refusal"), usage)
    tool_inputs = [block.input for block in response.content if getattr(block, "type", "") == "tool_use"]
    if not tool_inputs:
        raise _with_usage(LLMError("no tool output in the response", retryable=False, kind="malformed"), usage)
    try:
        value = schema.model_validate(tool_inputs[0])
    except ValidationError as exc:
        # Log the shape of the problem only: field paths, never the content.
        logger.warning("LLM output failed validation: %s", [error["loc"] for error in exc.errors()])
        raise _with_usage(
            LLMError("model output failed validation", retryable=False, kind="malformed"), usage
        ) from None
    return LLMResult(value=value, usage=usage)


class CitedSpan(BaseModel):
    """One citation of a search result: which result, and the verbatim text of the cited blocks."""

    model_config = ConfigDict(extra="ignore")
    type: str
    cited_text: str = Field(max_length=4000)
    search_result_index: int = Field(ge=0)


class CitedBlock(BaseModel):
    """A text block of the answer and the search-result spans it was drawn from."""

    model_config = ConfigDict(extra="ignore")
    text: str = Field(max_length=4000)
    citations: list[CitedSpan] = Field(default_factory=list)


class CitedAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    blocks: list[CitedBlock] = Field(min_length=1, max_length=40)


def cited_call(
    *,
    model: str,
    system: str,
    messages: Sequence[dict[str, Any]],
    max_tokens: int = 800,
    timeout: float | None = None,
) -> LLMResult[CitedAnswer]:
    """Ask for a plain-text answer over `search_result` blocks with citations on; return its blocks and spans."""
    if not enabled():
        raise LLMError("no ANTHROPIC_API_KEY configured", retryable=False, kind="disabled")
    budget = min(timeout or settings.LLM_TIMEOUT_SECONDS, settings.LLM_TIMEOUT_SECONDS)
    if budget <= 0:
        raise LLMError("no time left in the turn's budget", retryable=False, kind="deadline")
    started = time.perf_counter()
    response = _create(
        budget, model=model, max_tokens=max_tokens, system=_system_blocks(model, system), messages=list(messages)
    )
    usage = _usage(model, response, started)
    if response.stop_reason == "refusal":
        raise _with_usage(LLMError("the model refused", retryable=False, kind="refusal"), usage)
    raw = [
        {
            "text": getattr(block, "text", ""),
            "citations": [
                c.model_dump() if hasattr(c, "model_dump") else dict(c)
                for c in (getattr(block, "citations", None) or [])
            ],
        }
        for block in response.content
        if getattr(block, "type", "") == "text"
    ]
    try:
        value = CitedAnswer.model_validate({"blocks": raw})
    except ValidationError as exc:
        logger.warning("LLM cited answer failed validation: %s", [error["loc"] for error in exc.errors()])
        raise _with_usage(
            LLMError("model output failed validation", retryable=False, kind="malformed"), usage
        ) from None
    return LLMResult(value=value, usage=usage)


def _create(budget: float, *, max_retries: int | None = None, **kwargs: Any) -> Any:
    """One Messages API call, its failures mapped to LLMError."""
    options: dict[str, Any] = (
        {"timeout": budget} if max_retries is None else {"timeout": budget, "max_retries": max_retries}
    )
    try:
        return _get_client().with_options(**options).messages.create(**kwargs)
    except anthropic.APITimeoutError:
        raise LLMError("the model did not answer in time", retryable=True, kind="timeout") from None
    except anthropic.RateLimitError:
        raise LLMError("rate limited", retryable=True, kind="rate_limit") from None
    except anthropic.APIStatusError as exc:
        raise LLMError(f"API error {exc.status_code}", retryable=exc.status_code >= 500, kind="api_status") from None
    except anthropic.APIConnectionError:
        raise LLMError("could not reach the API", retryable=True, kind="connection") from None
    except anthropic.AnthropicError as exc:
        raise LLMError(f"SDK error {type(exc).__name__}", retryable=False, kind="sdk") from None
    except (ValueError, TypeError, KeyError) as exc:
        # A body that is not the JSON the SDK expects (e.g. a proxy's HTML page) surfaces as a decode error.
        raise LLMError(f"unreadable response ({type(exc).__name__})", retryable=True, kind="malformed") from None


def _usage(model: str, response: Any, started: float) -> LLMUsage:
    usage_block = getattr(response, "usage", None)
    return LLMUsage(
        model=model,
        input_tokens=getattr(usage_block, "input_tokens", 0) or 0,
        output_tokens=getattr(usage_block, "output_tokens", 0) or 0,
        cache_read_tokens=getattr(usage_block, "cache_read_input_tokens", 0) or 0,
        cache_write_tokens=getattr(usage_block, "cache_creation_input_tokens", 0) or 0,
        ms=round((time.perf_counter() - started) * 1000, 1),
    )


def _with_usage(error: LLMError, usage: LLMUsage) -> LLMError:
    """Attach the usage of a call that returned but was unusable: its tokens were still paid for."""
    error.usage = usage  # type: ignore[attr-defined]
    return error
