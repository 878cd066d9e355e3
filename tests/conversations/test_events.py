"""Progress events leave in order, from any thread, without blocking the turn; a failing layer loses only events."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from conversations.web import events


class SlowLayer:
    def __init__(self, fail_on: int | None = None) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.fail_on = fail_on

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await asyncio.sleep(0.001)  # a network layer yields between sends: order must still hold
        if message.get("step") == self.fail_on:
            raise ConnectionError("layer down")
        self.sent.append((group, message))


def wait_for(condition: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
    return condition()


def test_events_from_worker_threads_arrive_in_order_per_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    layer = SlowLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)

    def turn(conversation: str) -> None:
        for step in range(1, 21):
            events.publish_progress(conversation, {"turn_id": conversation, "step": step})

    threads = [threading.Thread(target=turn, args=(f"c{n}",)) for n in range(3)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert time.perf_counter() - started < 0.5  # publishing never waits for the layer (60 sends take longer)
    assert wait_for(lambda: len(layer.sent) == 60)
    for n in range(3):
        steps = [message["step"] for group, message in layer.sent if group == f"conv.c{n}"]
        assert steps == list(range(1, 21))
    assert all(message["type"] == "turn.progress" for _group, message in layer.sent)


def test_a_failing_send_loses_that_event_only(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    layer = SlowLayer(fail_on=2)
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    for step in (1, 2, 3):
        events.publish_progress("c9", {"step": step})
    assert wait_for(lambda: len(layer.sent) == 2)
    assert [message["step"] for _group, message in layer.sent] == [1, 3]
    assert wait_for(lambda: "progress event not delivered" in caplog.text)


def test_a_registered_server_loop_receives_the_events(monkeypatch: pytest.MonkeyPatch) -> None:
    layer = SlowLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    seen_on: list[int] = []
    original = layer.group_send

    async def recording(group: str, message: dict[str, Any]) -> None:
        seen_on.append(threading.get_ident())
        await original(group, message)

    layer.group_send = recording  # type: ignore[method-assign]
    loop = asyncio.new_event_loop()
    server = threading.Thread(target=loop.run_forever, daemon=True)
    server.start()
    try:
        events.server_loop_register(loop)
        assert wait_for(loop.is_running)
        events.publish_progress("c1", {"step": 1})
        assert wait_for(lambda: len(layer.sent) == 1)
        assert seen_on == [server.ident]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        server.join(5)
        loop.close()
        events.server_loop_register(None)
