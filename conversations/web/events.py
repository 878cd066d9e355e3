"""Progress notifications over the channel layer. They only notify: clients fetch the turn from the API.

Turns run on worker threads (or Celery workers), not on an event loop, and the channel layer is
asyncio code. `async_to_sync` per event started a thread and an event loop per call (~1 ms each,
several per turn), and the in-memory layer's queues were then touched from a foreign loop. Instead
each process hands events to one long-lived loop, in order, without waiting: the loop that serves
WebSockets when this process has one (registered by the consumer), else a private daemon loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections import deque
from typing import Any

from channels.layers import BaseChannelLayer, get_channel_layer

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_server_loop: asyncio.AbstractEventLoop | None = None
_private_loop: asyncio.AbstractEventLoop | None = None
_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _ProgressQueue] = weakref.WeakKeyDictionary()


def conversation_group(conversation_id: str) -> str:
    """Channel-layer group of one conversation's WebSocket listeners."""
    return f"conv.{conversation_id}"


def server_loop_register(loop: asyncio.AbstractEventLoop | None) -> None:
    """Publish on the loop that serves WebSockets (the in-memory layer's queues live there)."""
    global _server_loop  # noqa: PLW0603 - one serving loop per process
    _server_loop = loop


class _ProgressQueue:
    """Events waiting on one loop; drained by a single task so they leave in the order they came."""

    def __init__(self) -> None:
        self.items: deque[tuple[BaseChannelLayer, str, dict[str, Any]]] = deque()
        self.draining = False

    def push(self, layer: BaseChannelLayer, group: str, message: dict[str, Any]) -> None:  # runs on the loop
        self.items.append((layer, group, message))
        if not self.draining:
            self.draining = True
            asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self.items:
                layer, group, message = self.items.popleft()
                try:
                    await layer.group_send(group, message)
                except Exception:  # noqa: BLE001 - delivery is best effort by design; the database has the truth
                    logger.warning("progress event not delivered to %s", group)
        finally:
            self.draining = False


def _private() -> asyncio.AbstractEventLoop:
    global _private_loop  # noqa: PLW0603 - one daemon loop per process, started on first use
    with _lock:
        if _private_loop is None or _private_loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="pathways-events", daemon=True).start()
            _private_loop = loop
        return _private_loop


def _target() -> asyncio.AbstractEventLoop:
    loop = _server_loop
    if loop is not None and loop.is_running() and not loop.is_closed():
        return loop
    return _private()


def publish_progress(conversation_id: str, payload: dict[str, Any]) -> None:
    """Queue one node's progress for the conversation's listeners and return at once; a lost event loses nothing."""
    publish_group(conversation_group(conversation_id), {"type": "turn.progress", **payload})


def publish_group(group: str, message: dict[str, Any]) -> None:
    """Queue one notify-only message for any channel-layer group (e.g. the staff inbox); best effort like progress."""
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _target()
    with _lock:
        progress = _queues.setdefault(loop, _ProgressQueue())
    try:
        loop.call_soon_threadsafe(progress.push, layer, group, message)
    except RuntimeError:  # the loop closed between the check and the call (process shutting down)
        logger.warning("event not delivered to %s", group)
