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
from functools import lru_cache
from typing import Any, cast
from uuid import UUID

from django.conf import settings
from django.db import connection, models, transaction
from django.utils import timezone

from conversations.models import NodeRun, Turn
from conversations.workflow import extensions
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


_LOCK_SQL = "SELECT pg_advisory_lock(hashtextextended(%s, 7))"
_TRY_LOCK_SQL = "SELECT pg_try_advisory_lock(hashtextextended(%s, 7))"
_UNLOCK_SQL = "SELECT pg_advisory_unlock(hashtextextended(%s, 7))"
# The conversation of a turn and its lock in one round trip (the key is the conversation id's text).
# While a turn runs, its session commits without waiting for the WAL flush: the checkpoints between
# nodes are a recovery aid, and if PostgreSQL itself crashed within a fraction of a second of one,
# losing it only means that node runs again on resume (its NodeRun never existed). The final
# checkpoint — the reply, the outbox, the audit event — commits synchronously (see _checkpoint).
_TURN_LOCK_SQL = (
    "SELECT conversation_id, pg_advisory_lock(hashtextextended(conversation_id::text, 7)),"
    " set_config('synchronous_commit', 'off', false)"
    " FROM conversations_turn WHERE id = %s"
)
_TURN_UNLOCK_SQL = (
    "SELECT pg_advisory_unlock(hashtextextended(%s, 7)),"
    " set_config('synchronous_commit', (SELECT reset_val FROM pg_settings WHERE name = 'synchronous_commit'), false)"
)


@contextmanager
def conversation_lock(conversation_id: UUID | str, *, wait: bool = True) -> Iterator[bool]:
    """Hold a session advisory lock on the conversation; yields False when `wait` is off and it is busy."""
    key = str(conversation_id)
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_SQL if wait else _TRY_LOCK_SQL, [key])
        acquired = True if wait else bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            _unlock(key)


@contextmanager
def turn_conversation_lock(turn_id: UUID | str) -> Iterator[object]:
    """Hold the lock of a turn's conversation (looked up in the same statement); yields the conversation id."""
    with connection.cursor() as cursor:
        cursor.execute(_TURN_LOCK_SQL, [str(turn_id)])
        row = cursor.fetchone()
    if row is None:  # no row: neither the lock nor the commit setting was taken
        raise Turn.DoesNotExist(f"no turn {turn_id}")
    try:
        yield row[0]
    finally:
        _unlock(str(row[0]), sql=_TURN_UNLOCK_SQL)


def _unlock(key: str, *, sql: str = _UNLOCK_SQL) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, [key])
    except Exception:
        # A connection that may still hold the lock (or the turn's commit setting) must never be
        # reused: the pool would hand it to its next borrower. Closing the socket makes the pool discard it.
        if connection.connection is not None:
            connection.connection.close()
        connection.close()
        raise


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


class _Superseded(Exception):
    """The checkpoint found the turn already advanced by someone else: roll this node's writes back."""


_CHECKPOINT_FIELDS = ("state", "steps", "llm_calls", "cost_usd", "revisions", "current_node", "error")
_FINAL_FIELDS = (
    *_CHECKPOINT_FIELDS,
    "status",
    "reply",
    "language",
    "top_need",
    "region",
    "audit_verdict",
    "escalation_reason",
    "finished_at",
    "total_ms",
)


