"""The engine: advance a saved turn one node at a time, checkpointing state with each NodeRun.

Turns of one conversation run one at a time: a PostgreSQL session advisory lock on the
conversation is held for the whole run (it survives the per-node commits and is released if the
process dies). Each node runs outside any transaction; its NodeRun and the new state are then
written together, guarded by the step counter, so a crash between nodes loses at most the node
in flight and a resume never runs a finished node again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from conversations.models import Turn
from conversations.workflow.graph import (
    MAX_LLM_CALLS,
    MAX_NODE_STEPS,
    NODE_READS,
    TERMINAL,
    WORKFLOW_VERSION,
    next_node,
)
from conversations.workflow.nodes import NODE_FUNCTIONS, NodeContext, NodeResult
from conversations.workflow.projection import project, thaw

logger = logging.getLogger(__name__)

MAX_NODE_FAILURES = 2

NodeFunction = Callable[[Mapping[str, Any], NodeContext], NodeResult]
Finalizer = Callable[[Turn], None]


class NodeFailed(Exception):
    """A node raised; the turn stays at its last checkpoint and can be resumed."""


@contextmanager
def conversation_lock(conversation_id: object, *, wait: bool = True) -> Iterator[bool]:
    """Hold a session advisory lock on the conversation; yields False when `wait` is off and it is busy."""
    key = str(conversation_id)
    with connection.cursor() as cursor:
        if wait:
            cursor.execute("SELECT pg_advisory_lock(hashtextextended(%s, 7))", [key])
            acquired = True
        else:
            cursor.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 7))", [key])
            acquired = bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 7))", [key])


def _breach_reason(turn: Turn) -> str | None:
    """Why this turn must stop and escalate now, if it must."""
    if turn.current_node == "escalate":
        return None
    if turn.workflow_version != WORKFLOW_VERSION:
        return "workflow_version_changed"
    if turn.steps >= MAX_NODE_STEPS - 2:  # keep two steps: the breach record and escalate itself
        return "max_steps"
    if turn.llm_calls > MAX_LLM_CALLS:
        return "max_llm_calls"
    if timezone.now() > turn.started_at + timedelta(seconds=settings.TURN_DEADLINE_SECONDS):
        return "deadline"
    return None


def turn_advance(turn_id: object, *, finalize: Finalizer, nodes: Mapping[str, NodeFunction] = NODE_FUNCTIONS) -> bool:
    """Run the turn's current node and checkpoint; return True while the turn has more to do."""
    turn = Turn.objects.get(pk=turn_id)
    if turn.is_finished:
        return False
    node = turn.current_node
    expected_steps = turn.steps
    reason = _breach_reason(turn)
    started = time.perf_counter()
    ctx = NodeContext(
        deadline=turn.started_at.timestamp() + settings.TURN_DEADLINE_SECONDS,
        llm_calls_left=max(0, MAX_LLM_CALLS - turn.llm_calls),
    )
    view = project(turn.state, NODE_READS[node])
    if reason is not None:
        result = NodeResult("bound_breach", {"escalation_reason": reason}, {"breach": reason})
    else:
        try:
            result = nodes[node](view, ctx)
        except Exception as exc:
            # Record the failure without its message: exception text can carry user content.
            Turn.objects.filter(pk=turn.pk, steps=expected_steps).update(error=f"{node}: {type(exc).__name__}"[:300])
            logger.exception("node %s failed on turn %s", node, turn.pk)
            raise NodeFailed(node) from exc
    ms = (time.perf_counter() - started) * 1000
    target = next_node(node, result.outcome)
    with transaction.atomic():
        locked = Turn.objects.select_for_update().get(pk=turn.pk)
        if locked.steps != expected_steps or locked.is_finished:
            return not locked.is_finished  # another worker advanced it first; nothing of ours is saved
        step = locked.steps + 1
        cost = sum((usage.cost_usd for usage in ctx.usages), Decimal(0))
        locked.node_runs.create(
            step=step,
            node=node,
            projection=thaw(view),
            output=result.output,
            outcome=result.outcome,
            transition=f"{node}→{target}",
            ms=round(ms, 2),
            llm_model=",".join(sorted({usage.model for usage in ctx.usages})),
            input_tokens=sum(usage.input_tokens for usage in ctx.usages),
            output_tokens=sum(usage.output_tokens for usage in ctx.usages),
            cache_read_tokens=sum(usage.cache_read_tokens for usage in ctx.usages),
            cost_usd=cost,
        )
        state = dict(locked.state)
        state.update(result.updates)
        if ctx.llm_errors:
            state["llm_errors"] = [*state.get("llm_errors", []), *ctx.llm_errors]
        locked.state = state
        locked.steps = step
        locked.llm_calls += ctx.llm_calls
        locked.cost_usd += cost
        locked.revisions = int(state.get("revisions") or 0)
        locked.current_node = target if target != TERMINAL else node
        locked.error = ""
        if target == TERMINAL:
            finalize(locked)
        locked.save()
        _notify_on_commit(locked, node, target)
    return target != TERMINAL


def turn_run(turn_id: object, *, finalize: Finalizer, nodes: Mapping[str, NodeFunction] = NODE_FUNCTIONS, retry_failed: bool = True) -> Turn:
    """Run a turn to the end under its conversation's lock; a failing node is retried, then escalated."""
    turn = Turn.objects.only("conversation_id").get(pk=turn_id)
    with conversation_lock(turn.conversation_id):
        failures = 0
        while True:
            try:
                if not turn_advance(turn_id, finalize=finalize, nodes=nodes):
                    break
            except NodeFailed:
                failures += 1
                if not retry_failed:
                    raise
                if failures >= MAX_NODE_FAILURES:
                    _force_escalate(turn_id, reason="node_error")
    return Turn.objects.get(pk=turn_id)


def _force_escalate(turn_id: object, *, reason: str) -> None:
    """Move a turn whose node keeps failing to escalate, recording why (a conservative reply follows)."""
    with transaction.atomic():
        turn = Turn.objects.select_for_update().get(pk=turn_id)
        if turn.is_finished or turn.current_node == "escalate":
            return
        state = dict(turn.state)
        state["escalation_reason"] = reason
        turn.node_runs.create(
            step=turn.steps + 1,
            node=turn.current_node,
            projection={},
            output={"breach": reason},
            outcome="bound_breach",
            transition=f"{turn.current_node}→escalate",
            ms=0.0,
        )
        turn.state = state
        turn.steps += 1
        turn.current_node = "escalate"
        turn.save(update_fields=["state", "steps", "current_node"])


def _notify_on_commit(turn: Turn, node: str, target: str) -> None:
    from conversations.events import publish_progress

    payload = {"turn_id": str(turn.pk), "node": node, "next": target, "status": turn.status, "step": turn.steps}
    conversation_id = str(turn.conversation_id)
    transaction.on_commit(lambda: publish_progress(conversation_id, payload))
