"""The Redis-backed paths for real: a channel-layer round trip and a Celery task through a worker."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.redis
def test_a_group_message_round_trips_between_two_processes_layers(redis_url: str) -> None:
    """Publisher and listener hold separate layer instances (a Celery worker and a uvicorn worker)."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    assert backend == "channels_redis.pubsub.RedisPubSubChannelLayer"  # the REDIS_URL configuration
    layer_class = import_string(backend)
    listener, publisher = layer_class(hosts=[redis_url]), layer_class(hosts=[redis_url])

    async def round_trip() -> dict[str, str]:
        channel = await listener.new_channel()
        await listener.group_add("conv.test-round-trip", channel)
        try:
            await asyncio.sleep(0.2)  # the subscription is live before the publish (pub/sub keeps nothing)
            await publisher.group_send("conv.test-round-trip", {"type": "turn.progress", "node": "retrieve"})
            return await asyncio.wait_for(listener.receive(channel), 5)
        finally:
            await listener.group_discard("conv.test-round-trip", channel)
            await listener.flush()
            await publisher.flush()

    assert async_to_sync(round_trip)() == {"type": "turn.progress", "node": "retrieve"}


@pytest.mark.redis
@pytest.mark.slow
def test_a_celery_task_runs_on_a_worker_through_the_redis_broker(redis_url: str) -> None:
    env = dict(os.environ, REDIS_URL=redis_url, CELERY_TASK_ALWAYS_EAGER="false")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "pathways_site",
            "worker",
            "--pool=solo",
            "-Q",
            "celery",
            "-n",
            f"test-{os.getpid()}@%h",
            "-l",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        code = (
            "import django; django.setup();"
            "from pathways_site.celery import ping;"
            "r = ping.delay('through-redis'); print(r.get(timeout=90))"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().endswith("through-redis")
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
