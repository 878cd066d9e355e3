"""The inbox WebSocket: staff only, and each listener hears only about conversations in its user's scope."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator
from channels.layers import get_channel_layer
from django.contrib.auth.models import AnonymousUser

from caseload.inbox.consumers import InboxConsumer
from conversations.staff import INBOX_GROUP


class Socket(ApplicationCommunicator):
    """A minimal WebSocket client over asgiref's communicator (channels.testing needs daphne, not installed)."""

    def __init__(self, user: Any) -> None:
        scope = {"type": "websocket", "path": "/ws/caseload/inbox/", "headers": [], "subprotocols": [], "user": user}
        super().__init__(InboxConsumer.as_asgi(), scope)

    async def connect(self) -> bool:
        await self.send_input({"type": "websocket.connect"})
        return (await self.receive_output(timeout=5))["type"] == "websocket.accept"

    async def receive_json(self, timeout: float) -> dict[str, Any]:
        return json.loads((await self.receive_output(timeout=timeout))["text"])

    async def disconnect(self) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.wait(timeout=2)


async def _session(user: Any, notify: list[str]) -> list[dict[str, Any]]:
    communicator = Socket(user)
    assert await communicator.connect()
    layer = get_channel_layer()
    for conversation_id in notify:
        await layer.group_send(
            INBOX_GROUP, {"type": "inbox.changed", "conversation_id": conversation_id, "reason": "t"}
        )
    # Exactly one message is expected (the in-scope one); then nothing more arrives.
    received = [await communicator.receive_json(timeout=3)]
    assert await communicator.receive_nothing(timeout=0.5)
    await communicator.disconnect()
    return received


@pytest.mark.django_db(transaction=True)
def test_a_case_manager_hears_only_about_their_own_conversations(cast: Any) -> None:
    received = asyncio.run(_session(cast.cm_a, [str(cast.conv_b.pk), str(cast.conv_a.pk)]))
    assert [item["conversation_id"] for item in received] == [str(cast.conv_a.pk)]
    assert received[0]["type"] == "changed" and set(received[0]) == {"type", "conversation_id", "reason"}


@pytest.mark.django_db(transaction=True)
def test_anonymous_and_partner_users_are_refused(cast: Any) -> None:
    async def attempt(user: Any) -> bool:
        return await Socket(user).connect()

    assert asyncio.run(attempt(AnonymousUser())) is False
    assert asyncio.run(attempt(cast.partner)) is False
