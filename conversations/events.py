"""Progress notifications over the channel layer. They only notify: clients fetch the turn from the API."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def conversation_group(conversation_id: str) -> str:
    """Channel-layer group of one conversation's WebSocket listeners."""
    return f"conv.{conversation_id}"


def publish_progress(conversation_id: str, payload: dict[str, Any]) -> None:
    """Send one node's progress to the conversation's listeners; a lost event loses nothing."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(conversation_group(conversation_id), {"type": "turn.progress", **payload})
    except Exception:  # noqa: BLE001 - delivery is best effort by design; the database has the truth
        logger.warning("progress event not delivered for conversation %s", conversation_id)
