"""The Haiku crisis second opinion at ingress: asked on every message when a key is set, time-boxed.

It only ever adds to the deterministic hook (rules OR message model) through `combine_crisis`, so it
can escalate a turn but never cancel a crisis. It reads the redacted text only. A timeout, an API
error or an answer outside the schema all mean "no opinion": the turn goes on with the rules.

The call starts on a worker thread before the rest of ingress (embedding, message model, the
conversation's context) and is collected after it, so it adds only the part of its latency that
ingress does not already cover — never more than LLM_CRISIS_TIMEOUT_SECONDS.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from django.conf import settings
from pydantic import BaseModel, ConfigDict

from conversations import llm
from conversations.hooks import CrisisResult, combine_crisis
from vocab import CRISIS_LABELS

logger = logging.getLogger(__name__)

PROMPT = "crisis_v1"
PROMPT_PATH = Path(__file__).resolve().parent / "prompts" / f"{PROMPT}.md"
TOOL = "crisis_opinion"

# A few workers: a call that outlives its time box keeps its thread until the SDK's own timeout, and
# a burst of such calls must queue (and time out as "no opinion") rather than spawn threads unbounded.
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="crisis-opinion")


class CrisisOpinionOut(BaseModel):
    """The model's answer, checked strictly: any other shape is no opinion."""

    model_config = ConfigDict(extra="forbid")
    category: Literal[CRISIS_LABELS]  # type: ignore[valid-type]  # pydantic reads the runtime tuple
    severity: Literal["none", "elevated", "high", "imminent"]


@dataclass
class PendingOpinion:
    """A second opinion in flight (or none asked: no key, empty text)."""

    future: Future[llm.LLMResult[CrisisOpinionOut]] | None = None
    started: float = field(default_factory=time.perf_counter)

    def collect(self) -> tuple[CrisisOpinionOut | None, dict[str, Any] | None]:
        """Wait what is left of the time box; return the opinion (or None) and its trace for the turn state."""
        if self.future is None:
            return None, None
        timeout = float(settings.LLM_CRISIS_TIMEOUT_SECONDS)
        trace: dict[str, Any] = {"consulted": True, "model": settings.ANTHROPIC_MODEL_FAST, "prompt": PROMPT}
        try:
            result = self.future.result(timeout=max(0.0, timeout - (time.perf_counter() - self.started)))
        except FutureTimeout:
            self.future.cancel()  # not yet started (pool busy): never sent; already running: ignored
            trace.update(outcome="timeout", category=None, severity=None)
            return None, {**trace, "ms": _ms(self.started)}
        except llm.LLMError as exc:
            trace.update(outcome="error", error=exc.kind, category=None, severity=None)
            usage = getattr(exc, "usage", None)
            return None, {**trace, "ms": _ms(self.started), **_usage(usage)}
        except Exception:  # a second opinion must never fail the turn
            logger.exception("crisis second opinion failed")
            trace.update(outcome="error", error="unexpected", category=None, severity=None)
            return None, {**trace, "ms": _ms(self.started)}
        opinion = result.value
        trace.update(outcome="opinion", category=opinion.category, severity=opinion.severity)
        return opinion, {**trace, "ms": _ms(self.started), **_usage(result.usage)}


def crisis_opinion_start(redacted: str) -> PendingOpinion:
    """Ask Haiku for a crisis opinion of the redacted text in the background (nothing when no key is set)."""
    if not llm.enabled() or not redacted.strip():
        return PendingOpinion()
    timeout = float(settings.LLM_CRISIS_TIMEOUT_SECONDS)
    future = _POOL.submit(
        llm.structured_call,
        model=settings.ANTHROPIC_MODEL_FAST,
        system=PROMPT_PATH.read_text(encoding="utf-8"),
        messages=[{"role": "user", "content": f"MESSAGE (redacted):\n{redacted}"}],
        tool_name=TOOL,
        tool_description="Report whether the message shows a crisis, its category and severity.",
        schema=CrisisOpinionOut,
        max_tokens=60,
        timeout=timeout,
        max_retries=0,  # one try inside the time box; a retry could not finish in it
    )
    return PendingOpinion(future=future)


def crisis_with_opinion(crisis: CrisisResult, opinion: CrisisOpinionOut | None) -> CrisisResult:
    """The deterministic result, escalated (never relaxed) by the second opinion when it names a crisis."""
    if opinion is None:
        return crisis
    combined = combine_crisis(crisis, opinion)
    if (combined.category, combined.severity) == (crisis.category, crisis.severity):
        return crisis  # agreed, or less urgent: the deterministic result stands as it was
    # Say which model escalated: "model" alone is the trained message model's name in the trace.
    source = "second_opinion" if not crisis.is_crisis else f"{crisis.source}+second_opinion"
    return replace(combined, source=source)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _usage(usage: llm.LLMUsage | None) -> dict[str, Any]:
    if usage is None:
        return {}
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "cost_usd": float(usage.cost_usd)}