def turn_advance(turn: Turn, *, finalize: Finalizer, nodes: Mapping[str, NodeFunction] = NODE_FUNCTIONS) -> bool:
    """Run the turn's current node and checkpoint; return True while the turn has more to do.

    `turn` is the caller's copy, kept current: the checkpoint is one statement guarded by the step
    counter (no re-read, no row lock). When the guard finds the turn already advanced elsewhere
    nothing of this node is saved and `turn` is reloaded.
    """
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
    cost = sum((usage.cost_usd for usage in ctx.usages), Decimal(0))
    before = {name: getattr(turn, name) for name in _FINAL_FIELDS}
    state = dict(turn.state)
    state.update(result.updates)
    if ctx.llm_errors:
        state["llm_errors"] = [*state.get("llm_errors", []), *ctx.llm_errors]
    turn.state = state
    turn.steps = expected_steps + 1
    turn.llm_calls += ctx.llm_calls
    turn.cost_usd += cost
    turn.revisions = int(state.get("revisions") or 0)
    turn.current_node = target if target != TERMINAL else node
    turn.error = ""
    run = NodeRun(
        turn_id=turn.pk,
        step=turn.steps,
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
    try:
        if target == TERMINAL:
            with transaction.atomic():
                finalize(turn)
                if not _checkpoint(turn, _FINAL_FIELDS, expected_steps, run, durable=True):
                    raise _Superseded
                _notify_on_commit(turn, node, target)
        else:
            if not _checkpoint(turn, _CHECKPOINT_FIELDS, expected_steps, run):
                raise _Superseded
            _notify_on_commit(turn, node, target)
    except _Superseded:
        # Another runner advanced it first; nothing of ours is saved. Continue from what it wrote.
        turn.refresh_from_db()
        return not turn.is_finished
    except BaseException:
        for name, value in before.items():  # the in-memory copy must match the rolled-back row
            setattr(turn, name, value)
        raise
    return target != TERMINAL


def _checkpoint(
    turn: Turn, fields: tuple[str, ...], expected_steps: int, run: NodeRun, *, durable: bool = False
) -> bool:
    """Save the turn's new fields and its NodeRun in ONE statement; False when the step guard fails.

    An UPDATE guarded by the step counter feeds the INSERT through a CTE: one round trip, atomic on
    its own (outside a transaction it commits by itself), where save() + create() took five.
    """
    params = [_turn_field(name).get_db_prep_save(getattr(turn, name), connection) for name in fields]
    params += [turn.pk, expected_steps, Turn.Status.RUNNING]
    run.created_at = timezone.now()
    params += [field.get_db_prep_save(getattr(run, field.attname), connection) for field in _run_fields()]
    with connection.cursor() as cursor:
        cursor.execute(_checkpoint_sql(fields, durable), params)
        return cursor.fetchone() is not None


def _turn_field(name: str) -> models.Field[Any, Any]:
    """A checkpointed Turn field: always a concrete one (get_field is typed to allow reverse relations too)."""
    return cast("models.Field[Any, Any]", Turn._meta.get_field(name))


def _column(field: models.Field[Any, Any]) -> str:
    """A concrete field's column (typed optional because a non-concrete field has none)."""
    return cast(str, field.column)


@lru_cache(maxsize=1)
def _run_fields() -> tuple[Any, ...]:
    return tuple(field for field in NodeRun._meta.concrete_fields if not field.primary_key and field.name != "turn")


@lru_cache(maxsize=4)
def _checkpoint_sql(fields: tuple[str, ...], durable: bool) -> str:
    """The checkpoint statement for one set of fields (built once: identifiers come from the models)."""
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(_column(_turn_field(name)))} = %s" for name in fields)
    columns = ", ".join(quote(field.column) for field in _run_fields())
    holes = ", ".join(["%s"] * len(_run_fields()))
    pk = quote(_column(Turn._meta.pk))
    # The final checkpoint's transaction waits for the WAL flush whatever the session says.
    head = "WITH durable AS (SELECT set_config('synchronous_commit', 'on', true)), " if durable else "WITH "
    return (
        f"{head}claimed AS (UPDATE {quote(Turn._meta.db_table)} SET {assignments}"  # noqa: S608
        f" WHERE {pk} = %s AND {quote('steps')} = %s AND {quote('status')} = %s RETURNING {pk} AS turn_id)"
        f" INSERT INTO {quote(NodeRun._meta.db_table)} ({quote('turn_id')}, {columns})"
        f" SELECT claimed.turn_id, {holes} FROM claimed{', durable' if durable else ''} RETURNING 1"
    )


def turn_advance_to_end(
    turn_id: UUID | str,
    *,
    finalize: Finalizer,
    nodes: Mapping[str, NodeFunction] = NODE_FUNCTIONS,
    retry_failed: bool = True,
) -> Turn:
    """Run a turn to the end under its conversation's lock; a failing node is retried, then escalated."""
    with turn_conversation_lock(turn_id):
        turn = Turn.objects.get(pk=turn_id)  # read under the lock: a previous runner may have moved it
        failures = 0
        while True:
            try:
                if not turn_advance(turn, finalize=finalize, nodes=nodes):
                    break
            except NodeFailed:
                failures += 1
                if not retry_failed:
                    raise
                if failures >= MAX_NODE_FAILURES:
                    _force_escalate(turn_id, reason="node_error")
                    turn.refresh_from_db()
    return turn


def _force_escalate(turn_id: UUID | str, *, reason: str) -> None:
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
    payload = {"turn_id": str(turn.pk), "node": node, "next": target, "status": turn.status, "step": turn.steps}
    conversation_id = str(turn.conversation_id)
    transaction.on_commit(lambda: extensions.progress_publish(conversation_id, payload))
