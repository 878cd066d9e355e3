"""An interrupted turn resumes from its last finished node: no node runs twice, the reply is the same."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.db import connection

from conversations import services
from conversations.models import NodeRun, Turn
from conversations.workflow import engine
from conversations.workflow.nodes import NODE_FUNCTIONS

ROOT = Path(__file__).resolve().parents[2]
TEXT = "how do i get my birth certificate in san antonio"


def start(text: str = TEXT) -> Turn:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex)
    return turn


def failing_once(node: str) -> dict:
    calls = {"n": 0}
    real = NODE_FUNCTIONS[node]

    def flaky(view: object, ctx: object) -> object:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("simulated crash")
        return real(view, ctx)

    return {**NODE_FUNCTIONS, node: flaky}


@pytest.mark.django_db
@pytest.mark.parametrize("node", ["retrieve", "match", "draft", "audit", "send"])
def test_a_turn_interrupted_at_any_node_resumes_without_rerunning_finished_nodes(node: str) -> None:
    reference = services.turn_run(turn_id=start().pk)
    turn = start()
    flaky = failing_once(node)
    with pytest.raises(engine.NodeFailed):
        engine.turn_advance_to_end(turn.pk, finalize=services.turn_finalize, nodes=flaky, retry_failed=False)
    interrupted = Turn.objects.get(pk=turn.pk)
    assert interrupted.status == Turn.Status.RUNNING
    assert interrupted.current_node == node
    assert interrupted.error.startswith(node)
    finished_before = list(interrupted.node_runs.values_list("node", flat=True))
    assert services.turns_resume(turn_ids=[str(turn.pk)]) == 1
    resumed = Turn.objects.get(pk=turn.pk)
    nodes_run = list(resumed.node_runs.order_by("step").values_list("node", flat=True))
    assert nodes_run[: len(finished_before)] == finished_before
    assert len(nodes_run) == len(set(nodes_run))  # no node twice on this straight path
    assert resumed.status == reference.status
    assert resumed.reply == reference.reply


@pytest.mark.django_db
def test_an_old_turn_after_a_graph_change_escalates_instead_of_running_half_under_each() -> None:
    turn = start()
    Turn.objects.filter(pk=turn.pk).update(workflow_version="0ld-v3rs10n")
    resumed = services.turn_run(turn_id=turn.pk)
    assert resumed.status == Turn.Status.ESCALATED
    assert resumed.escalation_reason == "workflow_version_changed"
    assert resumed.node_runs.values_list("outcome", flat=True).first() == "bound_breach"


@pytest.mark.django_db
def test_a_node_that_keeps_failing_ends_in_a_conservative_escalation() -> None:
    def broken(view: object, ctx: object) -> object:
        raise RuntimeError("always")

    turn = start()
    result = engine.turn_advance_to_end(
        turn.pk, finalize=services.turn_finalize, nodes={**NODE_FUNCTIONS, "match": broken}
    )
    assert result.status == Turn.Status.ESCALATED
    assert result.escalation_reason == "node_error"
    assert result.reply


def _test_database_url() -> str:
    """The configured DATABASE_URL, pointed at the test database this session created."""
    parts = urlsplit(settings.DATABASE_URL)
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


KILLER = """
import os, sys, django
django.setup()
from conversations.workflow import nodes
real = nodes.NODE_FUNCTIONS["draft"]
def die(view, ctx):
    os._exit(17)  # the process dies between the match checkpoint and the draft checkpoint
nodes.NODE_FUNCTIONS["draft"] = die
from conversations import services
services.turn_run(turn_id=sys.argv[1])
"""


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_killed_process_leaves_a_turn_that_resumes_from_its_last_checkpoint() -> None:
    turn = start()
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="pathways_site.settings", DATABASE_URL=_test_database_url())
    result = subprocess.run(
        [sys.executable, "-c", KILLER, str(turn.pk)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 17, result.stderr[-2000:]
    crashed = Turn.objects.get(pk=turn.pk)
    assert crashed.status == Turn.Status.RUNNING
    assert crashed.current_node == "draft"
    assert list(crashed.node_runs.order_by("step").values_list("node", flat=True)) == ["intake", "retrieve", "match"]
    services.turns_resume(turn_ids=[str(turn.pk)])
    done = Turn.objects.get(pk=turn.pk)
    assert done.status == Turn.Status.COMPLETED
    assert list(NodeRun.objects.filter(turn=done).order_by("step").values_list("node", flat=True)) == [
        "intake",
        "retrieve",
        "match",
        "draft",
        "audit",
        "send",
    ]
