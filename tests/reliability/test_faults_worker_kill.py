"""Kill the Celery worker mid-turn (SIGKILL, real Redis broker): the turn resumes from its checkpoint and completes once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from celery import Celery

from conversations import services
from conversations.models import NodeRun, Turn
from tests.conversations.test_workflow_resume import _test_database_url as _database_url

ROOT = Path(__file__).resolve().parents[2]

# The worker's draft node hangs, so the kill lands after the match checkpoint and before draft's.
WORKER = """
import sys, time, django
django.setup()
from conversations.workflow import nodes
real = nodes.NODE_FUNCTIONS["draft"]
def hang(view, ctx):
    open(sys.argv[2], "w").close()
    time.sleep(600)
nodes.NODE_FUNCTIONS["draft"] = hang if sys.argv[3] == "hang" else real
from pathways_site.celery import app
app.worker_main(["worker", "--pool=solo", "-Q", sys.argv[1], "-n", sys.argv[1] + "@%h", "-l", "warning", "--without-heartbeat", "--without-gossip", "--without-mingle"])
"""


def _worker(queue: str, marker: Path, mode: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, queue, str(marker), mode],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _wait(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.3)
    return False


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_turn_survives_its_worker_being_killed_and_completes_once(redis_url: str, tmp_path: Path) -> None:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(
        conversation=conversation, text="I need an ID in Houston", idempotency_key=uuid.uuid4().hex
    )
    queue = f"faults-{uuid.uuid4().hex[:10]}"  # a private queue: no other worker on this Redis takes our tasks
    env = dict(
        os.environ,
        REDIS_URL=redis_url,
        CELERY_TASK_ALWAYS_EAGER="false",
        DATABASE_URL=_database_url(),
        DJANGO_SETTINGS_MODULE="pathways_site.settings",
    )
    sender = Celery(broker=redis_url)
    marker = tmp_path / "in-draft"
    first = _worker(queue, marker, "hang", env)
    try:
        sender.send_task("conversations.run_turn", args=[str(turn.pk)], queue=queue)
        assert _wait(marker.exists, 120), "the worker never reached the draft node"
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
    crashed = Turn.objects.get(pk=turn.pk)
    assert crashed.status == Turn.Status.RUNNING and crashed.current_node == "draft"

    # What beat does every minute: a fresh worker picks up turns left running.
    second = _worker(queue, marker, "real", env)
    try:
        sender.send_task("conversations.resume_stale_turns", kwargs={"older_than_seconds": 0}, queue=queue)
        assert _wait(lambda: Turn.objects.get(pk=turn.pk).is_finished, 120), "the turn was not resumed"
    finally:
        second.terminate()
        try:
            second.wait(timeout=20)
        except subprocess.TimeoutExpired:
            second.kill()
    nodes = list(NodeRun.objects.filter(turn_id=turn.pk).order_by("step").values_list("node", flat=True))
    assert nodes == ["intake", "retrieve", "match", "draft", "audit", "send"]
    done = Turn.objects.get(pk=turn.pk)
    assert done.status in (Turn.Status.COMPLETED, Turn.Status.ESCALATED) and done.reply
